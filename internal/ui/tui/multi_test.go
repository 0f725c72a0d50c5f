package tui

import (
	"context"
	"strings"
	"testing"

	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func committed(s streamModel) string {
	var b strings.Builder
	for _, it := range s.printQ {
		b.WriteString(ansi.Strip(it.text) + "\n")
	}
	return b.String()
}

// Several models, one after the other: each answer gets a header with
// its model, once per change of model.
func TestStreamLabelsAnswersWithTheirModel(t *testing.T) {
	s := newStream(newStyles(false), false, false, 80)
	s.multi = true
	for _, ev := range []agent.Event{
		{Type: agent.EventSession, Session: &agent.SessionInfo{}},
		{Type: agent.EventText, Model: "oa/a1", Text: "first answer\n"},
		{Type: agent.EventText, Model: "oa/a1", Text: "more\n"},
		{Type: agent.EventText, Model: "an/c1", Text: "second answer\n"},
		{Type: agent.EventDone, Done: &agent.DoneInfo{}},
	} {
		s.event(ev)
	}
	out := committed(s)
	require.Equal(t, 1, strings.Count(out, "── oa/a1 ──"), out)
	require.Equal(t, 1, strings.Count(out, "── an/c1 ──"), out)
	require.Less(t, strings.Index(out, "first answer"), strings.Index(out, "── an/c1 ──"))
	require.Greater(t, strings.Index(out, "second answer"), strings.Index(out, "── an/c1 ──"))

	single := newStream(newStyles(false), false, false, 80)
	single.event(agent.Event{Type: agent.EventText, Model: "oa/a1", Text: "alone\n"})
	single.event(agent.Event{Type: agent.EventDone, Done: &agent.DoneInfo{}})
	require.NotContains(t, committed(single), "──", "one model: no labels")
}

// Parallel: the answers stream into their own stacked panes, numbered as
// the keys pick them; keeping one commits every answer under a header
// saying whether it was kept.
func TestStreamParallelPanesAndKeep(t *testing.T) {
	s := newStream(newStyles(false), false, false, 80)
	s.multi, s.parallel = true, true
	s.event(agent.Event{Type: agent.EventSession, Session: &agent.SessionInfo{}})
	s.event(agent.Event{Type: agent.EventText, Model: "oa/a1", Text: "alpha"})
	s.event(agent.Event{Type: agent.EventText, Model: "an/c1", Text: "gamma"})
	s.event(agent.Event{Type: agent.EventText, Model: "oa/a1", Text: " beta"})
	live := ansi.Strip(strings.Join(s.liveLines(""), "\n"))
	require.Contains(t, live, "[1] oa/a1")
	require.Contains(t, live, "[2] an/c1")
	require.Contains(t, live, "alpha beta")
	require.Contains(t, live, "gamma")
	require.Empty(t, s.printQ, "nothing is committed before the choice")

	s.keepParallel([]string{"an/c1"})
	out := committed(s)
	require.Contains(t, out, "── oa/a1 · not kept ──")
	require.Contains(t, out, "── an/c1 · kept ──")
	require.Nil(t, s.par)
	s.event(agent.Event{Type: agent.EventToolCall, Model: "an/c1", ToolCall: &agent.ToolCallInfo{ID: "1", Name: "read_file"}})
	require.Equal(t, 1, strings.Count(committed(s), "an/c1"), "the kept model's calls need no new header")
}

// The status line shows the mode and the active models in place of the
// model.
func TestStatusShowsMultiModels(t *testing.T) {
	line := renderStatus(newStyles(false), statusInfo{Provider: "oa", Model: "a1", Mode: "ask", Multi: "parallel: a1, a2, c1"}, 120)
	require.Contains(t, line, "parallel: a1, a2, c1 · ask")
	require.NotContains(t, line, "oa/a1")
}

// The approver's Choose queues the question and returns the keys' choice;
// a cancelled context returns its error.
func TestApproverChoose(t *testing.T) {
	q := newQueue()
	defer q.close()
	a := approver{q: q}
	done := make(chan []int, 1)
	go func() {
		keep, _ := a.Choose(context.Background(), []multi.Candidate{{Model: "oa/a1"}, {Model: "an/c1"}})
		done <- keep
	}()
	var r *chooseReq
	require.Eventually(t, func() bool {
		for _, it := range q.drain() {
			if it.choose != nil {
				r = it.choose
			}
		}
		return r != nil
	}, 5e9, 1e6)
	require.Len(t, r.answers, 2)
	r.reply <- []int{1}
	require.Equal(t, []int{1}, <-done)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := a.Choose(ctx, []multi.Candidate{{Model: "x"}})
	require.ErrorIs(t, err, context.Canceled)
}

// In the UI: /multi add and /multi parallel, then a prompt; both answers
// show in numbered panes, the status line names the mode, and the key 2
// keeps the second model's answer alone.
func TestUpdateParallelKeepWithKey(t *testing.T) {
	h := newHarness(t, llmtest.Turn{Text: "some answer"}, llmtest.Turn{Text: "some answer"})
	for _, cmd := range []string{"/multi add fake/m2", "/multi parallel"} {
		h.tm.Type(cmd)
		h.tm.Send(enter())
	}
	h.waitFor(t, "parallel: m1, m2")
	h.tm.Type("q")
	h.tm.Send(enter())
	h.waitFor(t, "Keep which answer?", "[1] fake/m1", "[2] fake/m2")
	h.tm.Send(tea.KeyPressMsg{Code: '2', Text: "2"})
	h.waitFor(t, "fake/m2 · kept")
	require.Eventually(t, func() bool { return h.ctrl.LastAnswer() != "" }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, h.tm.Quit())
	var kept []string
	for _, m := range h.ctrl.Session().Messages {
		if m.Role == llm.RoleAssistant {
			kept = append(kept, m.Model)
		}
	}
	require.Equal(t, []string{"fake/m2"}, kept)
}

// A parallel pane renders a bounded end of its answer each frame, cut at
// a line start, not the whole answer again.
func TestPreviewSourceIsBounded(t *testing.T) {
	short := "# Title\n\nsome text"
	if got := previewSource(short); got != short {
		t.Fatalf("a short answer is shown whole, got %q", got)
	}
	long := strings.Repeat("a line of the answer\n", 1000) + "the last line"
	got := previewSource(long)
	if len(got) > previewMax || !strings.HasSuffix(got, "the last line") || !strings.HasPrefix(got, "a line") {
		t.Fatalf("preview of %d bytes: %d bytes, starts %q", len(long), len(got), got[:20])
	}
}
