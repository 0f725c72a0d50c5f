// Command aidex is an AI coding agent for the terminal, scripts, CI and the
// browser. All behaviour lives in internal/cli; main only wires the process's
// standard streams, environment and signals into it. With the hidden first
// argument "__sandbox" it is the sandbox helper instead (when no
// aidex-sandbox binary is installed beside it).
package main

import (
	"os"

	"github.com/zelvior/aidex/internal/cli"
	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3"; when
// empty, the module version recorded by `go install` is used.
var version string

func main() {
	if len(os.Args) > 1 && os.Args[1] == helper.Arg {
		os.Exit(helper.Main(os.Args[2:]))
	}
	os.Exit(cli.Main(cli.Process{
		Args:    os.Args[1:],
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Version: version,
	}))
}
