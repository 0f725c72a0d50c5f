package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/mcp/mcptest"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// An MCP server's form request (elicitation) during a tool call shows as
// the TUI's form, titled with the server that asks (not "The model
// asks"); the choice made there reaches the server, and its result the
// model.
func TestMCPElicitationFormNamesTheServer(t *testing.T) {
	url := mcptest.ElicitServer(t)
	script := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__deployer__deploy", Args: `{}`}}}, llmtest.Turn{Text: "deployed"})
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "")+mcptest.ElicitConfig(url))
	ctx, cancel := context.WithCancel(context.Background())
	svc, err := app.Start(ctx, app.StartOptions{Options: app.Options{Workspace: home.WS, Flags: map[string]string{}, Getenv: home.Getenv}})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	q := newQueue()
	t.Cleanup(q.close)
	ap := approver{q: q}
	ctrl, err := commands.New(ctx, commands.Config{Service: svc, Session: sess, Approver: ap, Asker: ap, Chooser: ap})
	require.NoError(t, err)
	t.Cleanup(ctrl.Close)
	t.Cleanup(cancel) // first: a form left open (a failed check) must not hold the servers' close
	clock := &syncClock{t: time.Unix(1_000_000, 0)}
	tm := teatest.NewTestModel(t, newModel(ctx, Options{Version: "test", Now: clock.now}, ctrl, nil, q), teatest.WithInitialTermSize(100, 30))
	h := &harness{tm: tm, clock: clock}
	tm.Type("deploy it")
	tm.Send(enter())
	var screen string
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		screen += string(b)
		return strings.Contains(screen, "production") && strings.Contains(screen, "Where should it go?")
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	require.Contains(t, screen, "╭─ MCP server deployer asks", "the form's title names the server")
	require.NotContains(t, screen, "The model asks")
	h.answer(tea.KeyPressMsg{Code: tea.KeyDown})
	h.answer(enter().(tea.KeyPressMsg))
	h.waitFor(t, "deployed")
	require.NoError(t, tm.Quit())
	reqs := script.Requests()
	require.Len(t, reqs, 2)
	require.Contains(t, string(reqs[1]), `accept {\"env\":\"production\"}`)
}
