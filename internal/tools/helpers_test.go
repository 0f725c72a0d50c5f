package tools_test

import (
	"testing"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/file"
	"github.com/zelvior/aidex/internal/tools/search"
	"github.com/zelvior/aidex/internal/tools/toolstest"
)

// fixture is the shared tool-test fixture (toolstest.Fixture) with this
// package's tools registered.
type fixture struct{ *toolstest.Fixture }

type m = toolstest.M

// newFixture registers the file and search families with the Go grep
// backend, to exercise the core through real tools.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{toolstest.New(t, fileTools()...)}
	f.Env.Grep = search.GoGrep{}
	return f
}

// fileTools are the file and search families.
func fileTools() []tools.Def { return append(file.Tools(), search.Tools()...) }
