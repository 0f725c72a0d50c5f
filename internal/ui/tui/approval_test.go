package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// timedKey is a key pressed at a time after the test's start.
type timedKey struct {
	at time.Duration
	k  tea.KeyPressMsg
}

// typed is text typed one key every gap from at.
func typed(at, gap time.Duration, text string) []timedKey {
	var ks []timedKey
	for i, r := range text {
		ks = append(ks, timedKey{at + time.Duration(i)*gap, tea.KeyPressMsg{Code: r, Text: string(r)}})
	}
	return ks
}

func keyAt(at time.Duration, code rune) []timedKey {
	k := tea.KeyPressMsg{Code: code}
	if code < tea.KeyExtended && code != tea.KeyEnter && code != tea.KeyEscape {
		k.Text = string(code)
	}
	return []timedKey{{at, k}}
}

func keys(parts ...[]timedKey) []timedKey {
	var all []timedKey
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// TestApprovalTypeAheadNeverAnswers: what is typed around an approval
// card answers it only when a card key is pressed on its own, after the
// card has been shown for the guard time; keys typed before the card,
// within the guard time, or inside a typed word (a slash command, a word
// holding a card key) never answer it and stay in the input box. The card
// opens at 1 s; fluent typing is one key every 120 ms.
func TestApprovalTypeAheadNeverAnswers(t *testing.T) {
	const open = time.Second
	fluent := 120 * time.Millisecond
	cases := []struct {
		name   string
		keys   []timedKey
		want   *answer // nil: the card still waits
		input  string
		reason bool // the reason field is open
	}{
		{"typed before the card, y just after it", keys(typed(400*time.Millisecond, fluent, "yes "), keyAt(open+50*time.Millisecond, 'y')), nil, "yes y", false},
		{"y within the guard time", keyAt(open+approvalGuard-time.Millisecond, 'y'), nil, "y", false},
		{"Enter within the guard time", keyAt(open+100*time.Millisecond, tea.KeyEnter), nil, "", false},
		{"Esc within the guard time", keyAt(open+100*time.Millisecond, tea.KeyEscape), nil, "", false},
		{"a digit within the guard time", keyAt(open+100*time.Millisecond, '1'), nil, "1", false},
		{"a word holding a card key", typed(open+2*time.Second, fluent, "today"), nil, "today", false},
		{"a word starting with n", typed(open+2*time.Second, fluent, "xnay"), nil, "xnay", false},
		{"a slash command and Enter", keys(typed(open+2*time.Second, fluent, "/model"), keyAt(open+2*time.Second+6*fluent, tea.KeyEnter)), nil, "/model", false},
		{"a typed message, then y alone: y is text", keys(typed(open+2*time.Second, fluent, "fix "), keyAt(open+4*time.Second, 'y')), nil, "fix y", false},
		{"a typed message, then Enter alone", keys(typed(open+2*time.Second, fluent, "fix it"), keyAt(open+4*time.Second, tea.KeyEnter)), nil, "fix it", false},
		{"a typed message, then Esc alone", keys(typed(open+2*time.Second, fluent, "fix it"), keyAt(open+4*time.Second, tea.KeyEscape)), &answer{d: agent.AnswerDeny}, "fix it", false},
		{"a typed message, then 2 alone", keys(typed(open+2*time.Second, fluent, "fix"), keyAt(open+4*time.Second, '2')), &answer{d: agent.AnswerSession}, "fix", false},
		{"y alone after the guard", keyAt(open+approvalGuard, 'y'), &answer{d: agent.AnswerOnce}, "", false},
		{"Esc alone after the guard", keyAt(open+time.Second, tea.KeyEscape), &answer{d: agent.AnswerDeny}, "", false},
		{"n alone, then a reason typed fast", keys(keyAt(open+time.Second, 'n'), typed(open+time.Second+fluent, fluent/2, "not now"), keyAt(open+3*time.Second, tea.KeyEnter)),
			&answer{d: agent.AnswerDeny, reason: "not now"}, "", false},
		{"n alone opens the reason field", keyAt(open+time.Second, 'n'), nil, "", true},
		{"y right after a typed word, then alone", keys(typed(open+2*time.Second, fluent, "ok"), keyAt(open+2*time.Second+2*fluent, '3'), keyAt(open+4*time.Second, '1')),
			&answer{d: agent.AnswerOnce}, "ok3", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := &fakeClock{t: time.Unix(1_000_000, 0)}
			start := clk.t
			m := newModel(context.Background(), Options{Now: clk.now}, nil, nil, newQueue())
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			r := &askReq{req: agent.ApprovalInfo{Tool: "run_command", Command: "rm -rf build"}, reply: make(chan answer, 1)}
			opened := false
			for _, k := range c.keys {
				if !opened && k.at >= open {
					clk.t = start.Add(open)
					m.item(item{ask: r})
					opened = true
				}
				clk.t = start.Add(k.at)
				m.Update(k.k)
			}
			if !opened {
				clk.t = start.Add(open)
				m.item(item{ask: r})
			}
			select {
			case got := <-r.reply:
				require.NotNil(t, c.want, "answered %+v", got)
				require.Equal(t, *c.want, got)
				require.False(t, m.approval.active())
			default:
				require.Nil(t, c.want, "not answered")
				require.True(t, m.approval.active())
				require.Equal(t, c.reason, m.approval.typing)
				require.Contains(t, m.View().Content, "Allow run_command", "the card stays on screen")
			}
			require.Equal(t, c.input, m.input.Value(), "typed text that is not an answer stays in the input box")
		})
	}
}

// The type-ahead kept in the input box shows under the card.
func TestApprovalShowsKeptTypeAhead(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := newModel(context.Background(), Options{Now: clk.now}, nil, nil, newQueue())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.item(item{ask: &askReq{req: agent.ApprovalInfo{Tool: "run_command", Command: "ls"}, reply: make(chan answer, 1)}})
	for _, r := range "/help" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	require.Contains(t, m.View().Content, "› /help · kept for your next message · answer with 1-4")
}
