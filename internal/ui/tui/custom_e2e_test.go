package tui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestE2ECustomCommandCompletionAndRun: the completion menu lists a
// custom command of a subfolder by its file name, with its argument
// hint, description and folder, and running it sends the expanded text.
func TestE2ECustomCommandCompletionAndRun(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Reviewed it."})
	e := startSetup(t, script, func(_, ws string) {
		p := filepath.Join(ws, ".claude", "commands", "frontend", "review.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\ndescription: Review a frontend file\nargument-hint: <file>\n---\nPlease review $1 carefully.\n"), 0o644))
	}, "")
	e.waitFor("fake/scripted-a")
	e.keys("-l", "/revi")
	e.waitFor("/review <file>", "Review a frontend file (project:frontend)")
	e.keys("-l", "ew app.tsx")
	e.poll("typed", func() bool { return e.linesEndingWith("app.tsx") > 0 })
	e.keys("Enter")
	e.waitFor("Reviewed it.")
	reqs := script.Requests()
	require.NotEmpty(t, reqs)
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(reqs[0], &body))
	found := false
	for _, m := range body.Messages {
		if m.Role == "user" && strings.Contains(string(m.Content), "Please review app.tsx carefully.") {
			found = true
		}
	}
	require.True(t, found, "the model got %s", reqs[0])
}

// TestE2ECustomCommandLineMode: the line mode runs a user's custom
// command (from ~/.claude/commands) and lists skills with /skills.
func TestE2ECustomCommandLineMode(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Line mode done."})
	e := startSetup(t, script, func(home, _ string) {
		p := filepath.Join(home, ".claude", "commands", "hello.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("Greet $ARGUMENTS warmly.\n"), 0o644))
		s := filepath.Join(home, ".claude", "skills", "pdf", "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(s), 0o755))
		require.NoError(t, os.WriteFile(s, []byte("---\ndescription: Fill PDF forms\n---\nbody\n"), 0o644))
	}, "%s | cat")
	e.waitFor("/help for commands")
	e.typeLine("/skills")
	e.waitFor("Fill PDF forms")
	e.typeLine("/hello line mode")
	e.waitFor("Line mode done.")
	reqs := script.Requests()
	require.NotEmpty(t, reqs)
	require.Contains(t, string(reqs[0]), "Greet line mode warmly.")
	e.typeLine("/exit")
	e.waitFor("EXIT=0")
}
