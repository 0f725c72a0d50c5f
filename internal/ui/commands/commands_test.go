package commands

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app"
)

func TestNearestAndComplete(t *testing.T) {
	tab := Default()
	require.Equal(t, "/model", tab.Nearest("/mdoel"))
	require.Equal(t, "/compact", tab.Nearest("/compac"))
	require.Equal(t, "/exit", tab.Nearest("/exti"))
	require.Equal(t, "", tab.Nearest("/zzzzzzzzzzzz"))
	var names []string
	for _, s := range tab.Complete("/mo") {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"/model", "/models", "/mode"}, names)
	_, err := tab.Exec(context.Background(), nil, "/mdoel x", &strings.Builder{})
	require.ErrorContains(t, err, "did you mean /model?")
	o, err := tab.Exec(context.Background(), nil, "/quit", &strings.Builder{})
	require.NoError(t, err)
	require.True(t, o.Quit)
	o, err = tab.Exec(context.Background(), nil, "/init", &strings.Builder{})
	require.NoError(t, err)
	require.Contains(t, o.Prompt, "AGENTS.md")
}

func TestBuildPromptAttachesWorkspaceFiles(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "bin"), []byte{0, 1, 2}, 0o644))
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
	p := BuildPrompt(ws, "look at @a.go, @bin and @"+outside+" and @missing")
	require.Equal(t, []string{"a.go"}, p.Attached)
	require.ElementsMatch(t, []string{"bin", outside, "missing"}, p.Skipped)
	require.Contains(t, p.Parts[0].Text, "<file path=\"a.go\">\npackage a\n</file>")
	require.NotContains(t, p.Parts[0].Text, "<file path=\""+outside, "files outside the workspace are not attached")
}

func FuzzBuildPrompt(f *testing.F) {
	ws := f.TempDir()
	_ = os.WriteFile(filepath.Join(ws, "x.txt"), []byte("x"), 0o644)
	for _, s := range []string{"@x.txt", "@../etc/passwd", "@@", "@/", "@x.txt @x.txt", "a @"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := BuildPrompt(ws, text)
		for _, a := range p.Attached {
			if a != "x.txt" && filepath.Clean(filepath.Join(ws, a)) != filepath.Join(ws, "x.txt") {
				t.Fatalf("attached %q outside the one workspace file", a)
			}
		}
		if !strings.HasPrefix(p.Parts[0].Text, text) {
			t.Fatal("the prompt text must come first")
		}
	})
}

func TestHistoryPersists(t *testing.T) {
	path := HistoryPath(t.TempDir(), "/some/ws")
	h := LoadHistory(path)
	require.Empty(t, h.Entries)
	h.Max = 3
	for _, e := range []string{"one", "two", "two", "multi\nline", "four"} {
		require.NoError(t, h.Add(e))
	}
	got := LoadHistory(path)
	require.Equal(t, []string{"two", "multi\nline", "four"}, got.Entries)
	require.NotEqual(t, HistoryPath("/s", "/a"), HistoryPath("/s", "/b"), "one file per workspace")
}

func TestRunShell(t *testing.T) {
	ws := t.TempDir()
	r := RunShell(context.Background(), &app.Runtime{Workspace: ws}, "echo hi; exit 3")
	require.Equal(t, "hi", r.Output)
	require.Equal(t, 3, r.ExitCode)
	require.Contains(t, r.ContextText(), "$ echo hi; exit 3")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = RunShell(ctx, &app.Runtime{Workspace: ws}, "sleep 5")
	require.Error(t, r.Err)
}

// The user's !command joins the conversation: credentials stay out of it.
func TestRunShellScrubsCredentials(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX sh")
	}
	t.Setenv("SOME_API_TOKEN", "shell-secret-token")
	t.Setenv("DATABASE_URL", "postgres://u:shell-db-secret@h/x")
	t.Setenv("VISIBLE_SETTING", "visible")
	r := RunShell(context.Background(), &app.Runtime{Workspace: t.TempDir()}, "env")
	require.Contains(t, r.Output, "VISIBLE_SETTING=visible")
	require.NotContains(t, r.Output, "shell-secret-token")
	require.NotContains(t, r.Output, "shell-db-secret")
}

func TestNextMode(t *testing.T) {
	require.Equal(t, "auto-edit", NextMode("ask"))
	require.Equal(t, "plan", NextMode("auto-edit"))
	require.Equal(t, "yolo", NextMode("plan"))
	require.Equal(t, "ask", NextMode("yolo"))
}
