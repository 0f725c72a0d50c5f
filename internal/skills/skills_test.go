package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverPrecedenceAndErrors(t *testing.T) {
	ws, cfg, home := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".claude/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: Fill PDF forms\nallowed-tools: Bash(python3 *), Read\n---\n# PDF\nUse scripts/fill.py\n")
	write(t, filepath.Join(ws, ".claude/skills/pdf/scripts/fill.py"), "print('fill')\n")
	write(t, filepath.Join(home, ".claude/skills/pdf/SKILL.md"), "---\ndescription: user pdf\n---\nuser\n")
	write(t, filepath.Join(cfg, "skills/notes/SKILL.md"), "---\ndescription: Take notes\n---\nnotes body\n")
	write(t, filepath.Join(cfg, "skills/nodesc/SKILL.md"), "---\nname: nodesc\n---\nx\n")
	write(t, filepath.Join(cfg, "skills/Bad Name/SKILL.md"), "---\ndescription: x\n---\nx\n")
	if err := os.MkdirAll(filepath.Join(cfg, "skills/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	list, errs := Discover(Dirs(ws, cfg, home))
	if len(list) != 3 || list[0].Name != "nodesc" || list[1].Name != "notes" || list[2].Name != "pdf" {
		t.Fatalf("skills %+v", list)
	}
	if list[2].Description != "Fill PDF forms" || list[2].Scope != "project" || len(list[2].AllowedTools) != 2 {
		t.Fatalf("pdf %+v: the project's must win", list[2])
	}
	if list[0].Description != "x" {
		t.Fatalf("nodesc %+v: the body's first line describes it", list[0])
	}
	joined := ""
	for _, e := range errs {
		joined += e.Error() + "\n"
	}
	if len(errs) != 2 || !strings.Contains(joined, "nodesc/SKILL.md: no description") || !strings.Contains(joined, "no spaces; the file is skipped") {
		t.Fatalf("errors:\n%s", joined)
	}
	out := list[2].Load()
	if !strings.Contains(out, "Use scripts/fill.py") || !strings.Contains(out, "- scripts/fill.py") || strings.Contains(out, "- SKILL.md") {
		t.Fatalf("load:\n%s", out)
	}
}

func TestPromptCap(t *testing.T) {
	var list []Skill
	for i := 0; i < 50; i++ {
		list = append(list, Skill{Name: "s" + strings.Repeat("x", i%5) + string(rune('a'+i%26)), Description: strings.Repeat("word ", 30)})
	}
	p := Prompt(list, 500)
	if len(p) > 500*4+200 || !strings.Contains(p, "more skills not listed") || !strings.Contains(p, "- "+list[0].Name+": word") {
		t.Fatalf("prompt (%d bytes):\n%s", len(p), p)
	}
	if Prompt(nil, 500) != "" {
		t.Fatal("no skills must give no section")
	}
	if p := Prompt(list[:2], 2000); strings.Contains(p, "more skills") {
		t.Fatalf("cut although it fits:\n%s", p)
	}
}

func TestReadFileConfined(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(dir, "SKILL.md"), "---\ndescription: d\n---\nb\n")
	write(t, filepath.Join(dir, "ref/guide.md"), "guide\n")
	write(t, filepath.Join(outside, "secret"), "secret\n")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir, "user")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.ReadFile("ref/guide.md"); err != nil || got != "guide\n" {
		t.Fatalf("%q %v", got, err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", "link", "ref"} {
		if _, err := s.ReadFile(bad); err == nil {
			t.Errorf("ReadFile(%q) must fail", bad)
		}
	}
}

// TestNameIsALabel: the folder names a skill; the front matter's name is
// its display label, whatever it holds.
func TestNameIsALabel(t *testing.T) {
	for _, c := range []struct{ folder, front, label string }{
		{"writing-rules", "name: Writing Hookify Rules\n", "Writing Hookify Rules"},
		{"pdf", "name: other-name\n", "other-name"},
		{"notes", "", "notes"},
		{"Mixed.Case_1", "", "Mixed.Case_1"},
	} {
		dir := filepath.Join(t.TempDir(), c.folder)
		write(t, filepath.Join(dir, FileName), "---\n"+c.front+"description: d: with a colon\n---\nbody\n")
		s, err := Load(dir, "user")
		if err != nil || s.Name != c.folder || s.Label != c.label || s.Description != "d: with a colon" {
			t.Errorf("%s: %+v %v", c.folder, s, err)
		}
	}
}
