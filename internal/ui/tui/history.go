package tui

import (
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/format"
)

// historyExchanges is how many of a resumed session's last exchanges (a
// prompt and all that answered it) the TUI prints when it starts.
const historyExchanges = 10

// RecentMessages is how many of a resumed session's last messages the
// TUI needs before its first prompt (app.Service.PickRecent loads the
// rest meanwhile): historyExchanges exchanges of up to 30 messages each
// (a prompt, 14 tool calls and their results, the answer). Of longer
// exchanges fewer are shown.
const RecentMessages = historyExchanges * 30

// history renders the last historyExchanges exchanges of a resumed
// conversation for the scrollback: the user's prompts (without attached
// files), the answers as markdown, and each tool call as one line (✓ or
// ✗, name, key argument). Reasoning is left out. Earlier messages are
// counted in a first line; msgs are the last of total messages.
func (s *streamModel) history(msgs []llm.Message, total int) []string {
	start, failed := format.LastExchanges(msgs, historyExchanges)
	var out []string
	if earlier := start + max(total-len(msgs), 0); earlier > 0 {
		out = append(out, s.st.paint(s.st.faint, fmt.Sprintf("… %d earlier messages not shown", earlier)))
	}
	labels, label := severalModels(msgs[start:]), ""
	for _, m := range msgs[start:] {
		switch m.Role {
		case llm.RoleUser:
			if t := format.PromptText(m); t != "" && !strings.HasPrefix(t, "[aidex, ") {
				out = append(out, renderUser(s.st, t, s.width))
			}
		case llm.RoleAssistant:
			if labels && m.Model != label {
				out, label = append(out, s.modelHeader(m.Model, "")), m.Model
			}
			if md := s.md.render(m.Text(), s.width, s.mdStyle); md != "" {
				out = append(out, md)
			}
			for _, c := range m.ToolCalls() {
				out = append(out, s.historyCall(c, failed[c.ID]))
			}
		}
	}
	return out
}

// historyCall draws a past tool call as one line.
func (s *streamModel) historyCall(c llm.ToolCall, failed bool) string {
	icon := s.st.paint(s.st.green, "✓")
	if failed {
		icon = s.st.paint(s.st.red, "✗")
	}
	arg := format.ArgSummary(c.Arguments)
	if cmd := commandOf(c.Arguments); cmd != "" {
		arg = "$ " + format.FirstLine(cmd, 200)
	}
	return truncateLine(fmt.Sprintf("%s %s %s", icon, s.st.paint(s.st.bold, c.Name), arg), s.width)
}

// severalModels reports whether more than one model wrote the assistant
// messages of msgs (their answers are then labelled).
func severalModels(msgs []llm.Message) bool {
	first := ""
	for _, m := range msgs {
		if m.Role != llm.RoleAssistant || m.Model == "" {
			continue
		}
		if first == "" {
			first = m.Model
		} else if m.Model != first {
			return true
		}
	}
	return false
}
