package slashcmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// TestClaudeRealCommands loads every command file of
// ../shared/claude-real/commands (Anthropic's plugin commands and
// others', unchanged, tools/ included) from a project's .claude/commands
// as Claude Code does: each is listed under its file name (the folder is
// a label), its front matter read, and it expands with arguments.
func TestClaudeRealCommands(t *testing.T) {
	src := sharedtest.Require(t, "claude-real/commands", "real Claude Code commands")
	ws := t.TempDir()
	dst := filepath.Join(ws, ".claude", "commands")
	files := sharedtest.CopyTree(t, src, dst)
	cmds, errs := Discover(Dirs(ws, "", ""))
	require.Empty(t, errs)
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			name := strings.TrimSuffix(filepath.Base(rel), ".md")
			c, ok := Find(cmds, "/"+name)
			require.True(t, ok, "/%s is not listed", name)
			require.Equal(t, filepath.Join(dst, rel), c.Path)
			require.NotEmpty(t, c.Description)
			text, err := Expand(context.Background(), c, "arg1 arg2", Resolver{
				Run:     func(context.Context, string) (string, error) { return "OUTPUT", nil },
				Include: func(context.Context, string) (string, bool, error) { return "", false, nil }})
			require.NoError(t, err)
			require.Contains(t, text, "arg1", "the arguments reach the prompt")
		})
	}
	b, _ := Find(cmds, "build")
	require.Equal(t, "[path-to-plan]", b.ArgumentHint)
	r, _ := Find(cmds, "review-pr")
	require.Equal(t, "[review-aspects]", r.ArgumentHint)
	require.Equal(t, []string{"Bash", "Glob", "Grep", "Read", "Task"}, r.AllowedTools)
	sd, _ := Find(cmds, "tools:smart-debug")
	require.Equal(t, filepath.Join(dst, "tools", "smart-debug.md"), sd.Path, "/tools:smart-debug still works")
}
