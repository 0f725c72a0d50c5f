// Command aidex-nats is aidex's NATS helper: the embedded NATS server with
// JetStream that `aidex ralph serve` and `aidex ralph run --workers N`
// start (see docs/ralph-distributed.md). It is not meant to be run by
// hand. Install it beside aidex (go install ./cmd/..., install.sh or
// install.ps1); it is a program of its own so that the server's code does
// not cost every start of aidex.
package main

import (
	"os"

	"github.com/zelvior/aidex/internal/ralph/dist/natsd"
)

func main() {
	os.Exit(natsd.Main(os.Stdin, os.Stdout))
}
