package dist

import (
	"os"
	"testing"

	"github.com/zelvior/aidex/internal/ralph/dist/natsd"
)

// TestMain lets the test binary serve as the NATS helper (aidex-nats):
// StartEmbedded finds no aidex-nats beside it and re-executes it with
// HelperArg first.
func TestMain(m *testing.M) {
	natsd.RunIfArg(HelperArg)
	os.Exit(m.Run())
}
