package cli

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/ralph/dist"
	"github.com/zelvior/aidex/internal/ralph/dist/natsd"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// childEnv makes the test binary run aidex itself (Main with its
// arguments) instead of the tests: for tests that need a second aidex
// process (see aidexProcess).
const childEnv = "AIDEX_TEST_RUN_MAIN"

// TestMain fails the package's tests when a goroutine outlives them.
//
// The test binary also serves as the sandbox helper the commands of the
// tests' runs start through (apptest.SandboxHelper).
func TestMain(m *testing.M) {
	apptest.SandboxHelper()
	natsd.RunIfArg(dist.HelperArg)
	if os.Getenv(childEnv) == "1" {
		os.Exit(Main(Process{Chat: chat.Run, Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}))
	}
	goleak.VerifyTestMain(m)
}
