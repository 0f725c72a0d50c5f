package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// copyTree copies the folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestClaudeRealSkills loads every skill of ../shared/claude-real/skills
// (Anthropic's and others' published skills, unchanged) from a project's
// .claude/skills, as Claude Code does: each is listed by its folder name
// with its description, and loads with its body and files.
func TestClaudeRealSkills(t *testing.T) {
	src := sharedtest.Require(t, "claude-real/skills", "real Claude Code skills")
	ws := t.TempDir()
	copyTree(t, src, filepath.Join(ws, ".claude", "skills"))
	list, errs := Discover(Dirs(ws, "", ""))
	for _, e := range errs {
		t.Errorf("problem: %v", e)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			s, ok := Find(list, e.Name())
			if !ok {
				t.Fatalf("skill %s is not listed (listed: %v)", e.Name(), names(list))
			}
			if s.Description == "" {
				t.Fatal("no description")
			}
			out := s.Load()
			if !strings.Contains(out, strings.TrimSpace(s.Body)[:40]) {
				t.Fatalf("Load does not show the body:\n%s", out)
			}
			if s.Scope != "project" {
				t.Fatalf("scope %s", s.Scope)
			}
		})
	}
	if w, ok := Find(list, "writing-rules"); ok && w.Label != "Writing Hookify Rules" {
		t.Errorf("writing-rules label %q: the name key is its display label", w.Label)
	}
}

func names(list []Skill) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}
