package plain

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
)

// Several models: each model's output follows a line naming it; in a
// parallel turn nothing streams until the keep question prints the
// answers, numbered, and the kept model's output follows without a new
// label.
func TestPrinterLabelsModelsAndHoldsParallel(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out}
	p.SetMulti(true, false)
	for _, ev := range []agent.Event{
		{Type: agent.EventSession, Session: &agent.SessionInfo{}},
		{Type: agent.EventText, Model: "oa/a1", Text: "one\n"},
		{Type: agent.EventText, Model: "an/c1", Text: "two\n"},
		{Type: agent.EventDone, Done: &agent.DoneInfo{}},
	} {
		p.Event(ev)
	}
	require.Equal(t, "── oa/a1 ──\none\n── an/c1 ──\ntwo\n", out.String())

	out.Reset()
	r := New(strings.NewReader("x\n2\n"), &out, false)
	r.Printer.SetMulti(true, true)
	r.Printer.Event(agent.Event{Type: agent.EventSession, Session: &agent.SessionInfo{}})
	r.Printer.Event(agent.Event{Type: agent.EventText, Model: "oa/a1", Text: "streamed one"})
	require.NotContains(t, out.String(), "streamed one", "parallel answers do not stream")
	ch, ok := r.Approver().(multi.Chooser)
	require.True(t, ok, "the line mode's approver chooses parallel answers")
	keep, err := ch.Choose(context.Background(), []multi.Candidate{{Model: "oa/a1", Text: "alpha"}, {Model: "an/c1", Text: "gamma", ToolCalls: []string{"read_file"}}})
	require.NoError(t, err)
	require.Equal(t, []int{1}, keep, "a bad answer asks again")
	s := out.String()
	require.Contains(t, s, "── [1] oa/a1 ──\nalpha\n")
	require.Contains(t, s, "── [2] an/c1 ──\ngamma\n  (kept, it runs read_file)")
	require.Contains(t, s, "Answer a number from 1 to 2, or a.")
	require.Contains(t, s, "kept: an/c1")
	out.Reset()
	r.Printer.Event(agent.Event{Type: agent.EventText, Model: "an/c1", Text: "after\n"})
	r.Printer.Event(agent.Event{Type: agent.EventDone, Done: &agent.DoneInfo{}})
	require.Equal(t, "after", strings.TrimSpace(out.String()), "the answer's last block is rendered when it ends")
}

func TestParseKeep(t *testing.T) {
	parseKeep := func(s string, n int) ([]int, bool) { k, err := multi.ParseKeep(s, n); return k, err == nil }
	for in, want := range map[string][]int{"": {0}, "a": {0, 1, 2}, "all": {0, 1, 2}, "3": {2}} {
		got, ok := parseKeep(in, 3)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"0", "4", "x"} {
		_, ok := parseKeep(bad, 3)
		require.False(t, ok, bad)
	}
}
