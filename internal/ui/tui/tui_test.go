package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/commands"
	"github.com/zelvior/aidex/internal/ui/format"
)

const sampleDiff = "--- a/hello.go\n+++ b/hello.go\n@@ -1,3 +1,4 @@\n package main\n-func main() {}\n+func main() {\n+\tprintln(\"hi\")\n+}\n"

func meta(t *testing.T, v any) json.RawMessage {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestGoldenCards(t *testing.T) {
	s := newStyles(false)
	cases := map[string]*card{
		"read": {Name: "read_file", Args: json.RawMessage(`{"path":"utils.go"}`), Done: true,
			Result: &agent.ToolResultInfo{OK: true, Output: "package utils", DurationMS: 3, Meta: meta(t, map[string]any{"lines": 120})}},
		"edit": {Name: "edit_file", Args: json.RawMessage(`{"path":"hello.go"}`), Done: true, Decision: agent.AnswerSession,
			Result: &agent.ToolResultInfo{OK: true, Output: "edited", DurationMS: 12, Meta: meta(t, map[string]any{"diff": sampleDiff})}},
		"command": {Name: "run_command", Args: json.RawMessage(`{"command":"go test ./..."}`), Done: true,
			Result: &agent.ToolResultInfo{OK: true, Output: "ok  \tx\t0.1s\n--- FAIL: TestX\nFAIL", DurationMS: 1500, Meta: meta(t, map[string]any{"exit_code": 1})}},
		"failed": {Name: "read_file", Args: json.RawMessage(`{"path":"missing.go"}`), Done: true,
			Result: &agent.ToolResultInfo{OK: false, Error: "missing.go does not exist", Category: "not_found", DurationMS: 1}},
		"running": {Name: "grep", Args: json.RawMessage(`{"pattern":"TODO"}`), Started: time.Now()},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			golden.RequireEqual(t, renderCard(s, c, "*", 80, false))
		})
	}
}

func TestGoldenApproval(t *testing.T) {
	s := newStyles(false)
	t.Run("diff", func(t *testing.T) {
		req := agent.ApprovalInfo{Tool: "write_file", Arguments: json.RawMessage(`{"path":"hello.go"}`), Diff: sampleDiff,
			Rule: "rule mode ask from built-in", Why: "Changes to files ask in ask mode (an allow rule or another mode lets them run).", Suggested: "write_file(hello.go)"}
		golden.RequireEqual(t, renderApproval(s, req, false, "", 80))
	})
	t.Run("command", func(t *testing.T) {
		req := agent.ApprovalInfo{Tool: "run_command", Arguments: json.RawMessage(`{"command":"rm -rf build"}`), Command: "rm -rf build",
			Rule: "rule run_command(rm *) from /ws/.aidex/config.toml", Why: "Your rule run_command(rm *) asks (in /ws/.aidex/config.toml).", Suggested: "run_command(rm *)"}
		golden.RequireEqual(t, renderApproval(s, req, false, "", 80))
	})
	t.Run("reason", func(t *testing.T) {
		req := agent.ApprovalInfo{Tool: "run_command", Command: "git push", Rule: "ask"}
		golden.RequireEqual(t, renderApproval(s, req, true, "use a branch", 80))
	})
}

func TestGoldenStatusAndMessages(t *testing.T) {
	s := newStyles(false)
	st := statusInfo{Provider: "groq", Model: "llama-3.3-70b", Mode: "yolo", Tokens: 12345, CostUSD: 0.0123,
		ContextPct: 7.4, TodosDone: 2, TodosAll: 5, Working: true, Spin: "*", Elapsed: 3 * time.Second}
	var b strings.Builder
	b.WriteString(renderStatus(s, st, 120) + "\n")
	b.WriteString(renderUser(s, "fix the bug\nin utils.go", 80) + "\n")
	b.WriteString(renderReasoning(s, strings.Repeat("thinking about it ", 30), false, 60, 2) + "\n")
	b.WriteString(renderTodos(s, []agent.Todo{{Content: "read", Status: "completed"}, {Content: "fix", Status: "in_progress"}, {Content: "test", Status: "pending"}}) + "\n")
	b.WriteString(renderDiff(s, sampleDiff, 3, false, 80) + "\n")
	golden.RequireEqual(t, b.String())
}

