package agent

import "github.com/zelvior/aidex/internal/llm"

// estimateTokens approximates a prompt's size: 4 bytes a token.
func estimateTokens(system string, msgs []llm.Message) int {
	n := len(system)
	for _, m := range msgs {
		n += messageBytes(m)
	}
	return n / 4
}

// messageBytes is the size of one message for [estimateTokens], in bytes
// (inline data counts a third: it is sent base64-encoded but tokenised
// apart).
func messageBytes(m llm.Message) int {
	n := 0
	for _, p := range m.Parts {
		n += len(p.Text) + len(p.Data)/3
		if p.ToolCall != nil {
			n += len(p.ToolCall.Name) + len(p.ToolCall.Arguments)
		}
		if p.ToolResult != nil {
			n += len(p.ToolResult.Content)
		}
	}
	return n
}

// historySize remembers the size in bytes ([messageBytes]) of the first n
// messages of a session and which messages they were: the address of the
// n-th in the slice's backing array and of its first part. A session only
// grows between turns, so each estimate adds the new messages alone
// instead of walking the whole conversation twice a turn. A slice
// replaced (a compaction, a reload) or cut and grown again fails the
// check and is counted afresh.
type historySize struct {
	n     int
	bytes int
	last  *llm.Message
	part  *llm.Part
}

// firstPart is the address of m's first part (nil when it has none).
func firstPart(m *llm.Message) *llm.Part {
	if len(m.Parts) == 0 {
		return nil
	}
	return &m.Parts[0]
}

// historyBytes returns the size of s.Messages in bytes, counting only the
// messages added since the last call when the ones counted then are still
// the slice's first.
func (s *Conversation) historyBytes() int {
	msgs, h := s.Messages, &s.sized
	if h.n > len(msgs) || (h.n > 0 && (&msgs[h.n-1] != h.last || firstPart(&msgs[h.n-1]) != h.part)) {
		*h = historySize{}
	}
	for i := h.n; i < len(msgs); i++ {
		h.bytes += messageBytes(msgs[i])
	}
	h.n, h.last, h.part = len(msgs), nil, nil
	if len(msgs) > 0 {
		h.last = &msgs[len(msgs)-1]
		h.part = firstPart(h.last)
	}
	return h.bytes
}

// promptTokens is [estimateTokens] of system and s.Messages, counted
// incrementally ([Conversation.historyBytes]).
func (s *Conversation) promptTokens(system string) int {
	return (len(system) + s.historyBytes()) / 4
}

// requestTokens approximates the size of a whole request in tokens: the
// prompt ([estimateTokens]) and the tool definitions. The request's
// messages are the session's (see run.request), counted incrementally.
func (r *run) requestTokens(req *llm.Request) int {
	n := r.s.promptTokens(req.System)
	for _, t := range req.Tools {
		n += (len(t.Name) + len(t.Description) + len(t.Parameters)) / 4
	}
	return n
}
