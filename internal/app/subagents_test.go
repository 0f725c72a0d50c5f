package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/subagent"
)

// subFixture is a trusted workspace whose model is a routed script:
// requests are told apart by their first user message.
type subFixture struct {
	t      *testing.T
	home   *apptest.Home
	script *llmtest.Script
	svc    *Service
	mu     sync.Mutex
	events []agent.Event
}

func newSubFixture(t *testing.T, extra string, route func(req subRequest) llmtest.Turn) *subFixture {
	t.Helper()
	f := &subFixture{t: t, script: llmtest.NewScript(t)}
	f.script.Route = func(body []byte, n int) llmtest.Turn { return route(parseRequest(t, body)) }
	f.home = apptest.NewHome(t, apptest.FakeProvider(f.script.URL, []string{"m1"}, "max_retries = 0\n"+extra))
	return f
}

// start trusts the workspace (after the test wrote its files) and starts
// the service.
func (f *subFixture) start() {
	env := f.home.Env
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: f.home.WS, Getenv: func(k string) string { return env[k] }}})
	require.NoError(f.t, err)
	f.t.Cleanup(func() { _ = svc.Close() })
	require.NoError(f.t, svc.Runtime().Config.Paths.Trust(f.home.WS))
	_, err = svc.Reload(context.Background(), nil)
	require.NoError(f.t, err)
	require.NoError(f.t, svc.Runtime().ProjectContent().ApproveAll()) // as `aidex trust` does
	_, err = svc.Reload(context.Background(), nil)
	require.NoError(f.t, err)
	require.True(f.t, svc.Runtime().Config.ProjectTrusted)
	f.svc = svc
}

func (f *subFixture) writeFile(rel, text string) {
	path := filepath.Join(f.home.WS, rel)
	require.NoError(f.t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(f.t, os.WriteFile(path, []byte(text), 0o644))
}

// run runs prompt in a new session and returns its id and the run's error.
func (f *subFixture) run(ctx context.Context, o SessionOptions, prompt string) (string, error) {
	sess, err := f.svc.Pick(ctx, "", false)
	require.NoError(f.t, err)
	live, err := f.svc.Session(ctx, sess, o)
	require.NoError(f.t, err)
	defer live.Close()
	_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: prompt}}, func(ev agent.Event) {
		f.mu.Lock()
		f.events = append(f.events, ev)
		f.mu.Unlock()
	})
	return sess.ID, err
}

// childEvents returns the events of subagents of type typ (nil: of every
// subagent).
func (f *subFixture) childEvents(typ agent.EventType) []agent.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []agent.Event
	for _, ev := range f.events {
		if ev.ParentToolCallID != "" && ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// subRequest is what the tests read of a model request.
type subRequest struct {
	System    string
	FirstUser string
	Results   []string // the tool results, in order
	Tools     []string
	Raw       string
}

func parseRequest(t *testing.T, body []byte) subRequest {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Errorf("request: %v", err)
	}
	out := subRequest{Raw: string(body)}
	for _, m := range req.Messages {
		text := contentText(m.Content)
		switch {
		case m.Role == "system":
			out.System += text
		case m.Role == "user" && out.FirstUser == "":
			out.FirstUser = text
		case m.Role == "tool":
			out.Results = append(out.Results, text)
		}
	}
	for _, tl := range req.Tools {
		out.Tools = append(out.Tools, tl.Function.Name)
	}
	return out
}

// contentText reads an OpenAI content: a string or a list of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func taskCall(typ, desc, prompt string) llmtest.Call {
	b, _ := json.Marshal(map[string]string{"subagent_type": typ, "description": desc, "prompt": prompt})
	return llmtest.Call{Name: "task", Args: string(b)}
}