func TestDiffIsColoured(t *testing.T) {
	out := renderDiff(newStyles(true), sampleDiff, 40, false, 80)
	var added, removed string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "+func main() {") {
			added = l
		}
		if strings.Contains(l, "-func main() {}") {
			removed = l
		}
	}
	require.Contains(t, added, "\x1b[", "additions are coloured")
	require.Contains(t, removed, "\x1b[", "deletions are coloured")
	require.NotEqual(t, strings.SplitN(added, "+", 2)[0], strings.SplitN(removed, "-", 2)[0], "additions and deletions differ in colour")
	require.NotContains(t, renderDiff(newStyles(false), sampleDiff, 40, false, 80), "\x1b[", "no colours when off")
}

func TestStableSplit(t *testing.T) {
	cases := []struct {
		in   string
		want string // the committed prefix
	}{
		{"Hello", ""},
		{"Hello\n\nWorld", ""},
		{"Hello\n\nWorld\n", "Hello\n\n"},
		{"# T\n\npara one\n\npara two\n", "# T\n\npara one\n\n"},
		{"a\n\n```go\nx\n\ny\n", "a\n\n"},
		{"a\n\n```go\nx\n\ny\n```\n\nafter\n", "a\n\n```go\nx\n\ny\n```\n\n"},
		{"- item\n\n  more of item\n", ""},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.in[:format.StableSplit(c.in)], "input %q", c.in)
	}
}

func FuzzStableSplit(f *testing.F) {
	for _, s := range []string{"a\n\nb\n", "```\n\n```\n\nx\n", "~~~\n\n", "\n\n\n", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := format.StableSplit(s)
		if n < 0 || n > len(s) {
			t.Fatalf("cut %d out of range for %q", n, s)
		}
		if n > 0 && s[n-1] != '\n' {
			t.Fatalf("cut %d is not at a line start in %q", n, s)
		}
	})
}

func TestQueueNeverBlocksAndCoalesces(t *testing.T) {
	q := newQueue()
	done := make(chan struct{})
	go func() {
		for i := 0; i < 100000; i++ {
			q.emit(agent.Event{Type: agent.EventText, Text: "x"})
		}
		q.emit(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{ID: "1", Name: "grep"}})
		q.emit(agent.Event{Type: agent.EventText, Text: "y"})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("emit blocked with nobody reading")
	}
	msg := q.wait()().(itemsMsg)
	require.Len(t, msg, 3)
	require.Equal(t, strings.Repeat("x", 100000), msg[0].ev.Text)
	require.Equal(t, agent.EventToolCall, msg[1].ev.Type)
	require.Equal(t, "y", msg[2].ev.Text)
}

// harness is a TUI model on a real controller against a scripted model.
type harness struct {
	m      *model
	ctrl   *commands.Controller
	ws     string
	tm     *teatest.TestModel
	script *llmtest.Script
	clock  *syncClock // the UI's clock (Options.Now), unless the test set one
}

// syncClock is a clock a test moves while the program reads it from its
// own goroutine.
type syncClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *syncClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *syncClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// answer sends an approval card's key pressed on its own: the clock
// moves past the card's type-ahead guard first.
func (h *harness) answer(k tea.KeyPressMsg) {
	h.clock.advance(time.Second)
	h.tm.Send(k)
}

func newHarness(t *testing.T, turns ...llmtest.Turn) *harness {
	t.Helper()
	return newHarnessWith(t, Options{Version: "test"}, turns...)
}

// newHarnessWith is newHarness with the UI's options.
func newHarnessWith(t *testing.T, o Options, turns ...llmtest.Turn) *harness {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1", "m2"}, ""))
	ws, env := home.WS, home.Env
	ctx := context.Background()
	opts := app.Options{Workspace: ws, Flags: map[string]string{}, Getenv: func(k string) string { return env[k] }}
	svc, err := app.Start(ctx, app.StartOptions{Options: opts})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	q := newQueue()
	t.Cleanup(q.close) // ends the program's last wait for engine items
	ctrl, err := commands.New(ctx, commands.Config{Service: svc, Session: sess, Approver: approver{q: q}, Chooser: approver{q: q}})
	require.NoError(t, err)
	t.Cleanup(ctrl.Close)
	clock := &syncClock{t: time.Unix(1_000_000, 0)}
	if o.Now == nil {
		o.Now = clock.now
	}
	m := newModel(ctx, o, ctrl, nil, q)
	h := &harness{m: m, ctrl: ctrl, ws: ws, script: script, clock: clock}
	h.tm = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	return h
}

