// Command aidex-chat is aidex's interactive chat: the terminal UI, or the
// line mode with --plain or without a terminal. aidex starts it, with the
// same command line, for an interactive session (`aidex`, `aidex chat`,
// `aidex -c`, …); run by hand it behaves as aidex. It is a program of its
// own so that the terminal UI's libraries (Bubble Tea, glamour, chroma,
// goldmark) are initialised only where they are used, not on every start
// of aidex's other commands (issue 40). Install it beside aidex:
// `go install ./cmd/...` does.
package main

import (
	"os"

	"github.com/zelvior/aidex/internal/cli"
	_ "github.com/zelvior/aidex/internal/pprofhook" // a profiler in -tags pprof builds only
	"github.com/zelvior/aidex/internal/ui/chat"
)

// build is the build's stamp, set as aidex's (cmd/aidex): "VERSION" or
// "VERSION DATE"; the chat's banner shows it.
var build string

func main() {
	os.Exit(cli.Program(build, chat.Run))
}
