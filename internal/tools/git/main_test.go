package git

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them:
// the git tools must stop every process reader and waiter they start.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