// A .claude/agents/reviewer.md subagent runs with its own system prompt
// and tools, and its answer (with a usage line) is the task call's
// result in the parent's next request; its session is stored with the
// parent's id, and its events carry the parent's task call id.
func TestSubagentReviewerAnswersTheParent(t *testing.T) {
	var mu sync.Mutex
	var child, parentAfter subRequest
	f := newSubFixture(t, "", func(r subRequest) llmtest.Turn {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.FirstUser == "review main.go please":
			child = r
			return llmtest.Turn{Text: "LGTM: no issues in main.go"}
		case len(r.Results) == 0:
			return llmtest.Turn{Calls: []llmtest.Call{taskCall("reviewer", "review main", "review main.go please")}}
		}
		parentAfter = r
		return llmtest.Turn{Text: "the reviewer approved"}
	})
	f.writeFile(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep\nmodel: inherit\n---\nYou are REVIEWER-7, a strict code reviewer.\n")
	f.start()
	ctx := context.Background()
	var reports []subagentReport
	id, err := f.run(ctx, SessionOptions{SubagentStop: func(_ context.Context, r subagentReport) { reports = append(reports, r) }}, "check my code")
	require.NoError(t, err)
	require.Len(t, reports, 1, "SubagentStop is told of the subagent's end")
	require.Equal(t, "LGTM: no issues in main.go", reports[0].Answer)
	require.Equal(t, id, reports[0].ParentSessionID)
	require.Equal(t, "reviewer", reports[0].Type)

	require.Contains(t, child.System, "You are REVIEWER-7, a strict code reviewer.")
	require.NotContains(t, child.System, "REVIEWER-7 ZZZ")
	require.Contains(t, child.Tools, "read_file")
	require.Contains(t, child.Tools, "grep")
	require.NotContains(t, child.Tools, "write_file", "the reviewer's tools are Read and Grep")
	require.NotContains(t, child.Tools, "run_command")
	require.NotContains(t, child.Raw, "check my code", "the child starts with a fresh context")

	require.Len(t, parentAfter.Results, 1)
	require.Contains(t, parentAfter.Results[0], "LGTM: no issues in main.go")
	require.Contains(t, parentAfter.Results[0], "[subagent reviewer: review main · 1 turns · 100 in / 10 out tokens")

	kids, err := f.svc.Store().Children(ctx, id)
	require.NoError(t, err)
	require.Len(t, kids, 1)
	require.Equal(t, "reviewer: review main", kids[0].Subagent)
	texts := f.childEvents(agent.EventText)
	require.NotEmpty(t, texts)
	require.Equal(t, kids[0].ParentToolCallID, texts[0].ParentToolCallID)
	require.Equal(t, "reviewer: review main", texts[0].Subagent)
	usage := f.childEvents(agent.EventUsage)
	require.Len(t, usage, 1, "the child's usage is reported, labelled")
	require.Equal(t, "reviewer: review main", usage[0].Subagent)
}

// allowAll answers every approval "once" and records the requests.
type allowAll struct {
	mu   sync.Mutex
	reqs []agent.ApprovalInfo
}

func (a *allowAll) Approve(_ context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, req)
	return agent.AnswerOnce, "", nil
}

// writingChild scripts a parent that starts a general subagent whose
// first answer writes notes.txt.
func writingChild(r subRequest) llmtest.Turn {
	switch {
	case r.FirstUser == "write the notes" && len(r.Results) == 0:
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hi\n"}`}}}
	case r.FirstUser == "write the notes":
		return llmtest.Turn{Text: "child finished"}
	case len(r.Results) == 0:
		return llmtest.Turn{Calls: []llmtest.Call{taskCall("general", "write notes", "write the notes")}}
	}
	return llmtest.Turn{Text: "parent finished"}
}

// A plan-mode parent's child is refused a write, even with an approver
// that would allow anything asked.
func TestSubagentOfPlanModeParentCannotWrite(t *testing.T) {
	f := newSubFixture(t, `permission_mode = "plan"`, writingChild)
	f.start()
	_, err := f.run(context.Background(), SessionOptions{Approver: &allowAll{}}, "plan it")
	require.NoError(t, err)
	require.NoFileExists(t, filepath.Join(f.home.WS, "notes.txt"))
	results := f.childEvents(agent.EventToolResult)
	require.NotEmpty(t, results)
	require.Equal(t, "write_file", results[0].ToolResult.Name)
	require.False(t, results[0].ToolResult.OK)
	require.Equal(t, "permission", results[0].ToolResult.Category)
}

// A child's approval goes to the parent's approver, labelled with the
// subagent, and the approval event says so too.
func TestSubagentApprovalIsLabelled(t *testing.T) {
	f := newSubFixture(t, `permission_mode = "ask"`, writingChild)
	f.start()
	ap := &allowAll{}
	_, err := f.run(context.Background(), SessionOptions{Approver: ap}, "do it")
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(f.home.WS, "notes.txt"))
	require.Len(t, ap.reqs, 1)
	require.Equal(t, "general: write notes", ap.reqs[0].Subagent)
	evs := f.childEvents(agent.EventApproval)
	require.NotEmpty(t, evs)
	require.Equal(t, "general: write notes", evs[0].Approval.Subagent)
	require.Equal(t, ap.reqs[0].ID, evs[0].Approval.ID, "the event and the request name the same approval")
}

