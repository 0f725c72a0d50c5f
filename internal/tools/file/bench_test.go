package file

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/toolstest"
)

// BenchmarkSearchFiles runs the search_files tool over GOROOT/src.
func BenchmarkSearchFiles(b *testing.B) {
	ws, err := permission.NewWorkspace(toolstest.GoSrc(b), permission.WorkspaceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(fileTools()...); err != nil {
		b.Fatal(err)
	}
	env := tools.NewEnv(ws)
	args := json.RawMessage(`{"pattern":"**/*_test.go"}`)
	for b.Loop() {
		if r := reg.Call(context.Background(), env, "search_files", args); !r.OK || r.Meta.Matches == 0 {
			b.Fatal(r.Error)
		}
	}
}
