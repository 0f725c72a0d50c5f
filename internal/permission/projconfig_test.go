package permission

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/kind"
)

// Every file aidex or a compatible agent loads as project configuration
// or runs later is a protected write in every mode, whether it exists or
// not (issue 42): .mcp.json and .envrc were not; the folder the
// repository's core.hooksPath names and the files its config includes
// were not either.
func TestProjectConfigWritesAlwaysAsk(t *testing.T) {
	f := newFixture(t)
	mustWrite(t, filepath.Join(f.root, ".git", "config"), "[core]\n\thooksPath = .husky\n[include]\n\tpath = ../shared.gitconfig\n")
	p := newPolicy(t, f, ModeYolo, true)
	for _, path := range []string{".mcp.json", ".envrc", "sub/.envrc", ".vscode/tasks.json", ".claude/settings.json",
		".cursor/mcp.json", ".gemini/settings.json", ".codex/config.toml", ".aidex/config.toml", ".git/hooks/pre-commit",
		".husky/pre-commit", "shared.gitconfig", ".MCP.JSON"} {
		v := p.Check(Request{Tool: "write_file", Kind: kind.Write, Paths: []string{path}})
		if v.Decision != Ask || v.Rule != RuleProtected {
			t.Errorf("yolo write_file %s: %s (%s), want ask as a protected path", path, v.Decision, v.Reason)
		}
	}
	v := p.Check(Request{Tool: "write_file", Kind: kind.Write, Paths: []string{".mcp.json"}})
	if !strings.Contains(v.Reason, "MCP servers") {
		t.Errorf("the reason does not say why .mcp.json is protected: %s", v.Reason)
	}
	for _, path := range []string{"mcp.json", "src/envrc.go", ".gitignore", "husky/x"} {
		if v := p.Check(Request{Tool: "write_file", Kind: kind.Write, Paths: []string{path}}); v.Decision != Allow {
			t.Errorf("yolo write_file %s: %s (%s), want allow", path, v.Decision, v.Reason)
		}
	}
}
