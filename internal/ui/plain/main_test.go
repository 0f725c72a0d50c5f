package plain

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/app/apptest"
)

// TestMain fails the package's tests when they leave goroutines behind
// (the REPL's reader, a Ralph loop, an engine run).
//
// The test binary also serves as the sandbox helper the commands of the
// tests' runs start through (apptest.SandboxHelper).
func TestMain(m *testing.M) {
	apptest.SandboxHelper()
	goleak.VerifyTestMain(m)
}
