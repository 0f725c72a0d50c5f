package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/commands"
)

func keyOf(code rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code} }

func TestInputRequestsSubmit(t *testing.T) {
	in := newInput(newStyles(false), commands.Default(), false, 80)
	for _, r := range "hello" {
		in, _ = in.Update(press(r))
	}
	require.Empty(t, in.take(), "typing asks nothing")
	in, _ = in.Update(keyOf(tea.KeyEnter))
	require.Equal(t, []tea.Msg{submitMsg{}}, in.take(), "Enter asks to send")
	require.Equal(t, "hello", in.Value(), "sending is the top level's job")

	in.Reset()
	for _, r := range "/hel" {
		in, _ = in.Update(press(r))
	}
	require.True(t, in.menuOpen(), "a slash command is completed")
	in, _ = in.Update(keyOf(tea.KeyEnter))
	require.Equal(t, "/help", in.Value(), "Enter takes the completion")
	require.Equal(t, []tea.Msg{submitMsg{}}, in.take(), "and runs a command without arguments")
	require.False(t, in.menuOpen())
}

func TestInputHistory(t *testing.T) {
	in := newInput(newStyles(false), commands.Default(), false, 80)
	in.hist = &commands.History{Entries: []string{"first", "second"}}
	in.setValue("draft")
	steps := []struct {
		code rune
		want string
	}{
		{tea.KeyUp, "second"}, {tea.KeyUp, "first"}, {tea.KeyUp, "first"},
		{tea.KeyDown, "second"}, {tea.KeyDown, "draft"},
	}
	for i, s := range steps {
		in, _ = in.Update(keyOf(s.code))
		require.Equal(t, s.want, in.Value(), "step %d", i)
	}
}

// TestApprovalKeysAnswer: settled keys (the card shown for a while, no
// typing before) answer: a letter, a number, Enter on the line the arrows
// chose, Esc; "no" opens the reason field, which takes typing.
func TestApprovalKeysAnswer(t *testing.T) {
	k := func(r rune) tea.KeyPressMsg { return press(r).(tea.KeyPressMsg) }
	cases := []struct {
		keys   []tea.KeyPressMsg
		want   agent.Answer
		reason string
	}{
		{[]tea.KeyPressMsg{k('y')}, agent.AnswerOnce, ""},
		{[]tea.KeyPressMsg{keyOf(tea.KeyEnter)}, agent.AnswerOnce, ""},
		{[]tea.KeyPressMsg{k('s')}, agent.AnswerSession, ""},
		{[]tea.KeyPressMsg{k('2')}, agent.AnswerSession, ""},
		{[]tea.KeyPressMsg{k('a')}, agent.AnswerAlways, ""},
		{[]tea.KeyPressMsg{keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyOf(tea.KeyEnter)}, agent.AnswerAlways, ""},
		{[]tea.KeyPressMsg{keyOf(tea.KeyUp), keyOf(tea.KeyEnter), k('x'), keyOf(tea.KeyEnter)}, agent.AnswerDeny, "x"},
		{[]tea.KeyPressMsg{keyOf(tea.KeyEscape)}, agent.AnswerDeny, ""},
		{[]tea.KeyPressMsg{k('4'), k('n'), k('o'), keyOf(tea.KeyEnter)}, agent.AnswerDeny, "no"},
		{[]tea.KeyPressMsg{k('n'), k('n'), k('o'), k('x'), keyOf(tea.KeyBackspace), keyOf(tea.KeyEnter)}, agent.AnswerDeny, "no"},
	}
	opened := time.Unix(1000, 0)
	for i, c := range cases {
		r := &askReq{req: agent.ApprovalInfo{Tool: "write_file"}, reply: make(chan answer, 1)}
		a := approvalModel{st: newStyles(false), width: 80}.open(r, opened)
		for j, key := range c.keys {
			require.True(t, a.active(), "case %d: answered too early", i)
			var took bool
			a, took = a.key(keyPress{k: key, now: opened.Add(time.Duration(j+1) * time.Second)})
			require.True(t, took, "case %d: key %d is the card's", i, j)
		}
		require.False(t, a.active(), "case %d", i)
		require.Equal(t, answer{d: c.want, reason: c.reason}, <-r.reply, "case %d", i)
	}
}

func TestTasksViewRequests(t *testing.T) {
	tasks := sampleTasks()
	cases := []struct {
		keys []tea.Msg
		want []tea.Msg
	}{
		{[]tea.Msg{press('r')}, []tea.Msg{runLoopMsg{}}},
		{[]tea.Msg{press('s')}, []tea.Msg{stopLoopMsg{}}},
		{[]tea.Msg{press('j'), press('e')}, []tea.Msg{editTaskMsg{id: "US-001"}}},
		{[]tea.Msg{press('a'), press('H'), press('i'), enter()}, []tea.Msg{addTaskMsg{title: "Hi"}}},
		{[]tea.Msg{press('a'), press(' '), enter()}, nil},
		{[]tea.Msg{keyOf(tea.KeyEscape)}, []tea.Msg{closeTasksMsg{}}},
	}
	for i, c := range cases {
		tv := &tasksView{snap: ralph.Snapshot{Tasks: tasks}}
		open := tv
		for _, k := range c.keys {
			open, _ = open.Update(k)
		}
		require.Equal(t, c.want, tv.take(), "case %d", i)
	}
	tv := &tasksView{snap: ralph.Snapshot{Tasks: tasks}}
	closed, _ := tv.Update(press('q'))
	require.Nil(t, closed, "q closes the view")
}