// waitFor waits until the output read from now on holds every string of
// want (each call consumes the output it reads).
func (h *harness) waitFor(t *testing.T, want ...string) {
	t.Helper()
	teatest.WaitFor(t, h.tm.Output(), func(b []byte) bool {
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	},
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func enter() tea.Msg { return tea.KeyPressMsg{Code: tea.KeyEnter} }

func TestUpdateStreamsAnswer(t *testing.T) {
	h := newHarness(t, llmtest.Turn{Text: "The answer is **42**."})
	h.tm.Type("what is it?")
	h.tm.Send(enter())
	h.waitFor(t, "The answer is")
	// The run may still be ending when its answer shows: a Ctrl+C then
	// stops it instead of opening the quit window. Press until the window
	// opens, then once more.
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	teatest.WaitFor(t, h.tm.Output(), func(b []byte) bool {
		if bytes.Contains(b, []byte("again to quit")) {
			return true
		}
		h.tm.Send(ctrlC)
		return false
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(200*time.Millisecond))
	h.tm.Send(ctrlC)
	fm := h.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*model)
	require.True(t, fm.quitting, "Ctrl+C twice with empty input quits")
	require.Equal(t, "The answer is **42**.", h.ctrl.LastAnswer())
	hist := commands.LoadHistory(commands.HistoryPath(h.ctrl.Runtime().Config.Paths.StateDir, h.ws))
	require.Equal(t, []string{"what is it?"}, hist.Entries, "history is persisted per workspace")
}

func TestUpdateApprovalAllowsAndDenies(t *testing.T) {
	h := newHarness(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"A\n"}`}}},
		llmtest.Turn{Text: "first done"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"b.txt","content":"B\n"}`}}},
		llmtest.Turn{Text: "second done"})
	h.tm.Type("write a")
	h.tm.Send(enter())
	h.waitFor(t, "Allow write_file") // not "Allow" alone: the banner's workspace path holds the test's name
	h.answer(tea.KeyPressMsg{Code: 'y', Text: "y"})
	h.waitFor(t, "first done")
	h.tm.Type("write b")
	h.tm.Send(enter())
	h.waitFor(t, "b.txt?")
	h.answer(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.waitFor(t, "second done")
	require.NoError(t, h.tm.Quit())
	_, err := os.Stat(filepath.Join(h.ws, "a.txt"))
	require.NoError(t, err, "y writes the file")
	_, err = os.Stat(filepath.Join(h.ws, "b.txt"))
	require.True(t, os.IsNotExist(err), "Esc denies")
}

func TestUpdateEscStopsAndKeepsPartial(t *testing.T) {
	h := newHarness(t, llmtest.Turn{Text: "partial words here", Hang: true})
	h.tm.Type("go")
	h.tm.Send(enter())
	h.waitFor(t, "partial words")
	h.tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.waitFor(t, "stopped")
	require.NoError(t, h.tm.Quit())
	fm := h.tm.FinalModel(t).(*model)
	require.False(t, fm.turn.running)
	msgs := h.ctrl.Session().Messages
	require.Equal(t, "partial words here", msgs[len(msgs)-1].Text(), "the partial answer is kept in the session")
}

func TestUpdateShiftTabCyclesMode(t *testing.T) {
	h := newHarness(t)
	h.tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	h.waitFor(t, "permission mode: auto-edit")
	h.tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	h.waitFor(t, "permission mode: plan")
	h.tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	h.waitFor(t, "yolo: every tool call runs without asking")
	require.NoError(t, h.tm.Quit())
	h.tm.WaitFinished(t)
	require.Equal(t, "yolo", h.ctrl.Mode())
}

func TestUpdateSlashCommands(t *testing.T) {
	h := newHarness(t)
	h.tm.Type("/mdoel")
	h.tm.Send(enter())
	h.waitFor(t, "did you mean /model?")
	h.tm.Type("/cost")
	h.tm.Send(enter())
	h.waitFor(t, "cache write 0 tokens")
	require.NoError(t, h.tm.Quit())
}

func TestUpdateCtrlCClearsInputFirst(t *testing.T) {
	h := newHarness(t)
	h.tm.Type("draft")
	h.tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	h.waitFor(t, "input cleared")
	require.NoError(t, h.tm.Quit())
	fm := h.tm.FinalModel(t).(*model)
	require.Equal(t, "", fm.input.Value())
}

