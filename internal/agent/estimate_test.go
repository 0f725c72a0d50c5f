package agent

import (
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// TestPromptEstimateCountsOnlyNewMessages: once counted, a message is not
// walked again (a long session's per-turn estimates cost the new messages
// only). The proof: a message changed in place behind the estimate's back,
// which a full recount would see, leaves the estimate as it was.
func TestPromptEstimateCountsOnlyNewMessages(t *testing.T) {
	msgs := make([]llm.Message, 0, 8)
	msgs = append(msgs, llm.UserText(strings.Repeat("a", 400)), llm.AssistantText(strings.Repeat("b", 400)))
	s := &Conversation{Messages: msgs}
	if got := s.promptTokens(""); got != 200 {
		t.Fatalf("estimate %d tokens, want 200 (800 bytes)", got)
	}
	s.Messages[0].Parts[0].Text = strings.Repeat("a", 4000) // not a way aidex changes history
	s.Messages = append(s.Messages, llm.UserText(strings.Repeat("c", 400)))
	if got := s.promptTokens(""); got != 300 {
		t.Errorf("estimate %d tokens, want 300: the counted messages were walked again", got)
	}
}

// TestPromptEstimateFollowsHistoryChanges: every way the session's
// messages change (appended, cut and grown again with other messages in
// the same backing array, replaced by a compaction or a reload) gives the
// estimate of a full count.
func TestPromptEstimateFollowsHistoryChanges(t *testing.T) {
	msg := func(n int) llm.Message { return llm.UserText(strings.Repeat("x", n)) }
	s := &Conversation{Messages: make([]llm.Message, 0, 16)}
	check := func(step string) {
		t.Helper()
		if got, want := s.promptTokens("system"), estimateTokens("system", s.Messages); got != want {
			t.Errorf("%s: estimate %d tokens, a full count %d", step, got, want)
		}
	}
	check("empty")
	for i := 1; i <= 6; i++ {
		s.Messages = append(s.Messages, msg(100*i))
		check("appended")
	}
	s.Messages = s.Messages[:2] // a rewind: same backing array
	check("cut")
	s.Messages = append(s.Messages, msg(7), msg(9), msg(11), msg(13), msg(17))
	check("cut and grown past the counted length")
	s.Messages = []llm.Message{msg(50), msg(60)}
	check("replaced by a shorter slice")
	s.Messages = append([]llm.Message{msg(1)}, s.Messages...)
	check("replaced by a longer slice")
	*s = Conversation{Messages: []llm.Message{msg(123)}}
	check("reloaded in place")
	s.Messages = append(s.Messages, llm.Message{Role: llm.RoleAssistant})
	check("a message without parts")
}