func TestPickerAndKeyPromptRequests(t *testing.T) {
	items := []pickItem{{Label: "groq", Value: "groq"}, {Label: "ollama", Value: "ollama"}}
	p := &picker{Kind: "provider", Items: items}
	open := p
	for _, k := range []tea.Msg{press('l'), press('l'), keyOf(tea.KeyDown), keyOf(tea.KeyBackspace)} {
		open, _ = open.Update(k)
	}
	require.Equal(t, "l", p.Filter)
	require.Zero(t, p.Sel, "editing the filter selects the first match")
	open, _ = open.Update(enter())
	require.Nil(t, open)
	require.Equal(t, []tea.Msg{pickedMsg{kind: "provider", value: "ollama"}}, p.take())

	kp := &keyPrompt{provider: "groq"}
	open2 := kp
	for _, k := range []tea.Msg{enter(), press('k'), press('x'), keyOf(tea.KeyBackspace), press('1')} {
		open2, _ = open2.Update(k)
	}
	require.NotNil(t, open2, "Enter with no key keeps the prompt")
	require.Contains(t, kp.View(0), "API key for groq", "the key is masked")
	require.NotContains(t, kp.View(0), "k1")
	open2, _ = open2.Update(enter())
	require.Nil(t, open2)
	require.Equal(t, []tea.Msg{keyEnteredMsg{provider: "groq", key: "k1"}}, kp.take())
}

// The image settings prompt shows the account ID as typed, masks the
// token, hands over an empty answer (to name the key to set by hand) and
// says which setting Esc cancelled.
func TestKeyPromptImageSettings(t *testing.T) {
	ask := &imageKeyAsk{todo: []commands.ImageSetting{
		{Key: "cloudflare_account_id", Label: "Cloudflare account ID", Hint: "on the dashboard"},
		{Key: "image_api_key", Label: "Cloudflare API token", Hint: "create one", Secret: true}}, arg: "a dot"}
	kp := &keyPrompt{image: ask}
	open := kp
	for _, k := range []tea.Msg{press('a'), press('7')} {
		open, _ = open.Update(k)
	}
	require.Contains(t, kp.View(0), "Cloudflare account ID (on the dashboard; stored in your global config file; Esc cancels): a7█")
	open, _ = open.Update(enter())
	require.Nil(t, open)
	require.Equal(t, []tea.Msg{imageKeyEnteredMsg{ask: ask, value: "a7"}}, kp.take())

	tok := &keyPrompt{image: &imageKeyAsk{todo: ask.todo[1:], arg: ask.arg}}
	open = tok
	open, _ = open.Update(press('z'))
	require.Contains(t, tok.View(0), "Cloudflare API token (create one; stored in your global config file; Esc cancels): •█")
	for _, l := range strings.Split(tok.View(30), "\n") {
		require.LessOrEqual(t, ansi.StringWidth(l), 30, "wrapped to the width")
	}
	_, _ = open.Update(keyOf(tea.KeyEscape))
	require.Equal(t, []tea.Msg{imageKeyCancelledMsg{key: "image_api_key"}}, tok.take())

	empty := &keyPrompt{image: ask}
	_, _ = empty.Update(enter())
	require.Equal(t, []tea.Msg{imageKeyEnteredMsg{ask: ask, value: ""}}, empty.take())
}

func TestStreamFullscreenScrollKeepsTranscript(t *testing.T) {
	s := newStream(newStyles(false), false, true, 80)
	for _, l := range []string{"one", "two", "three", "four"} {
		s.commit(l)
	}
	s.scrollBy(2)
	s.reasoning = "thinking"
	top := s.View("*", 5)
	require.Len(t, top, 5)
	require.Equal(t, []string{"", "one", "two"}, top[:3], "scrolled back by two lines, padded at the top")
	require.Equal(t, []string{"one", "two", "three", "four"}, s.transcript, "live lines never overwrite the transcript")
}

func TestStatusModel(t *testing.T) {
	s := statusModel{st: newStyles(false), width: 200}
	s, _ = s.Update(agent.Event{Type: agent.EventUsage, Usage: &agent.UsageInfo{CostUSD: 0.5, ContextPercent: 12}})
	s, _ = s.Update(agent.Event{Type: agent.EventTodos, Todos: []agent.Todo{{Status: "completed"}, {Status: "pending"}}})
	info := statusInfo{Provider: "p", Model: "m", Mode: "ask", Note: "loop running"}
	require.Equal(t, "p/m · ask · ctx 12% · todos 1/2 · loop running", s.View(info))
	s, _ = s.Update(noteMsg("saved"))
	require.Contains(t, s.View(info), "· saved", "a note replaces the fallback")
	require.Equal(t, "p/m · ask · saved", s.reset().View(statusInfo{Provider: "p", Model: "m", Mode: "ask"}), "/clear drops the counters")
}
