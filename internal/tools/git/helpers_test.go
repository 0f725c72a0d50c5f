//go:build unix

package git

import (
	"testing"

	"github.com/zelvior/aidex/internal/tools/toolstest"
)

// fixture is the shared tool-test fixture (toolstest.Fixture) with this
// package's tools registered.
type fixture struct{ *toolstest.Fixture }

type m = toolstest.M

// newFixture registers the git tools.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{toolstest.New(t, Tools()...)}
}

// jobj is a JSON object of tool arguments.
type jobj = toolstest.M
