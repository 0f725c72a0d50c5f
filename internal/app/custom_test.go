package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/slashcmd"
)

// TestCommandSources: commands of another source (an MCP server's
// prompts) expand through their Prompt, as they are; the folders' win on
// a name clash; a source's error is reported, not fatal.
func TestCommandSources(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	env, ws := sessionEnv(t, script)
	svc := startService(t, script, env, ws)
	p := filepath.Join(ws, ".aidex", "commands", "dup.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("from the folder\n"), 0o644))
	var gotArgs string
	svc.AddCommandSource(func(context.Context) ([]slashcmd.Command, error) {
		return []slashcmd.Command{
			{Name: "mcp__srv__review", Scope: slashcmd.ScopeOther, Path: "MCP server srv", AllowedTools: []string{"Bash"},
				Prompt: func(_ context.Context, args string) (string, error) {
					gotArgs = args
					return "MCP prompt !`touch x` @a.txt", nil
				}},
			{Name: "dup", Scope: slashcmd.ScopeOther, Prompt: func(context.Context, string) (string, error) { return "from the source", nil }},
		}, nil
	})
	svc.AddCommandSource(func(context.Context) ([]slashcmd.Command, error) { return nil, errors.New("server down") })
	cmds, errs := svc.CustomCommands(context.Background())
	require.Len(t, cmds, 2)
	require.Len(t, errs, 1)
	sess, err := svc.Pick(context.Background(), "", false)
	require.NoError(t, err)
	ls, err := svc.Session(context.Background(), sess, SessionOptions{})
	require.NoError(t, err)
	t.Cleanup(ls.Close)
	x, err := ls.Expand(context.Background(), "/mcp__srv__review  one two", nil)
	require.NoError(t, err)
	require.Equal(t, "MCP prompt !`touch x` @a.txt", x.Text, "a source's text is sent as it is")
	require.Equal(t, "one two", gotArgs)
	require.Empty(t, x.Rules, "a source's allowed-tools are not honoured")
	_, err = os.Stat(filepath.Join(ws, "x"))
	require.Error(t, err)
	x, err = ls.Expand(context.Background(), "/dup", nil)
	require.NoError(t, err)
	require.Equal(t, "from the folder", x.Text)
	x, err = ls.Expand(context.Background(), "/none", nil)
	require.NoError(t, err)
	require.Nil(t, x)
}

// An /mcp__SERVER__PROMPT no server lists is an error of Expand, the one
// place commands expand, so every front end (terminal, web chat, ACP,
// headless) says so instead of sending the line to the model (issue 34).
func TestExpandUnknownMCPPrompt(t *testing.T) {
	script := llmtest.NewScript(t)
	env, ws := sessionEnv(t, script)
	svc := startService(t, script, env, ws)
	sess, err := svc.Pick(context.Background(), "", false)
	require.NoError(t, err)
	ls, err := svc.Session(context.Background(), sess, SessionOptions{})
	require.NoError(t, err)
	t.Cleanup(ls.Close)
	x, err := ls.Expand(context.Background(), "/mcp__x__y some args", nil)
	require.Nil(t, x)
	require.ErrorContains(t, err, "no MCP servers are configured, so there is no /mcp__x__y")
	x, err = ls.Expand(context.Background(), "/mcpish", nil)
	require.NoError(t, err)
	require.Nil(t, x)
}
