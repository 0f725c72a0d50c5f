package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// newTestHost returns a Host over a scripted model whose config has
// extra (e.g. "approval_timeout = 1").
func newTestHost(t *testing.T, o HostOptions, extra string) *Host {
	t.Helper()
	script := llmtest.NewScript(t)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n"+extra))
	env := home.Env
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	h := NewHost(svc, o)
	t.Cleanup(func() {
		h.Close(time.Second)
		_ = svc.Close()
	})
	return h
}

func newHostSession(t *testing.T, h *Host) *HostSession {
	t.Helper()
	hs, err := h.Open(context.Background(), "")
	require.NoError(t, err)
	return hs
}

func approval(id string) agent.ApprovalInfo { return agent.ApprovalInfo{ID: id, Tool: "write_file"} }

// An approval id waiting in two sessions needs the session to be
// answered; an answer that arrives before Approve waits is not lost.
func TestHostApprovalAmbiguousAcrossSessions(t *testing.T) {
	h := newTestHost(t, HostOptions{}, "")
	s1, s2, s3 := newHostSession(t, h), newHostSession(t, h), newHostSession(t, h)
	s1.openApproval(approval("ap_1"))
	s2.openApproval(approval("ap_1"))
	require.ErrorIs(t, h.Approve("", "ap_1", agent.AnswerOnce, ""), ErrAmbiguous)
	require.NoError(t, h.Approve(s2.ID(), "ap_1", agent.AnswerOnce, ""))
	require.NoError(t, h.Approve("", "ap_1", agent.AnswerDeny, ""), "the remaining one")
	require.ErrorIs(t, h.Approve("", "ap_1", agent.AnswerDeny, ""), ErrNotWaiting)
	require.Empty(t, h.Approvals(), "answered approvals are not listed")
	s3.openApproval(approval("ap_2"))
	require.NoError(t, h.Approve(s3.ID(), "ap_2", agent.AnswerSession, ""))
	d, _, err := s3.Approver().Approve(context.Background(), approval("ap_2"))
	require.NoError(t, err)
	require.Equal(t, agent.AnswerSession, d, "the early answer")
	require.Empty(t, s3.approvals, "Approve removes what it waited for")
}

// The replay log keeps the last Replay events; a subscriber gets those
// after the Seq it asks for, learns when some are gone, and is dropped
// (its channel closes) when it falls Replay events behind.
func TestHostReplayIsBounded(t *testing.T) {
	h := newTestHost(t, HostOptions{Replay: 3}, "")
	hs := newHostSession(t, h)
	for i := 1; i <= 5; i++ {
		hs.Publish("text", i)
	}
	seqs := func(evs []hostEvent) string {
		var b strings.Builder
		for _, ev := range evs {
			fmt.Fprintf(&b, "%d=%v ", ev.Seq, ev.Data)
		}
		return b.String()
	}
	for _, c := range []struct {
		after  uint64
		want   string
		missed bool
	}{
		{0, "3=3 4=4 5=5 ", true},
		{2, "3=3 4=4 5=5 ", false},
		{3, "4=4 5=5 ", false},
		{5, "", false},
		{9, "", false},
	} {
		sub := hs.Subscribe(c.after)
		require.Equal(t, c.want, seqs(sub.Replay), "after %d", c.after)
		require.Equal(t, c.missed, sub.Missed, "after %d", c.after)
		sub.Close()
	}
	slow := hs.Subscribe(hs.LastSeq())
	defer slow.Close()
	for i := 0; i < 4; i++ {
		hs.Publish("text", i)
	}
	n := 0
	for range slow.Events() {
		n++
	}
	require.Equal(t, 3, n, "a subscriber 3 behind gets what fit, then its channel closes")
}

// A watched run whose last watcher leaves: with nothing waiting it is
// cancelled; with an approval waiting it is held, and the approval is
// denied (not cancelled) after approval_timeout, unless a watcher comes
// back first.
func TestHostWatchedRun(t *testing.T) {
	h := newTestHost(t, HostOptions{}, "approval_timeout = 1")
	type result struct {
		d      agent.Answer
		reason string
		err    error
	}
	for _, c := range []struct {
		name     string
		ask      bool // an approval waits when the watcher leaves
		comeBack bool // a subscriber comes back at once
		want     string
	}{
		{"nothing waits: cancelled", false, false, "cancelled"},
		{"an approval waits: denied after the timeout", true, false, "denied"},
		{"a watcher comes back: still waiting", true, true, "waiting"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := newHostSession(t, h)
			run, err := hs.Start(context.Background(), RunOptions{Watched: true})
			require.NoError(t, err)
			defer run.End()
			got := make(chan result, 1)
			if c.ask {
				run.Emit(agent.Event{Type: agent.EventApproval, Approval: &agent.ApprovalInfo{ID: "ap", Tool: "write_file"}})
				go func() {
					d, reason, err := hs.Approver().Approve(run.Context(), approval("ap"))
					got <- result{d, reason, err}
				}()
			}
			run.Detach()
			if c.comeBack {
				sub := hs.Subscribe(hs.LastSeq())
				defer sub.Close()
			}
			var state string
			select {
			case <-run.Context().Done():
				state = "cancelled"
			case r := <-got:
				state = "answered"
				if r.err == nil && r.d == agent.AnswerDeny && strings.Contains(r.reason, "approval_timeout") {
					state = "denied"
				}
			case <-time.After(1500 * time.Millisecond):
				state = "waiting"
			}
			require.Equal(t, c.want, state)
			if c.want == "denied" {
				require.NoError(t, run.Context().Err(), "a denial does not cancel the run")
			}
		})
	}
}

// Start refuses a second run of a session and runs over MaxRuns.
func TestHostStartLimits(t *testing.T) {
	h := newTestHost(t, HostOptions{MaxRuns: func() int { return 1 }}, "")
	a, b := newHostSession(t, h), newHostSession(t, h)
	run, err := a.Start(context.Background(), RunOptions{})
	require.NoError(t, err)
	_, err = a.Start(context.Background(), RunOptions{})
	require.ErrorIs(t, err, ErrRunning)
	_, err = b.Start(context.Background(), RunOptions{})
	require.ErrorIs(t, err, ErrTooManyRuns)
	require.True(t, a.Cancel())
	require.Error(t, run.Context().Err())
	run.End()
	require.False(t, a.Running())
	run2, err := b.Start(context.Background(), RunOptions{})
	require.NoError(t, err)
	run2.End()
	h.Close(time.Second)
	_, err = b.Start(context.Background(), RunOptions{})
	require.True(t, errors.Is(err, errHostClosed))
}
