package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// mcpRun starts a service whose config holds extra (MCP servers, rules) over a
// scripted model, runs one prompt headless and returns the model's requests,
// the run's events and the start-up reports (not the progress of a
// start-up that takes over 2 s, which depends on the machine's load).
// visionModel, first in mcpRun's extra, marks the fake provider's model
// as one that sees images.
const visionModel = "vision_models = [\"m1\"]\n"

func mcpRun(t *testing.T, extra string, turns ...llmtest.Turn) ([]map[string]any, []agent.Event, []string) {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	vision := ""
	if rest, ok := strings.CutPrefix(extra, visionModel); ok {
		vision, extra = visionModel, rest
	}
	top, tables := extra, ""
	if i := strings.Index(extra, "\n["); i >= 0 {
		top, tables = extra[:i], extra[i:]
	}
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n"+top)+vision+tables)
	var mu sync.Mutex
	var reports []string
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv},
		Report: func(r Report) {
			if !r.Progress {
				mu.Lock()
				reports = append(reports, r.Text)
				mu.Unlock()
			}
		}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	var events []agent.Event
	_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(e agent.Event) { events = append(events, e) })
	require.NoError(t, err)
	var reqs []map[string]any
	for _, raw := range script.Requests() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		reqs = append(reqs, m)
	}
	return reqs, events, reports
}

func everythingStdio(t *testing.T, name string) string {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	return fmt.Sprintf("\n[mcp_servers.%s]\ncommand = %q\nargs = [\"stdio\"]\nstartup_timeout_sec = 60\n", name, bin)
}

// toolNames are the names of the tools a request offers (OpenAI shape).
func toolNames(req map[string]any) []string {
	var out []string
	list, _ := req["tools"].([]any)
	for _, t := range list {
		f, _ := t.(map[string]any)["function"].(map[string]any)
		out = append(out, fmt.Sprint(f["name"]))
	}
	return out
}

// toolOutputs are the contents of the tool messages of a request.
func toolOutputs(req map[string]any) []string {
	var out []string
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] == "tool" {
			out = append(out, fmt.Sprint(mm["content"]))
		}
	}
	return out
}

func results(events []agent.Event) []agent.ToolResultInfo {
	var out []agent.ToolResultInfo
	for _, e := range events {
		if e.Type == agent.EventToolResult {
			out = append(out, *e.ToolResult)
		}
	}
	return out
}

const allowEverything = "\n[permissions]\nallow = [\"mcp__everything__*\"]\n"

func TestMCPStdioToolsReachTheModel(t *testing.T) {
	reqs, events, _ := mcpRun(t, allowEverything+everythingStdio(t, "everything"),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__echo", Args: `{"message":"hello mcp"}`},
			{Name: "mcp__everything__get-sum", Args: `{"a":19,"b":23}`}}},
		llmtest.Turn{Text: "done"})
	require.Contains(t, toolNames(reqs[0]), "mcp__everything__echo")
	require.Contains(t, toolNames(reqs[0]), "mcp__everything__get-sum")
	out := toolOutputs(reqs[1])
	require.Equal(t, []string{"Echo: hello mcp", "The sum of 19 and 23 is 42."}, out)
	for _, r := range results(events) {
		require.True(t, r.OK, r.Error)
	}
}

func TestMCPStreamableHTTPToolsReachTheModel(t *testing.T) {
	url := everythingHTTP(t)
	reqs, _, _ := mcpRun(t, allowEverything+fmt.Sprintf("\n[mcp_servers.everything]\nurl = %q\n", url),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__echo", Args: `{"message":"via http"}`},
			{Name: "mcp__everything__get-sum", Args: `{"a":1,"b":2}`}}},
		llmtest.Turn{Text: "done"})
	require.Equal(t, []string{"Echo: via http", "The sum of 1 and 2 is 3."}, toolOutputs(reqs[1]))
}

// everythingHTTP starts the reference server in streamableHttp mode on a free
// port and returns its endpoint once it accepts connections.
func everythingHTTP(t *testing.T) string {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return "http://" + addr + "/mcp"
		}
		require.True(t, time.Now().Before(deadline), "the everything server did not listen on %s", addr)
	}
}

