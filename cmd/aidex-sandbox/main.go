// Command aidex-sandbox is aidex's sandbox helper: aidex starts it in new
// user, mount and network namespaces to confine one command (see
// docs/sandbox.md). It is not meant to be run by hand. Install it beside
// aidex (go install ./cmd/...) so that commands start in about a
// millisecond; without it aidex re-executes itself. The Go runtime does not
// apply cgroup CPU limits here (it runs for a millisecond), and aidex
// starts it with GOMAXPROCS=1 (fewer runtime threads to start and end;
// the command gets its own setting back). Built with cgo on Linux, it
// has a small C part that runs before the Go runtime starts and creates
// the namespaces itself when aidex asks for it (unshare_linux.go), so that
// aidex starts it without copying its own memory; the same C part hands a
// command to a spare helper aidex started ahead of it (docs/sandbox.md).
//
//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0
package main

import (
	"os"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

func main() {
	os.Exit(helper.Run(os.Args[1:], unshared()))
}
