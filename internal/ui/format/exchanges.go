package format

import (
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// LastExchanges finds where the last n exchanges of msgs begin (an
// exchange is a prompt the user typed and all that answered it): start
// is the index of the first one's prompt (0 when msgs hold fewer), and
// failed says, by tool call id, whether each tool result from start on
// was an error. The terminal UI's scrollback of a resumed session and
// the line mode's /reprint show the same exchanges.
func LastExchanges(msgs []llm.Message, n int) (start int, failed map[string]bool) {
	prompts := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser && PromptText(msgs[i]) != "" {
			start = i
			if prompts++; prompts == n {
				break
			}
		}
	}
	failed = map[string]bool{}
	for _, m := range msgs[start:] {
		for _, p := range m.Parts {
			if p.Type == llm.PartToolResult && p.ToolResult != nil {
				failed[p.ToolResult.CallID] = p.ToolResult.IsError
			}
		}
	}
	return start, failed
}

// PromptText is what the user typed in a user message: its last text
// part (earlier ones are queued shell output) without the attached files
// ("\n\n<file path=..." onwards), trimmed; "" for none.
func PromptText(m llm.Message) string {
	for i := len(m.Parts) - 1; i >= 0; i-- {
		if p := m.Parts[i]; p.Type == llm.PartText {
			t, _, _ := strings.Cut(p.Text, "\n\n<file path=")
			return strings.TrimSpace(t)
		}
	}
	return ""
}
