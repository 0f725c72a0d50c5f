package file

import (
	"testing"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/search"
	"github.com/zelvior/aidex/internal/tools/toolstest"
)

// fixture is the shared tool-test fixture (toolstest.Fixture) with this
// package's tools registered.
type fixture struct{ *toolstest.Fixture }

type m = toolstest.M

// newFixture registers the file and search families (together, as before
// the split) with the Go grep backend.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{toolstest.New(t, fileTools()...)}
	f.Env.Grep = search.GoGrep{}
	return f
}

// fileTools are the file and search families.
func fileTools() []tools.Def { return append(Tools(), search.Tools()...) }
