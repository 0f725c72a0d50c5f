package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// screen is a fake terminal both stdout and stderr write to: it keeps the
// lines as a person would see them, interpreting \r (back to the start of
// the line), \n and ESC [ K (erase to the end of the line).
type screen struct {
	mu    sync.Mutex
	lines [][]rune
	col   int
	raw   bytes.Buffer
}

func (s *screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(b)
	if len(s.lines) == 0 {
		s.lines = [][]rune{nil}
	}
	rs := []rune(string(b))
	for i := 0; i < len(rs); i++ {
		cur := &s.lines[len(s.lines)-1]
		switch r := rs[i]; {
		case r == '\r':
			s.col = 0
		case r == '\n':
			s.lines, s.col = append(s.lines, nil), 0
		case r == '\x1b' && i+2 < len(rs) && rs[i+1] == '[' && rs[i+2] == 'K':
			*cur = (*cur)[:min(s.col, len(*cur))]
			i += 2
		default:
			if s.col < len(*cur) {
				(*cur)[s.col] = r
			} else {
				*cur = append(*cur, r)
			}
			s.col++
		}
	}
	return len(b), nil
}

// text is the screen's content, one line a line.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.lines {
		out = append(out, string(l))
	}
	return strings.Join(out, "\n")
}

// current is the line the cursor is on.
func (s *screen) current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lines) == 0 {
		return ""
	}
	return string(s.lines[len(s.lines)-1])
}

// clock is a settable time.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// newTestProgress is a headless text run's renderer on a fake terminal,
// with the spinner redrawn only when the test says so.
func newTestProgress(scr *screen, clk *clock) *progress {
	inner := &textOut{out: scr, err: scr, mode: "final", ttyOut: true, progress: true}
	return newProgress(inner, scr, true, clk.now, 0)
}

func TestProgressSpinnerWhileWaitingAndWriting(t *testing.T) {
	scr, clk := &screen{}, &clock{t: time.Unix(1000, 0)}
	p := newTestProgress(scr, clk)
	p.event(agent.Event{Type: agent.EventSession, Session: &agent.SessionInfo{Provider: "ollama", Model: "qwen3:8b"}})
	if scr.text() != "" {
		t.Fatalf("drawn before any request: %q", scr.text())
	}
	p.event(agent.Event{Type: agent.EventWaiting, Waiting: &agent.WaitingInfo{Provider: "ollama", Model: "qwen3:8b", InputTokens: 2100}})
	if got, want := scr.current(), "⠋ waiting for ollama/qwen3:8b — reading ~2,100 tokens, 0 s"; got != want {
		t.Errorf("at the request: %q, want %q", got, want)
	}
	clk.advance(45 * time.Second)
	p.redraw()
	if got, want := scr.current(), "⠙ waiting for ollama/qwen3:8b — reading ~2,100 tokens, 45 s"; got != want {
		t.Errorf("after 45 s: %q, want %q", got, want)
	}
	p.event(agent.Event{Type: agent.EventText, Text: strings.Repeat("word ", 272)}) // 1,360 bytes
	clk.advance(12 * time.Second)
	p.redraw()
	if got, want := scr.current(), "⠹ writing… 12 s, ~340 tokens"; got != want {
		t.Errorf("while writing: %q, want %q", got, want)
	}
	p.event(agent.Event{Type: agent.EventUsage, Usage: &agent.UsageInfo{}})
	done := &agent.DoneInfo{StopReason: agent.StopDone, Result: "The answer."}
	p.event(agent.Event{Type: agent.EventDone, Done: done})
	if err := p.finish(done, nil); err != nil {
		t.Fatal(err)
	}
	if got := scr.text(); got != "The answer.\n" {
		t.Errorf("screen at the end %q, want only the answer (spinner cleared)", got)
	}
}

