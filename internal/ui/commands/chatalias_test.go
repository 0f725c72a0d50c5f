package commands

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// iptic-memex's user commands map to aidex's slash commands; a line that
// only starts with a one-word command is a prompt.
func TestChatAlias(t *testing.T) {
	for line, want := range map[string]string{
		"load file notes.md":       "/load notes.md",
		"Load File  My Notes.md":   "/load My Notes.md",
		"load url https://x.test/": "/load https://x.test/",
		"save chat":                "/export",
		"save chat out.json":       "/export out.json",
		"set model groq/llama":     "/model groq/llama",
		"clear":                    "/clear",
		"clear chat":               "/clear",
		"quit":                     "/exit",
		"exit":                     "/exit",
		"reprint":                  "/reprint",
	} {
		got, ok := ChatAlias(line)
		require.True(t, ok, line)
		require.Equal(t, want, got, line)
	}
	for _, line := range []string{"clear the cache", "quit smoking?", "loading files is slow", "set up the model", "save", ""} {
		_, ok := ChatAlias(line)
		require.False(t, ok, line)
	}
	var c *Controller
	_, ok := c.alias("clear")
	require.False(t, ok, "a session outside aidex chat takes no aliases")
}

// /load URL fetches the page through web_fetch under the policy (its
// private-address guard first), and queues it for the next message.
func TestLoadURL(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("the page text"))
	}))
	defer page.Close()
	f := newFixture(t, "", llmtest.Turn{Text: "ok"})
	_, _, err := f.exec(t, "/load "+page.URL+"/doc.txt")
	require.ErrorContains(t, err, "web_fetch_allow_private")

	f = newFixture(t, "web_fetch_allow_private = true\n", llmtest.Turn{Text: "ok"})
	out, _ := f.mustExec(t, "/load "+page.URL+"/doc.txt")
	require.Contains(t, out, "it goes to the model with your next message")
	_, err = f.c.RunWith(context.Background(), []llm.Part{{Type: llm.PartText, Text: "summarise"}}, nil, func(agent.Event) {})
	require.NoError(t, err)
	reqs := f.script.Requests()
	require.Contains(t, string(reqs[len(reqs)-1]), "the page text")
}

// /save-code (iptic-memex's save_code, "save code" in aidex chat) writes
// the last answer's code blocks to files through write_file: the fence's
// file name or the names given in order; never outside the workspace or
// into a protected path.
func TestSaveCode(t *testing.T) {
	answer := "Here:\n\n```go main.go\npackage main\n```\n\nand\n\n~~~\necho hi\n~~~\n"
	f := newFixture(t, "", llmtest.Turn{Text: answer})
	_, err := f.c.RunWith(context.Background(), []llm.Part{{Type: llm.PartText, Text: "write it"}}, nil, func(agent.Event) {})
	require.NoError(t, err)

	_, _, err = f.exec(t, "/save-code")
	require.ErrorContains(t, err, "code block 2 (of 2) names no file")
	_, _, err = f.exec(t, "/save-code ../out.go run.sh")
	require.Error(t, err, "outside the workspace")
	_, _, err = f.exec(t, "/save-code .git/hooks/pre-commit run.sh")
	require.ErrorContains(t, err, "protected path")

	out, _ := f.mustExec(t, "/save-code main.go run.sh")
	require.Contains(t, out, "saved main.go (1 lines)")
	data, err := os.ReadFile(filepath.Join(f.ws, "run.sh"))
	require.NoError(t, err)
	require.Equal(t, "echo hi\n", string(data))

	got, ok := ChatAlias("save code x.go")
	require.True(t, ok)
	require.Equal(t, "/save-code x.go", got)
}

// /save-code over existing files takes a checkpoint first, as a turn
// does: /undo puts back what it overwrote and removes what it created,
// and the checkpoint list names the command.
func TestSaveCodeOverwriteUndo(t *testing.T) {
	f := saveCodeOverwrite(t)
	cps, err := f.c.live.Checkpoints(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, cps)
	require.Equal(t, "/save-code", cps[len(cps)-1].Prompt)
	undoSaveCode(t, f)
}

// Without git, /save-code keeps each file's earlier version in the
// session, as the file tools do, and /undo restores them from there.
func TestSaveCodeOverwriteUndoNoGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	f := saveCodeOverwrite(t)
	cps, err := f.c.live.Checkpoints(context.Background())
	require.NoError(t, err)
	require.Empty(t, cps)
	undoSaveCode(t, f)
}

// saveCodeOverwrite runs /save-code of an answer that replaces main.go
// and creates run.sh.
func saveCodeOverwrite(t *testing.T) *fixture {
	t.Helper()
	answer := "New version:\n\n```go main.go\npackage main // new\n```\n\n```sh run.sh\necho new\n```\n"
	f := newFixture(t, "", llmtest.Turn{Text: answer})
	main := filepath.Join(f.ws, "main.go")
	require.NoError(t, os.WriteFile(main, []byte("package main // old\n"), 0o644))
	_, err := f.c.RunWith(context.Background(), []llm.Part{{Type: llm.PartText, Text: "rewrite it"}}, nil, func(agent.Event) {})
	require.NoError(t, err)

	out, _ := f.mustExec(t, "/save-code")
	require.Contains(t, out, "saved main.go (1 lines, replaced the old file)")
	require.Contains(t, out, "/undo")
	data, err := os.ReadFile(main)
	require.NoError(t, err)
	require.Equal(t, "package main // new\n", string(data))
	return f
}

// undoSaveCode checks that /undo puts main.go back and removes run.sh.
func undoSaveCode(t *testing.T, f *fixture) {
	t.Helper()
	main := filepath.Join(f.ws, "main.go")
	out, _ := f.mustExec(t, "/undo")
	require.Contains(t, out, "main.go")
	data, err := os.ReadFile(main)
	require.NoError(t, err)
	require.Equal(t, "package main // old\n", string(data))
	_, err = os.Stat(filepath.Join(f.ws, "run.sh"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
