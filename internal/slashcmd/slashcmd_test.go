package slashcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/claudecompat"
	"github.com/zelvior/aidex/internal/frontmatter"
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

func TestDiscoverNamespacesAndPrecedence(t *testing.T) {
	ws, cfg, home := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".claude/commands/frontend/test.md"), "---\ndescription: Run the frontend tests\nargument-hint: <pattern>\nallowed-tools: Bash(npm test:*), Read\nmodel: small\n---\nRun $ARGUMENTS\n")
	write(t, filepath.Join(ws, ".aidex/commands/review.md"), "aidex project review\n")
	write(t, filepath.Join(ws, ".claude/commands/review.md"), "claude project review\n")
	write(t, filepath.Join(cfg, "commands/review.md"), "user review\n")
	write(t, filepath.Join(cfg, "commands/mine.md"), "# My own\nbody\n")
	write(t, filepath.Join(home, ".claude/commands/mine.md"), "claude user mine\n")
	write(t, filepath.Join(home, ".claude/commands/bad.md"), "---\ndescription: [unclosed\n---\nx\n")
	cmds, errs := Discover(Dirs(ws, cfg, home))
	if len(errs) != 0 {
		t.Fatalf("errors %v: front matter that is not YAML is read as Claude Code reads it", errs)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"bad", "mine", "review", "test"}) {
		t.Fatalf("names %v", names)
	}
	if b, _ := Find(cmds, "bad"); b.Description != "[unclosed" {
		t.Fatalf("bad %+v", b)
	}
	ft, _ := Find(cmds, "/frontend:test")
	if ft.Description != "Run the frontend tests" || ft.ArgumentHint != "<pattern>" || ft.Model != "small" ||
		!reflect.DeepEqual(ft.AllowedTools, []string{"Bash(npm test:*)", "Read"}) || ft.Scope != ScopeProject {
		t.Fatalf("frontend:test %+v", ft)
	}
	if r, _ := Find(cmds, "review"); strings.TrimSpace(r.Body) != "aidex project review" {
		t.Fatalf("review from %s: project .aidex must win", r.Path)
	}
	if m, _ := Find(cmds, "mine"); m.Scope != ScopeUser || m.Description != "My own" || !strings.HasPrefix(m.Path, cfg) {
		t.Fatalf("mine %+v: the user's .config/aidex must win over ~/.claude", m)
	}
}

func TestAllowedToolsList(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "x.md"), "---\nallowed-tools:\n  - Bash(echo a,b)\n  - Grep\n---\nx\n")
	c, err := Load(filepath.Join(dir, "x.md"), "x", ScopeUser)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.AllowedTools, []string{"Bash(echo a,b)", "Grep"}) {
		t.Fatalf("allowed %q", c.AllowedTools)
	}
	if got, dropped := Rules(append(c.AllowedTools, "WebSearch", "run_command(go test *)"), claudecompat.Options{}); !reflect.DeepEqual(got, []string{"run_command(echo a,b)", "grep", "run_command(go test *)"}) ||
		len(dropped) != 1 || !strings.HasPrefix(dropped[0], "WebSearch (") {
		t.Fatalf("rules %q dropped %q", got, dropped)
	}
}