// Two task calls of one response run at once: each child's first request
// is held until both arrived, so running them one after the other would
// hang until the timeout cancels the run.
func TestSubagentsRunInParallel(t *testing.T) {
	both := make(chan struct{})
	arrived := map[string]bool{}
	var exploreTools []string
	f := newSubFixture(t, "", func(r subRequest) llmtest.Turn {
		switch r.FirstUser {
		case "task A", "task B":
			arrived[r.FirstUser] = true
			exploreTools = r.Tools
			if len(arrived) == 2 && !isClosed(both) {
				close(both)
			}
			return llmtest.Turn{Hold: both, Text: "answer of " + r.FirstUser}
		}
		if len(r.Results) == 0 {
			return llmtest.Turn{Calls: []llmtest.Call{taskCall("explore", "a", "task A"), taskCall("explore", "b", "task B")}}
		}
		return llmtest.Turn{Text: "both done"}
	})
	f.start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := f.run(ctx, SessionOptions{}, "go")
	require.NoError(t, err, "the two subagents did not run at the same time")
	last := parseRequest(t, f.script.Requests()[len(f.script.Requests())-1])
	require.Len(t, last.Results, 2)
	require.Contains(t, last.Results[0], "answer of task A")
	require.Contains(t, last.Results[1], "answer of task B")
	require.Contains(t, exploreTools, "read_file")
	require.NotContains(t, exploreTools, "write_file", "explore has read-only tools")
	require.NotContains(t, exploreTools, "run_command")
}

// A subagent's model: inherit, an alias matched in the provider's models,
// PROVIDER/MODEL, or an error naming the agent file when the provider has
// no key.
func TestSubagentModel(t *testing.T) {
	f := newSubFixture(t, "", func(subRequest) llmtest.Turn { return llmtest.Turn{Text: "x"} })
	f.start()
	rt := f.svc.Runtime()
	got, err := rt.engineRoom().forSubagent(subagent.Definition{Name: "a"})
	require.NoError(t, err)
	require.Same(t, rt, got)
	cp := *rt
	cp.Provider.Models = []catalog.Model{{ID: "claude-opus-4"}, {ID: "claude-haiku-4-5"}}
	got, err = cp.engineRoom().forSubagent(subagent.Definition{Name: "a", Model: "haiku"})
	require.NoError(t, err)
	require.Equal(t, "claude-haiku-4-5", got.Model)
	got, err = cp.engineRoom().forSubagent(subagent.Definition{Name: "a", Model: "sonnet"})
	require.NoError(t, err)
	require.Equal(t, rt.Model, got.Model, "no sonnet model: the parent's")
	got, err = rt.engineRoom().forSubagent(subagent.Definition{Name: "a", Model: "fake/m9"})
	require.NoError(t, err)
	require.Equal(t, "m9", got.Model)
	_, err = rt.engineRoom().forSubagent(subagent.Definition{Name: "a", Source: "/x/a.md", Model: "anthropic/claude-x"})
	require.ErrorIs(t, err, ErrMissingKey)
	require.ErrorContains(t, err, "/x/a.md")
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// A child may start a grandchild, which is not offered the task tool.
func TestSubagentDepthLimit(t *testing.T) {
	var mu sync.Mutex
	tools := map[string][]string{}
	f := newSubFixture(t, "", func(r subRequest) llmtest.Turn {
		mu.Lock()
		defer mu.Unlock()
		if _, seen := tools[r.FirstUser]; !seen {
			tools[r.FirstUser] = r.Tools
		}
		switch {
		case r.FirstUser == "top" && len(r.Results) == 0:
			return llmtest.Turn{Calls: []llmtest.Call{taskCall("general", "one", "level one")}}
		case r.FirstUser == "level one" && len(r.Results) == 0:
			return llmtest.Turn{Calls: []llmtest.Call{taskCall("general", "two", "level two")}}
		case r.FirstUser == "level two" && len(r.Results) == 0:
			return llmtest.Turn{Calls: []llmtest.Call{taskCall("general", "three", "level three")}}
		}
		return llmtest.Turn{Text: "done at " + r.FirstUser}
	})
	f.start()
	_, err := f.run(context.Background(), SessionOptions{}, "top")
	require.NoError(t, err)
	require.Contains(t, tools["top"], "task")
	require.Contains(t, tools["level one"], "task")
	require.NotContains(t, tools["level two"], "task", "a grandchild may not start subagents")
	_, ran := tools["level three"]
	require.False(t, ran)
	res := f.childEvents(agent.EventToolResult)
	var refused bool
	for _, ev := range res {
		if ev.ToolResult.Name == "task" && strings.Contains(ev.ToolResult.Error, `unknown tool "task"`) {
			refused = true
		}
	}
	require.True(t, refused, "the grandchild's task call is refused")
}

// Past [subagents] max_runs the task tool returns an error to the model.
func TestSubagentRunCap(t *testing.T) {
	f := newSubFixture(t, "[subagents]\nmax_runs = 1\n", func(r subRequest) llmtest.Turn {
		switch {
		case strings.HasPrefix(r.FirstUser, "job"):
			return llmtest.Turn{Text: "did " + r.FirstUser}
		case len(r.Results) == 0:
			return llmtest.Turn{Calls: []llmtest.Call{taskCall("explore", "1", "job 1"), taskCall("explore", "2", "job 2")}}
		}
		return llmtest.Turn{Text: "over"}
	})
	f.start()
	_, err := f.run(context.Background(), SessionOptions{}, "go")
	require.NoError(t, err)
	last := parseRequest(t, f.script.Requests()[len(f.script.Requests())-1])
	require.Len(t, last.Results, 2)
	joined := strings.Join(last.Results, "\n")
	require.Contains(t, joined, "subagent limit reached")
	require.Equal(t, 1, strings.Count(joined, "subagent limit reached"))
}

// Cancelling the parent's run cancels its children.
func TestSubagentCancelledWithParent(t *testing.T) {
	f := newSubFixture(t, "", func(r subRequest) llmtest.Turn {
		if r.FirstUser == "slow job" {
			return llmtest.Turn{Text: "working", Hang: true}
		}
		return llmtest.Turn{Calls: []llmtest.Call{taskCall("general", "slow", "slow job")}}
	})
	f.start()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-f.script.Started
		cancel()
	}()
	_, err := f.run(ctx, SessionOptions{}, "go")
	require.ErrorIs(t, err, context.Canceled)
	res := f.childEvents(agent.EventDone)
	require.Len(t, res, 1)
	require.Equal(t, agent.StopCancelled, res[0].Done.StopReason)
}

