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
// custom command with its argument hint and description, and running it
// sends the expanded text.
func TestE2ECustomCommandCompletionAndRun(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Reviewed it."})
	e := startSetup(t, script, func(_, ws string) {
		p := filepath.Join(ws, ".claude", "commands", "frontend", "review.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\ndescription: Review a frontend file\nargument-hint: <file>\n---\nPlease review $1 carefully.\n"), 0o644))
	}, "")
	e.waitFor("fake/scripted-a")
	e.keys("-l", "/fronte")
	e.waitFor("/frontend:review <file>", "Review a frontend file (project)")
	e.keys("-l", "nd:review app.tsx")
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
