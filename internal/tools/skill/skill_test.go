package skill

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/skills"
	"github.com/zelvior/aidex/internal/tools"
)

func TestSkillTool(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "greet")
	if err := os.MkdirAll(filepath.Join(dir, "ref"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\ndescription: Greets\n---\nBODY\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "ref", "x.md"), []byte("REF\n"), 0o644)
	s, err := skills.Load(dir, "user")
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(Def([]skills.Skill{s})); err != nil {
		t.Fatal(err)
	}
	ws, err := permission.NewWorkspace(t.TempDir(), permission.WorkspaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := tools.NewEnv(ws)
	run := func(args string) tools.Result {
		p, err := reg.Prepare("skill", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return p.Run(t.Context(), env)
	}
	if r := run(`{"name":"greet"}`); !r.OK || !strings.Contains(r.Output, "BODY") || !strings.Contains(r.Output, "- ref/x.md") {
		t.Fatalf("%+v", r)
	}
	if r := run(`{"name":"greet","file":"ref/x.md"}`); !r.OK || r.Output != "REF\n" {
		t.Fatalf("%+v", r)
	}
	if r := run(`{"name":"greet","file":"../../etc/passwd"}`); r.OK || r.Category != tools.CategorySecurity {
		t.Fatalf("%+v", r)
	}
	if r := run(`{"name":"nope"}`); r.OK || !strings.Contains(r.Error, "the skills are: greet") {
		t.Fatalf("%+v", r)
	}
}
