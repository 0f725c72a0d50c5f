package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sandbox"
)

// TestMain fails the package's tests when a goroutine outlives them; the
// test binary also serves as the sandbox helper.
func TestMain(m *testing.M) {
	apptest.SandboxHelper()
	goleak.VerifyTestMain(m)
}

// fixture is a server over a scripted model, in a fresh home and
// workspace.
type fixture struct {
	home   *apptest.Home
	srv    *Server
	script *llmtest.Script
}

func newFixture(t *testing.T, mode string, turns ...llmtest.Turn) *fixture {
	t.Helper()
	return newFixtureWith(t, mode, nil, turns...)
}

// newFixtureWith is newFixture with config keys set as flags (a deny rule).
func newFixtureWith(t *testing.T, mode string, flags map[string]string, turns ...llmtest.Turn) *fixture {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1", "m2"}, "max_retries = 0"))
	srv, err := New(context.Background(), Options{Mode: mode, Version: "test", Start: app.StartOptions{Options: app.Options{
		Workspace: home.WS, Getenv: home.Getenv, Flags: flags, SandboxProbe: func() sandbox.Caps { return sandbox.Caps{} }}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return &fixture{home: home, srv: srv, script: script}
}

// connect connects an in-memory client with opts to the fixture's server.
func (f *fixture) connect(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return res, b.String()
}

// The profile's tools are listed with annotations from their kind, and
// aidex_run besides.
func TestToolsCarryAnnotationsOfTheirKind(t *testing.T) {
	f := newFixture(t, "")
	cs := f.connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range []string{"read_file", "write_file", "run_command", "web_fetch", RunToolName} {
		require.Contains(t, byName, name)
	}
	read, write, cmd, fetch := byName["read_file"].Annotations, byName["write_file"].Annotations, byName["run_command"].Annotations, byName["web_fetch"].Annotations
	require.True(t, read.ReadOnlyHint)
	require.False(t, *read.DestructiveHint)
	require.False(t, *read.OpenWorldHint)
	require.False(t, write.ReadOnlyHint)
	require.True(t, *write.DestructiveHint)
	require.False(t, *write.OpenWorldHint)
	require.False(t, cmd.ReadOnlyHint)
	require.True(t, *cmd.DestructiveHint)
	require.True(t, *cmd.OpenWorldHint)
	require.True(t, fetch.ReadOnlyHint)
	require.True(t, *fetch.OpenWorldHint)
	require.NotContains(t, byName, "generate_image", "only the standard profile's tools")
}

// A workspace file is read; a path outside the workspace is refused
// naming the boundary, and nothing outside is read.
func TestReadFileConfinedToTheWorkspace(t *testing.T) {
	f := newFixture(t, "")
	require.NoError(t, os.WriteFile(filepath.Join(f.home.WS, "hello.txt"), []byte("hello from the workspace\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(f.home.Root, "outside"), []byte("SECRET-OUTSIDE"), 0o600))
	cs := f.connect(t, nil)
	res, text := call(t, cs, "read_file", map[string]any{"path": "hello.txt"})
	require.False(t, res.IsError, text)
	require.Contains(t, text, "hello from the workspace")
	res, text = call(t, cs, "read_file", map[string]any{"path": "../outside"})
	require.True(t, res.IsError)
	require.Contains(t, text, "workspace")
	require.NotContains(t, text, "SECRET-OUTSIDE")
}

// A change the policy asks about goes to the client as an elicitation:
// accept runs it once, decline refuses it and nothing is written.
func TestElicitationDecidesAskedCalls(t *testing.T) {
	for _, tc := range []struct {
		action string
		wrote  bool
	}{{"accept", true}, {"decline", false}, {"cancel", false}} {
		t.Run(tc.action, func(t *testing.T) {
			f := newFixture(t, "ask")
			var mu sync.Mutex
			var asked []string
			cs := f.connect(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, req.Params.Message)
				mu.Unlock()
				return &mcp.ElicitResult{Action: tc.action}, nil
			}})
			res, text := call(t, cs, "write_file", map[string]any{"path": "new.txt", "content": "written\n"})
			_, err := os.Stat(filepath.Join(f.home.WS, "new.txt"))
			require.Len(t, asked, 1)
			require.Contains(t, asked[0], "write_file")
			require.Contains(t, asked[0], "new.txt")
			if tc.wrote {
				require.False(t, res.IsError, text)
				require.NoError(t, err)
				return
			}
			require.True(t, res.IsError)
			require.Contains(t, text, "declined")
			require.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}

// Without the elicitation capability a call that would ask is refused,
// naming the allow rule that lets it run.
func TestNoElicitationRefusesWithTheRuleToAdd(t *testing.T) {
	f := newFixture(t, "ask")
	cs := f.connect(t, nil)
	res, text := call(t, cs, "write_file", map[string]any{"path": "new.txt", "content": "x"})
	require.True(t, res.IsError)
	require.Contains(t, text, "elicitation")
	require.Contains(t, text, `add the allow rule "write_file(new.txt)"`)
	_, err := os.Stat(filepath.Join(f.home.WS, "new.txt"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// aidex_run runs a whole session against the scripted model, returns the
// final answer and the session id, and reports progress.
func TestAidexRunReturnsTheAnswerWithProgress(t *testing.T) {
	f := newFixture(t, "ask",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}},
		llmtest.Turn{Text: "The notes say: remember the milk."})
	require.NoError(t, os.WriteFile(filepath.Join(f.home.WS, "notes.txt"), []byte("remember the milk\n"), 0o600))
	var mu sync.Mutex
	var progress []string
	cs := f.connect(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params.Message)
		mu.Unlock()
	}})
	params := &mcp.CallToolParams{Name: RunToolName, Arguments: map[string]any{"prompt": "what do the notes say?"}}
	params.SetProgressToken("run-1")
	res, err := cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Content)
	text := res.Content[0].(*mcp.TextContent).Text
	require.Contains(t, text, "The notes say: remember the milk.")
	sc, ok := res.StructuredContent.(map[string]any)
	require.True(t, ok, "structured content %T", res.StructuredContent)
	require.Equal(t, "The notes say: remember the milk.", sc["answer"])
	require.NotEmpty(t, sc["session_id"])
	require.Contains(t, text, sc["session_id"].(string))
	require.Equal(t, "done", sc["stop_reason"])
	// The client handles notifications concurrently with the result: the
	// last one may land just after CallTool returns.
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(progress)
	}
	require.Eventually(t, func() bool { return slices.Contains(seen(), "done: done") }, 5*time.Second, 5*time.Millisecond, "progress %v", seen())
	require.Contains(t, seen(), "tool call: read_file")
	require.Contains(t, seen(), "tool result: read_file ok")
	require.Contains(t, seen(), "done: done")
}

// A run may not ask for a mode wider than the server's; a narrower one
// is accepted.
func TestAidexRunRefusesAWiderMode(t *testing.T) {
	f := newFixture(t, "ask", llmtest.Turn{Text: "planned"})
	cs := f.connect(t, nil)
	res, text := call(t, cs, RunToolName, map[string]any{"prompt": "go", "permission_mode": "yolo"})
	require.True(t, res.IsError)
	require.Contains(t, text, `permission_mode "yolo" is wider than this server's "ask"`)
	res, text = call(t, cs, RunToolName, map[string]any{"prompt": "go", "permission_mode": "auto-edit"})
	require.True(t, res.IsError)
	require.Contains(t, text, "wider")
	res, text = call(t, cs, RunToolName, map[string]any{"prompt": "go", "permission_mode": "nonsense"})
	require.True(t, res.IsError)
	require.Contains(t, text, "permission_mode")
	require.Empty(t, f.script.Requests(), "no refused run reached the model")
	res, text = call(t, cs, RunToolName, map[string]any{"prompt": "go", "permission_mode": "plan"})
	require.False(t, res.IsError, text)
	require.Contains(t, text, "planned")
}

func TestAnnotationsOfEveryKind(t *testing.T) {
	a := Annotations("other")
	require.False(t, a.ReadOnlyHint)
	require.True(t, *a.DestructiveHint)
	require.False(t, *a.OpenWorldHint)
}

// A deny rule refuses the call even when the client would approve it; the
// client is not asked.
func TestDenyRuleBeatsElicitation(t *testing.T) {
	f := newFixtureWith(t, "yolo", map[string]string{"permissions.deny": `["write_file(secret/**)"]`})
	asked := 0
	cs := f.connect(t, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	res, text := call(t, cs, "write_file", map[string]any{"path": "secret/key.txt", "content": "x"})
	require.True(t, res.IsError)
	require.Contains(t, text, "write_file(secret/**)")
	require.Zero(t, asked)
	_, err := os.Stat(filepath.Join(f.home.WS, "secret", "key.txt"))
	require.ErrorIs(t, err, os.ErrNotExist)
	res, text = call(t, cs, "write_file", map[string]any{"path": "open.txt", "content": "x"})
	require.False(t, res.IsError, text)
	require.Zero(t, asked, "yolo allows the write without asking")
}

// The approvals of an aidex_run go to the client as elicitations: an
// accepted write is made, and the run goes on to its answer.
func TestAidexRunAsksTheClient(t *testing.T) {
	f := newFixture(t, "ask",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"out.txt","content":"made by the run\n"}`}}},
		llmtest.Turn{Text: "Wrote out.txt."})
	var asked []string
	cs := f.connect(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	res, text := call(t, cs, RunToolName, map[string]any{"prompt": "write out.txt"})
	require.False(t, res.IsError, text)
	require.Contains(t, text, "Wrote out.txt.")
	require.Len(t, asked, 1)
	require.Contains(t, asked[0], "write_file")
	b, err := os.ReadFile(filepath.Join(f.home.WS, "out.txt"))
	require.NoError(t, err)
	require.Equal(t, "made by the run\n", string(b))
}

// A client's background process lives from one call to the next, and
// ends with the client's connection (issue 29): before, every call had
// a registry of its own, so run_background_process answered "Started
// bg1" and the next list_background_processes showed nothing.
func TestBackgroundProcessesLiveWithTheConnection(t *testing.T) {
	// The sandbox is another concern (its tests are in internal/sandbox).
	f := newFixtureWith(t, "yolo", map[string]string{"sandbox.mode": "off"})
	marker := filepath.Join(f.home.WS, "alive")
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	res, text := call(t, cs, "run_background_process", map[string]any{"command": "touch alive; sleep 60"})
	require.False(t, res.IsError, text)
	res, text = call(t, cs, "list_background_processes", map[string]any{})
	require.False(t, res.IsError, text)
	require.Contains(t, text, "sleep 60", "the process started by the previous call is listed")
	require.Eventually(t, func() bool { _, err := os.Stat(marker); return err == nil }, 10*time.Second, 20*time.Millisecond)
	// A second client has its own processes.
	other := f.connect(t, nil)
	_, text = call(t, other, "list_background_processes", map[string]any{})
	require.NotContains(t, text, "sleep 60")
	require.NoError(t, cs.Close())
	require.NoError(t, ss.Wait())
	require.Eventually(t, func() bool {
		f.srv.mu.Lock()
		defer f.srv.mu.Unlock()
		return f.srv.clients[ss] == nil
	}, 10*time.Second, 20*time.Millisecond, "the connection's tool session is closed")
}