func TestProgressClearedForToolLines(t *testing.T) {
	scr, clk := &screen{}, &clock{t: time.Unix(1000, 0)}
	p := newTestProgress(scr, clk)
	p.event(agent.Event{Type: agent.EventWaiting, Waiting: &agent.WaitingInfo{Provider: "groq", Model: "llama", InputTokens: 900}})
	p.event(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{Name: "read_file", Arguments: []byte(`{"path":"a.go"}`)}})
	p.redraw() // a tool runs: nothing to draw
	p.above(func() { _, _ = scr.Write([]byte("aidex: retrying\n")) })
	p.event(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{OK: true, Output: "package a"}})
	p.event(agent.Event{Type: agent.EventWaiting, Waiting: &agent.WaitingInfo{Provider: "groq", Model: "llama", InputTokens: 1200}})
	clk.advance(3 * time.Second)
	p.redraw()
	want := "→ read_file a.go\naidex: retrying\n  ✓ package a\n⠙ waiting for groq/llama — reading ~1,200 tokens, 3 s"
	if got := scr.text(); got != want {
		t.Errorf("screen:\n%s\nwant:\n%s", got, want)
	}
	p.above(func() { _, _ = scr.Write([]byte("aidex: HTTP 503; retry 1 in 1s\n")) })
	if got := scr.text(); !strings.HasSuffix(got, "  ✓ package a\naidex: HTTP 503; retry 1 in 1s\n⠙ waiting for groq/llama — reading ~1,200 tokens, 3 s") {
		t.Errorf("a notice must go above the spinner line:\n%s", got)
	}
}

// TestProgressStreamedAnswer: when the answer streams to the terminal the
// spinner stops at its first text and does not draw over it.
func TestProgressStreamedAnswer(t *testing.T) {
	scr, clk := &screen{}, &clock{t: time.Unix(1000, 0)}
	inner := &textOut{out: scr, err: scr, mode: "full", stream: true, ttyOut: true, progress: true}
	p := newProgress(inner, scr, false, clk.now, 0)
	p.event(agent.Event{Type: agent.EventWaiting, Waiting: &agent.WaitingInfo{Model: "m", InputTokens: 10}})
	p.event(agent.Event{Type: agent.EventText, Text: "Hello"})
	clk.advance(time.Second)
	p.redraw()
	p.event(agent.Event{Type: agent.EventText, Text: " world"})
	p.event(agent.Event{Type: agent.EventDone, Done: &agent.DoneInfo{}})
	_ = p.finish(&agent.DoneInfo{}, nil)
	if got := scr.text(); got != "Hello world\n" {
		t.Errorf("screen %q, want the streamed answer alone", got)
	}
}

// TestProgressTickerRedraws: with a tick the line is redrawn on its own
// while the model is silent, and the redrawing stops with the run.
func TestProgressTickerRedraws(t *testing.T) {
	scr := &screen{}
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clk := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	p := newProgress(&textOut{out: scr, err: scr, mode: "final"}, scr, true, clk, time.Millisecond)
	p.event(agent.Event{Type: agent.EventWaiting, Waiting: &agent.WaitingInfo{Model: "m"}})
	mu.Lock()
	now = now.Add(7 * time.Second)
	mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasSuffix(scr.current(), "waiting for m, 7 s") {
		if time.Now().After(deadline) {
			t.Fatalf("never redrawn: %q", scr.current())
		}
		time.Sleep(time.Millisecond)
	}
	p.event(agent.Event{Type: agent.EventDone, Done: &agent.DoneInfo{}})
	if err := p.finish(&agent.DoneInfo{}, nil); err != nil {
		t.Fatal(err)
	}
	if got := scr.current(); got != "" {
		t.Errorf("line after the run %q, want it cleared", got)
	}
}

// TestNoProgressWithoutTerminal: stderr that is not a terminal (a pipe, a
// file, a test buffer) gets no spinner, and the retry notice is the plain
// one.
func TestNoProgressWithoutTerminal(t *testing.T) {
	var errb bytes.Buffer
	a := newApp(Process{Chat: chat.Run, Stdout: &bytes.Buffer{}, Stderr: &errb})
	for _, format := range []string{"text", "json", "stream-json"} {
		r := a.renderer(&runFlags{outputFormat: format, agentOutput: "final"}, config.Defaults())
		if _, ok := r.(*progress); ok {
			t.Errorf("%s: a spinner on a stderr that is not a terminal", format)
		}
	}
	a.onRetryFor(&textOut{})(1, errors.New("HTTP 503"), time.Second)
	if got := errb.String(); got != "aidex: HTTP 503; retry 1 in 1s\n" {
		t.Errorf("retry notice %q", got)
	}
}

// TestStreamJSONHasWaitingEvent: stream-json prints the waiting event like
// any other, between session and the answer's first text.
func TestStreamJSONHasWaitingEvent(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "The answer is 42."})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "question", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if types := eventTypes(evs); !strings.HasPrefix(types, "session,waiting,text,") {
		t.Fatalf("events %s, want session,waiting,text,...", types)
	}
	w, _ := evs[1]["waiting"].(map[string]any)
	if w["provider"] != "fake" || w["model"] != "scripted" || w["input_tokens"].(float64) <= 0 {
		t.Errorf("waiting event %v, want provider fake, model scripted, input_tokens > 0", evs[1])
	}
}