// A call the policy refuses never reaches the server: the server counts calls.
func TestMCPDeniedToolNeverReachesTheServer(t *testing.T) {
	var calls atomic.Int32
	srv := sdk.NewServer(&sdk.Implementation{Name: "counter", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "launch", Description: "launches"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		calls.Add(1)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "launched"}}}, nil, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	for _, rules := range []string{
		"", // default: ask, and no one can be asked
		"\n[permissions]\ndeny = [\"mcp__counter__launch\"]\nallow = [\"mcp__counter__*\"]\n", // deny beats allow
	} {
		_, events, _ := mcpRun(t, rules+fmt.Sprintf("\n[mcp_servers.counter]\nurl = %q\n", hs.URL),
			llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__counter__launch", Args: `{}`}}}, llmtest.Turn{Text: "done"})
		r := results(events)
		require.Len(t, r, 1)
		require.False(t, r[0].OK)
		require.Equal(t, "permission", r[0].Category)
		require.NotNil(t, r[0].Denial)
	}
	require.Zero(t, calls.Load(), "a denied call reached the server")
	// With an allow rule it runs: the counter works.
	_, events, _ := mcpRun(t, "\n[permissions]\nallow = [\"mcp__counter__*\"]\n"+fmt.Sprintf("\n[mcp_servers.counter]\nurl = %q\n", hs.URL),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__counter__launch", Args: `{}`}}}, llmtest.Turn{Text: "done"})
	require.True(t, results(events)[0].OK)
	require.Equal(t, int32(1), calls.Load())
}

func TestMCPServerFailingAtStartDoesNotStopTheSession(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.sh")
	require.NoError(t, os.WriteFile(bad, []byte("#!/bin/sh\necho 'missing API_TOKEN' >&2\nexit 1\n"), 0o755))
	reqs, events, reports := mcpRun(t, allowEverything+everythingStdio(t, "everything")+fmt.Sprintf("\n[mcp_servers.broken]\ncommand = %q\n", bad),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__echo", Args: `{"message":"still here"}`}}},
		llmtest.Turn{Text: "done"})
	require.Len(t, reports, 1, "%q", reports)
	var notices []agent.Event
	for _, e := range events {
		if e.Type == agent.EventNotice {
			notices = append(notices, e)
		}
	}
	require.Len(t, notices, 1, "%+v", notices)
	require.Equal(t, agent.NoticeMCP, notices[0].Notice.Kind)
	require.Contains(t, notices[0].Text, "MCP server broken failed to start")
	require.Contains(t, notices[0].Text, "missing API_TOKEN")
	require.Equal(t, agent.EventSession, events[0].Type, "the session event comes first")
	require.Equal(t, []string{"Echo: still here"}, toolOutputs(reqs[1]))
	require.True(t, results(events)[0].OK)
}

func TestMCPImageReachesTheModelAsAnImagePart(t *testing.T) {
	reqs, _, _ := mcpRun(t, visionModel+allowEverything+everythingStdio(t, "everything"),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__get-tiny-image", Args: `{}`}}},
		llmtest.Turn{Text: "done"})
	raw, err := json.Marshal(reqs[1]["messages"])
	require.NoError(t, err)
	require.Contains(t, string(raw), `"type":"image_url"`)
	require.Contains(t, string(raw), "data:image/png;base64,")
}

func TestMCPToolSearchDefersDefinitions(t *testing.T) {
	reqs, events, _ := mcpRun(t, "context_window = 100000\nmcp_tool_budget = 0.001\n"+allowEverything+everythingStdio(t, "everything"),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "tool_search", Args: `{"query":"echo"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__echo", Args: `{"message":"found"}`}}},
		llmtest.Turn{Text: "done"})
	first := toolNames(reqs[0])
	require.Contains(t, first, "tool_search")
	for _, n := range first {
		require.False(t, strings.HasPrefix(n, "mcp__"), "the first request offers %s", n)
	}
	require.Contains(t, toolNames(reqs[1]), "mcp__everything__echo")
	require.Contains(t, toolOutputs(reqs[1])[0], "mcp__everything__echo")
	require.Equal(t, "Echo: found", toolOutputs(reqs[2])[1])
	for _, r := range results(events) {
		require.True(t, r.OK, r.Error)
	}
}

func TestMCPNotDeferredWithinBudget(t *testing.T) {
	reqs, _, _ := mcpRun(t, "context_window = 1000000\n"+everythingStdio(t, "everything"), llmtest.Turn{Text: "done"})
	require.NotContains(t, toolNames(reqs[0]), "tool_search")
	require.Contains(t, toolNames(reqs[0]), "mcp__everything__echo")
}

// A server's progress notifications reach the run as progress events,
// between the call and its result.
func TestMCPProgressEvents(t *testing.T) {
	_, events, _ := mcpRun(t, allowEverything+everythingStdio(t, "everything"),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__trigger-long-running-operation", Args: `{"duration":1,"steps":2}`}}},
		llmtest.Turn{Text: "done"})
	var order []agent.EventType
	var progress []*agent.ProgressInfo
	for _, e := range events {
		switch e.Type {
		case agent.EventToolCall, agent.EventToolResult:
			order = append(order, e.Type)
		case agent.EventProgress:
			order = append(order, e.Type)
			progress = append(progress, e.Progress)
		}
	}
	require.NotEmpty(t, progress, "no progress events: %v", order)
	require.Equal(t, "mcp__everything__trigger-long-running-operation", progress[0].Tool)
	require.Equal(t, float64(2), progress[0].Total)
	require.Equal(t, agent.EventToolCall, order[0])
	require.Equal(t, agent.EventToolResult, order[len(order)-1])
}

// A Ralph task's engine offers the service's MCP tools, and the call
// reaches the server, as in a session.
func TestMCPToolsInRalphTasks(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__echo", Args: `{"message":"from ralph"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{complete("done", "echoed")}},
		llmtest.Turn{Text: "Done."})
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n")+allowEverything+everythingStdio(t, "everything"))
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	r := svc.Ralph(false)
	ctx := context.Background()
	_, err = r.Add(ctx, ralph.Task{Title: "Echo through MCP"})
	require.NoError(t, err)
	sum, err := r.Run(ctx, ralph.RunOptions{}, func(ralph.Event) {})
	require.NoError(t, err)
	require.Equal(t, 1, sum.Done, "%+v", sum)
	var first map[string]any
	require.NoError(t, json.Unmarshal(script.Requests()[0], &first))
	require.Contains(t, toolNames(first), "mcp__everything__echo")
	var second map[string]any
	require.NoError(t, json.Unmarshal(script.Requests()[1], &second))
	require.Equal(t, []string{"Echo: from ralph"}, toolOutputs(second))
}

// A general subagent has the parent's tools, its MCP tools included.
func TestMCPToolsInSubagents(t *testing.T) {
	reqs, _, _ := mcpRun(t, allowEverything+everythingStdio(t, "everything"),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: `{"description":"echo","prompt":"Echo hi with the MCP tool.","subagent_type":"general"}`}}},
		llmtest.Turn{Text: "child done"},
		llmtest.Turn{Text: "done"})
	require.Len(t, reqs, 3)
	require.Contains(t, toolNames(reqs[0]), "mcp__everything__echo")
	require.Contains(t, toolNames(reqs[1]), "mcp__everything__echo", "the child's request")
}