func TestSplitArgs(t *testing.T) {
	got, err := SplitArgs(`one "two words" 'three \x' four\ five`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"one", "two words", `three \x`, "four five"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
	if _, err := SplitArgs(`"open`); err == nil || !strings.Contains(err.Error(), "unclosed") {
		t.Fatalf("err %v", err)
	}
}

func TestSubstitute(t *testing.T) {
	got, err := Substitute("Fix issue #$1 with priority $2 ($3). All: $ARGUMENTS", `123 "high now"`)
	if err != nil {
		t.Fatal(err)
	}
	if got != `Fix issue #123 with priority high now (). All: 123 "high now"` {
		t.Fatalf("got %q", got)
	}
	got, _ = Substitute("Review the code.\n", "src/a.go")
	if got != "Review the code.\n\nARGUMENTS: src/a.go\n" {
		t.Fatalf("no placeholder: %q", got)
	}
}

func TestExpandCommandsAndIncludes(t *testing.T) {
	c := Command{Name: "review", Body: "Status: !`git status`\nReview @$1 and @missing.go, mail a@b.c\n"}
	var ran []string
	r := Resolver{
		Run: func(_ context.Context, cmd string) (string, error) { ran = append(ran, cmd); return "clean\n", nil },
		Include: func(_ context.Context, p string) (string, bool, error) {
			if p == "src/main.go" {
				return "package main\n", true, nil
			}
			return "", false, nil
		},
	}
	got, err := Expand(context.Background(), c, "src/main.go", r)
	if err != nil {
		t.Fatal(err)
	}
	want := "Status: clean\nReview @src/main.go and @missing.go, mail a@b.c\n\n<file path=\"src/main.go\">\npackage main\n</file>"
	if got != want || !reflect.DeepEqual(ran, []string{"git status"}) {
		t.Fatalf("got %q\nwant %q (ran %q)", got, want, ran)
	}
	r.Run = func(context.Context, string) (string, error) {
		return "", errors.New("denied by rule run_command(rm *)")
	}
	c.Body = "!`rm -rf x`"
	if _, err := Expand(context.Background(), c, "", r); err == nil || !strings.Contains(err.Error(), "/review: !`rm -rf x`: denied by rule run_command(rm *)") {
		t.Fatalf("err %v", err)
	}
	r.Include = func(context.Context, string) (string, bool, error) {
		return "", false, errors.New("outside the workspace")
	}
	c.Body = "see @../secret"
	if _, err := Expand(context.Background(), c, "", r); err == nil || !strings.Contains(err.Error(), "@../secret: outside the workspace") {
		t.Fatalf("err %v", err)
	}
}

// TestCommandNames: a command is called by its file name, its folder a
// label and its path form an alias; two files of one name both keep
// only their path form, with a warning naming both; a top-level file
// keeps its name; a file that fails to load is a problem carrying the
// name it would have had.
func TestCommandNames(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		want  map[string]string // name typed → file that answers ("" none)
		warn  []string          // words of the warning, nil: none
	}{
		{name: "file name, folder form still works", files: []string{"tools/smart-debug.md"},
			want: map[string]string{"smart-debug": "tools/smart-debug.md", "/tools:smart-debug": "tools/smart-debug.md"}},
		{name: "deep folders", files: []string{"a/b/c.md"}, want: map[string]string{"c": "a/b/c.md", "a:b:c": "a/b/c.md", "b:c": ""}},
		{name: "two of one name in folders", files: []string{"frontend/test.md", "backend/test.md"},
			want: map[string]string{"test": "", "frontend:test": "frontend/test.md", "backend:test": "backend/test.md"},
			warn: []string{"2 commands are called test", "/frontend:test", "/backend:test"}},
		{name: "a top-level file keeps its name", files: []string{"test.md", "frontend/test.md"},
			want: map[string]string{"test": "test.md", "frontend:test": "frontend/test.md"},
			warn: []string{"/test (", "/frontend:test ("}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range c.files {
				write(t, filepath.Join(dir, f), "Do it: $ARGUMENTS\n")
			}
			cmds, errs := Discover([]Dir{{Path: dir, Scope: ScopeProject}})
			for typed, file := range c.want {
				got, ok := Find(cmds, typed)
				if file == "" {
					if ok {
						t.Errorf("%s answers (%s), want none", typed, got.Path)
					}
					continue
				}
				if !ok || got.Path != filepath.Join(dir, file) {
					t.Errorf("%s: got %q (found %v), want %s", typed, got.Path, ok, file)
				}
			}
			if c.warn == nil {
				if len(errs) > 0 {
					t.Fatalf("problems %v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("problems %v, want one", errs)
			}
			for _, w := range c.warn {
				if !strings.Contains(errs[0].Error(), w) {
					t.Errorf("warning %q lacks %q", errs[0], w)
				}
			}
		})
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tools", "smart-debug.md"), "x")
	sd, _ := Find(mustDiscover(t, dir), "smart-debug")
	if sd.Folder != "tools" {
		t.Fatalf("folder label %q", sd.Folder)
	}
}

func mustDiscover(t *testing.T, dir string) []Command {
	cmds, errs := Discover([]Dir{{Path: dir, Scope: ScopeUser}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return cmds
}

// TestLoadProblems: a file that cannot be loaded is one problem naming
// the file and the command's name, and FailedToLoad finds it by either
// name; an unknown key is a warning with its line, and the command loads.
func TestLoadProblems(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tools", "big.md"), strings.Repeat("x", maxFileBytes+1))
	write(t, filepath.Join(dir, "ok.md"), "---\ndescription: fine\ncolour: blue\n---\nbody")
	cmds, errs := Discover([]Dir{{Path: dir, Scope: ScopeUser}})
	if len(cmds) != 1 || cmds[0].Name != "ok" {
		t.Fatalf("commands %+v", cmds)
	}
	var skipped, warned *frontmatter.Problem
	for _, e := range errs {
		var p *frontmatter.Problem
		if !errors.As(e, &p) {
			t.Fatalf("%v is not a Problem", e)
		}
		if p.Skipped {
			skipped = p
		} else {
			warned = p
		}
	}
	if skipped == nil || !strings.Contains(skipped.Error(), filepath.Join(dir, "tools", "big.md")+": ") || !strings.Contains(skipped.Error(), "skipped") {
		t.Fatalf("skipped %v", skipped)
	}
	if warned == nil || warned.Line != 3 || !strings.Contains(warned.Error(), `ok.md:3: unknown front matter key "colour"`) {
		t.Fatalf("warning %v", warned)
	}
	for _, name := range []string{"/big", "big", "/tools:big"} {
		if _, ok := FailedToLoad(errs, name); !ok {
			t.Errorf("FailedToLoad(%q) finds nothing", name)
		}
	}
	if _, ok := FailedToLoad(errs, "ok"); ok {
		t.Error("a command that loaded did not fail")
	}
}
