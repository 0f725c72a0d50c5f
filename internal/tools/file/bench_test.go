package file

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

// BenchmarkPatchedText parses a 20-chunk patch and applies it to a
// 10,000-line file (apply_patch's work without the disk).
func BenchmarkPatchedText(b *testing.B) {
	var src, patch strings.Builder
	patch.WriteString("*** Begin Patch\n*** Update File: big.go\n")
	for i := range 10000 {
		fmt.Fprintf(&src, "\tx%d := f(%d)\n", i, i)
		if i%500 == 250 {
			fmt.Fprintf(&patch, "@@ \tx%d := f(%d)\n \tx%d := f(%d)\n-\tx%d := f(%d)\n+\tx%d := g(%d)\n", i-3, i-3, i-1, i-1, i, i, i, i)
		}
	}
	patch.WriteString("*** End Patch\n")
	for b.Loop() {
		ops, err := parsePatch(patch.String())
		if err != nil || len(ops[0].chunks) != 20 {
			b.Fatal(err)
		}
		if _, _, err := patchedText(src.String(), ops[0].chunks); err != nil {
			b.Fatal(err)
		}
	}
}