// The client introduces itself with aidex's version (Options.Version).
func TestMCPClientInfoCarriesAidexVersion(t *testing.T) {
	got := make(chan *sdk.Implementation, 1)
	srv := sdk.NewServer(&sdk.Implementation{Name: "who", Version: "1"}, &sdk.ServerOptions{
		InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
			select {
			case got <- req.Session.InitializeParams().ClientInfo:
			default:
			}
		}})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	home := apptest.NewHome(t, apptest.FakeProvider("http://127.0.0.1:1", []string{"m1"}, "")+fmt.Sprintf("\n[mcp_servers.who]\nurl = %q\n", hs.URL))
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv, Version: "v9.8.7"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	require.NotNil(t, svc.MCP(context.Background()))
	select {
	case ci := <-got:
		require.Equal(t, "aidex", ci.Name)
		require.Equal(t, "v9.8.7", ci.Version)
	case <-time.After(10 * time.Second):
		t.Fatal("the server was never initialised")
	}
}

// A server configured with Codex's required = true that fails to start
// stops every run of the session with an error naming it, its config line
// and the cause, before the model is asked; without required the same
// failure is a notice and the run goes on.
func TestMCPRequiredServerFailingStopsTheRun(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.sh")
	require.NoError(t, os.WriteFile(bad, []byte("#!/bin/sh\necho 'missing API_TOKEN' >&2\nexit 1\n"), 0o755))
	script := llmtest.NewScript(t, llmtest.Turn{Text: "done"})
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n")+
		fmt.Sprintf("\n[mcp_servers.broken]\ncommand = %q\nrequired = true\n", bad))
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	for range 2 {
		_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(agent.Event) {})
		require.Error(t, err)
		require.Contains(t, err.Error(), "MCP server broken is required")
		require.Contains(t, err.Error(), "config.toml:")
		require.Contains(t, err.Error(), "missing API_TOKEN")
		require.Contains(t, err.Error(), "required = false")
	}
	require.Empty(t, script.Requests(), "the model is not asked")
}
