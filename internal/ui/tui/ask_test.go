package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

// TestAskFormKinds answers a multi-select (Space toggles, Enter with
// nothing picked is refused), a text and a files question.
func TestAskFormKinds(t *testing.T) {
	r := &formReq{info: agent.InteractionInfo{ID: "ia", Questions: []agent.Question{
		{Question: "Extras?", Kind: agent.KindChoice, MultiSelect: true, Options: []agent.Option{{Label: "auth"}, {Label: "cache"}, {Label: "queue"}}},
		{Question: "Title?", Kind: agent.KindText},
		{Question: "Files?", Kind: agent.KindFiles},
	}}, reply: make(chan agent.InteractionAnswer, 1)}
	a := approvalModel{st: newStyles(false), width: 80}.openForm(r, time.Time{})
	send := func(keys ...tea.KeyPressMsg) {
		for _, k := range keys {
			a, _ = a.key(keyPress{k: k, now: time.Time{}.Add(time.Minute)})
		}
	}
	typeText := func(s string) {
		for _, c := range s {
			send(tea.KeyPressMsg{Code: c, Text: string(c)})
		}
	}
	space, enter, down := tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}, tea.KeyPressMsg{Code: tea.KeyEnter}, tea.KeyPressMsg{Code: tea.KeyDown}
	send(enter)
	require.Contains(t, a.View(), "pick at least one option")
	send(space, down, down, space)
	require.Contains(t, a.View(), "[x] auth")
	require.Contains(t, a.View(), "❯ [x] queue")
	send(enter)
	require.Contains(t, a.View(), "Title?")
	typeText("My title")
	send(enter)
	typeText("a.go b.go")
	send(enter)
	require.False(t, a.active(), "the form closes after the last question")
	ans := <-r.reply
	require.Equal(t, map[string]agent.Reply{"Extras?": agent.ListReply("auth", "queue"), "Title?": agent.TextReply("My title"),
		"Files?": agent.ListReply("a.go", "b.go")}, ans.Answers)
}

// TestAskFormCtrlCDeclines: Ctrl+C (answer deny) declines a waiting form.
func TestAskFormCtrlCDeclines(t *testing.T) {
	r := &formReq{info: agent.InteractionInfo{ID: "ia", Questions: []agent.Question{{Question: "Go?", Kind: agent.KindConfirm}}},
		reply: make(chan agent.InteractionAnswer, 1)}
	a := approvalModel{st: newStyles(false)}.openForm(r, time.Time{})
	a = a.answer(agent.AnswerDeny, "")
	require.False(t, a.active())
	require.True(t, (<-r.reply).Declined)
}
