package plain

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when they leave goroutines behind
// (the REPL's reader, a Ralph loop, an engine run).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
