// Command aidex is an AI coding agent for the terminal, scripts, CI and the
// browser. All behaviour lives in internal/cli; main only wires the process's
// standard streams, environment and signals into it. With the hidden first
// argument "__sandbox" it is the sandbox helper instead (when no
// aidex-sandbox binary is installed beside it). The embedded NATS server
// of `aidex ralph serve` is a program of its own, aidex-nats
// (cmd/aidex-nats), and so is the interactive chat, aidex-chat
// (cmd/aidex-chat), which aidex starts for an interactive session: their
// libraries do not cost the start of aidex's other commands.
package main

import (
	"os"

	"github.com/zelvior/aidex/internal/cli"
	_ "github.com/zelvior/aidex/internal/pprofhook" // a profiler in -tags pprof builds only
)

// build is the build's stamp, the one variable a release sets with
// -ldflags: "VERSION" or "VERSION DATE", e.g.
//
//	go build -ldflags "-X 'main.build=v1.2.3 2026-12-03T10:00:00Z'" ./cmd/aidex
//
// (docs/development.md). Unset, --version shows the module version
// `go install` recorded, else "dev".
var build string

func main() {
	os.Exit(cli.Program(build, nil))
}
