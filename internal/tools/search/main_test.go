package search

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them:
// the search backends must stop every rg reader and walker they start.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
