package app

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/ralph/dist"
	"github.com/zelvior/aidex/internal/ralph/dist/natsd"
)

// TestMain fails the package's tests when a goroutine outlives them.
//
// The test binary also serves as the sandbox helper the commands of the
// tests' runs start through (apptest.SandboxHelper).
func TestMain(m *testing.M) {
	apptest.SandboxHelper()
	natsd.RunIfArg(dist.HelperArg)
	goleak.VerifyTestMain(m)
}
