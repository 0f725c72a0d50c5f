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
	if len(list) != 2 || list[0].Name != "notes" || list[1].Name != "pdf" {
		t.Fatalf("skills %+v", list)
	}
	if list[1].Description != "Fill PDF forms" || list[1].Scope != "project" || len(list[1].AllowedTools) != 2 {
		t.Fatalf("pdf %+v: the project's must win", list[1])
	}
	joined := ""
	for _, e := range errs {
		joined += e.Error() + "\n"
	}
	if len(errs) != 2 || !strings.Contains(joined, "no description") || !strings.Contains(joined, "must be lower-case") {
		t.Fatalf("errors:\n%s", joined)
	}
	out := list[1].Load()
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