// The tree's slots bound the subagents running at once, and its count
// the runs of a session.
func TestSubagentTreeLimits(t *testing.T) {
	tree := newSubagentTree(1, 2)
	release, err := tree.acquire(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = tree.acquire(ctx)
	require.ErrorIs(t, err, context.Canceled, "a second run waits for the slot")
	release()
	release, err = tree.acquire(ctx)
	if err != nil { // select may pick the cancelled context; the slot is free
		release, err = tree.acquire(context.Background())
	}
	require.NoError(t, err)
	release()
	require.NoError(t, tree.start())
	require.NoError(t, tree.start())
	require.ErrorContains(t, tree.start(), "subagent limit reached: this session has started 2 subagents")
}

// A subagent's file changes are checkpointed in the session that started
// it: undoing that session's turn puts them back.
func TestSubagentChangesUndoneWithTheParentTurn(t *testing.T) {
	f := newSubFixture(t, `permission_mode = "auto-edit"`, writingChild)
	f.start()
	ctx := context.Background()
	id, err := f.run(ctx, SessionOptions{}, "write notes")
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(f.home.WS, "notes.txt"))
	undone, err := f.svc.Undo(ctx, id)
	require.NoError(t, err)
	require.NotEmpty(t, undone)
	require.NoFileExists(t, filepath.Join(f.home.WS, "notes.txt"), "undo of the parent's turn removes the subagent's file")
}

func TestSubagentLabelIsOneShortLine(t *testing.T) {
	require.Equal(t, "explore", subagentLabel("explore", "  "))
	require.Equal(t, "explore: find the tests", subagentLabel("explore", "find\nthe   tests\n"))
	long := subagentLabel("general", strings.Repeat("x", 100))
	require.Equal(t, "general: "+strings.Repeat("x", labelMax-1)+"…", long)
}
