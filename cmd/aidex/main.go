// Command aidex is an AI coding agent for the terminal, scripts, CI and the
// browser. All behaviour lives in internal/cli; main only wires the process's
// standard streams, environment and signals into it. With the hidden first
// argument "__sandbox" it is the sandbox helper instead (when no
// aidex-sandbox binary is installed beside it). The embedded NATS server
// of `aidex ralph serve` is a program of its own, aidex-nats
// (cmd/aidex-nats), so that its code does not cost every start.
package main

import (
	"os"

	"github.com/zelvior/aidex/internal/cli"
	"github.com/zelvior/aidex/internal/ralph/dist"
	"github.com/zelvior/aidex/internal/sandbox/helper"
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
	if len(os.Args) > 1 && os.Args[1] == helper.Arg {
		os.Exit(helper.Main(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == dist.HelperArg {
		os.Exit(dist.NoHelperMain(os.Stdout))
	}
	startupGC(os.Getenv, startupGCWindow)
	os.Exit(cli.Main(cli.Process{
		Args:    os.Args[1:],
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Version: build,
	}))
}
