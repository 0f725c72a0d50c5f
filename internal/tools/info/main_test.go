package info

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them:
// the information tools must stop every process and walker they start.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
