package exec

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the
// command and background tools must stop every reader and waiter they
// start.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
