// Command aidex-sandbox is aidex's sandbox helper: aidex starts it in new
// user, mount and network namespaces to confine one command (see
// docs/sandbox.md). It is not meant to be run by hand. Install it beside
// aidex (go install ./cmd/...) so that commands start in about a
// millisecond; without it aidex re-executes itself.
package main

import (
	"os"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

func main() {
	os.Exit(helper.Main(os.Args[1:]))
}