func TestPasteFolding(t *testing.T) {
	m := newModel(context.Background(), Options{}, nil, nil, newQueue())
	long := strings.Repeat("line\n", 50)
	m.paste(long)
	require.Equal(t, "[pasted text #1: 51 lines]", m.input.Value())
	require.Equal(t, long, m.input.expandPastes(m.input.Value()))
	m.input.Reset()
	m.paste("short")
	require.Equal(t, "short", m.input.Value())
}

func TestIdleDoesNotTick(t *testing.T) {
	h := newHarness(t)
	h.waitFor(t, "/help for commands")
	time.Sleep(time.Second)
	require.NoError(t, h.tm.Quit())
	fm := h.tm.FinalModel(t).(*model)
	require.Zero(t, fm.spin, "no spinner (or any) ticks while idle")
	require.False(t, fm.spinOn)
}

// BenchmarkStreamingRender feeds a long markdown answer with code through
// the update loop in small deltas, rendering a frame per batch, and
// reports the tokens per second the UI keeps up with (a token ≈ 4 bytes).
func BenchmarkStreamingRender(b *testing.B) {
	var md strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&md, "## Section %d\n\nSome **bold** text and `code` with a [link](http://x.y) and more words to wrap around the line.\n\n", i)
		fmt.Fprintf(&md, "```go\nfunc f%d(x int) int {\n\treturn x * %d // comment\n}\n```\n\n- item one\n- item two\n\n", i, i)
	}
	text := md.String()
	const delta = 16 // bytes per event (about 4 tokens)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := newModel(context.Background(), Options{Color: true}, nil, nil, newQueue())
		m.width, m.height = 100, 40
		for off := 0; off < len(text); off += delta * 8 {
			var batch itemsMsg
			for j := off; j < min(off+delta*8, len(text)); j += delta {
				e := agent.Event{Type: agent.EventText, Text: text[j:min(j+delta, len(text))]}
				batch = append(batch, item{ev: &e})
			}
			m.Update(coalesce(batch))
			m.Update(renderTickMsg{})
			_ = m.View()
		}
		m.Update(itemsMsg{{ev: &agent.Event{Type: agent.EventDone}}})
	}
	b.ReportMetric(float64(len(text)/4*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkFirstPrompt measures building the UI and drawing the first
// prompt (model, Init, first View).
func BenchmarkFirstPrompt(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m := newModel(context.Background(), Options{Color: true}, nil, nil, newQueue())
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		v := m.View()
		if !strings.Contains(v.Content, "›") {
			b.Fatal("no prompt drawn")
		}
	}
}

// TestSpinnerStopsWhenRunEnds: the spinner re-arms its tick only while
// something works; the tick that arrives after the run ended re-arms
// nothing, so an idle UI gets no more messages (and no more frames).
func TestSpinnerStopsWhenRunEnds(t *testing.T) {
	m := newModel(context.Background(), Options{}, nil, nil, newQueue())
	m.turn.running = true
	m.Update(tea.KeyPressMsg{Code: 'x'})
	require.True(t, m.spinOn, "a run starts the spinner")
	require.NotNil(t, m.route(spinTickMsg{}), "the spinner re-arms while the run goes on")
	m.turn.running = false
	require.Nil(t, m.route(spinTickMsg{}), "the tick after the run ended re-arms nothing")
	require.False(t, m.spinOn)
	m.Update(tea.KeyPressMsg{Code: 'y'})
	require.False(t, m.spinOn, "an idle update starts no spinner")
}

// TestUpdateThenViewDrawsOneFrame: the frame holdFrame draws at the end of
// an Update is the one View shows (Bubble Tea calls View right after each
// Update), not drawn a second time; a View without an Update draws anew.
func TestUpdateThenViewDrawsOneFrame(t *testing.T) {
	m := newModel(context.Background(), Options{}, nil, nil, newQueue())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	_ = m.View()
	before := m.frames
	m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	v := m.View()
	require.Equal(t, before+1, m.frames, "one frame per Update and View")
	require.Contains(t, v.Content, "x")
	m.input.setValue("typed without an Update")
	require.Contains(t, m.View().Content, "typed without an Update", "a View with no Update before it draws the current state")
	require.Equal(t, before+2, m.frames)
}
