package slashcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
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
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "bad.md") {
		t.Fatalf("errors %v, want one naming bad.md", errs)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"frontend:test", "mine", "review"}) {
		t.Fatalf("names %v", names)
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
	if got := Rules(c.AllowedTools); !reflect.DeepEqual(got, []string{"run_command(echo a,b)", "grep"}) {
		t.Fatalf("rules %q", got)
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
