package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm"
)

// transcriptLine is one line of a Claude Code transcript: a user or
// assistant message with the session's id and the line's uuid (and its
// predecessor's, parentUuid; null on the first line).
type transcriptLine struct {
	ParentUUID *string           `json:"parentUuid"`
	Type       string            `json:"type"`
	Message    transcriptMessage `json:"message"`
	SessionID  string            `json:"session_id"`
	UUID       string            `json:"uuid"`
	Cwd        string            `json:"cwd,omitempty"`
}

type transcriptMessage struct {
	Role    string         `json:"role"`
	Model   string         `json:"model,omitempty"`
	Content []contentBlock `json:"content"`
}

// contentBlock is one block of a transcript message (Anthropic's
// shapes): text (Text), thinking, tool_use (ID, Name, Input),
// tool_result (ToolUseID, Content, IsError), image and document
// (Source).
type contentBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Source    *blockSource    `json:"source,omitempty"`
}

// blockSource is an image's or document's data: base64 or a URL.
type blockSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// ClaudeTranscript renders s in Claude Code's transcript format, the one
// hook scripts read from transcript_path: one compact JSON object a line
// (scripts grep `"role":"assistant"`), {"type":"user"|"assistant",
// "message":{"role","content":[blocks]},"session_id","uuid"}, with
// blocks {"type":"text","text"}, {"type":"tool_use","id","name","input"}
// (tools under their Claude names and fields, as hooks get them),
// {"type":"thinking","thinking"}, images and documents as base64
// sources, and, in user lines (aidex's tool messages), {"type":
// "tool_result","tool_use_id","content","is_error"}. uuids are derived
// from the session and the line's place, so rewriting the file keeps
// them. Errors: a message that cannot be encoded.
func ClaudeTranscript(s *agent.Conversation, workspace string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one compact line each, <, > and & as they are
	enc.SetEscapeHTML(false)
	var parent *string
	for i, m := range s.Messages {
		line := transcriptLine{ParentUUID: parent, Type: "user", SessionID: s.ID, UUID: lineUUID(s.ID, i), Cwd: workspace,
			Message: transcriptMessage{Role: "user", Content: make([]contentBlock, 0, len(m.Parts))}}
		if m.Role == llm.RoleAssistant {
			line.Type, line.Message.Role, line.Message.Model = "assistant", "assistant", m.Model
		}
		for _, p := range m.Parts {
			if b, ok := transcriptBlock(p, workspace); ok {
				line.Message.Content = append(line.Message.Content, b)
			}
		}
		if err := enc.Encode(line); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		id := line.UUID
		parent = &id
	}
	return buf.Bytes(), nil
}

// transcriptBlock is part p as a Claude content block (ok false: none).
func transcriptBlock(p llm.Part, workspace string) (contentBlock, bool) {
	switch p.Type {
	case llm.PartText:
		return contentBlock{Type: "text", Text: &p.Text}, true
	case llm.PartReasoning:
		return contentBlock{Type: "thinking", Thinking: p.Text}, !p.Redacted && p.Text != ""
	case llm.PartToolCall:
		if p.ToolCall == nil {
			return contentBlock{}, false
		}
		name, input := hooks.ClaudeTool(p.ToolCall.Name, p.ToolCall.Arguments, workspace)
		if !json.Valid(input) {
			input, _ = json.Marshal(string(input))
		}
		return contentBlock{Type: "tool_use", ID: p.ToolCall.ID, Name: name, Input: input}, true
	case llm.PartToolResult:
		if p.ToolResult == nil {
			return contentBlock{}, false
		}
		return contentBlock{Type: "tool_result", ToolUseID: p.ToolResult.CallID, Content: &p.ToolResult.Content, IsError: p.ToolResult.IsError}, true
	case llm.PartImage, llm.PartDocument:
		b := contentBlock{Type: string(p.Type), Source: &blockSource{Type: "url", URL: p.URL}}
		if p.URL == "" {
			b.Source = &blockSource{Type: "base64", MediaType: p.MIMEType, Data: base64.StdEncoding.EncodeToString(p.Data)}
		}
		return b, true
	}
	return contentBlock{}, false
}

// lineUUID is the uuid of line i of session's transcript: a
// name-based (version 5 form) uuid of the two.
func lineUUID(session string, i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", session, i))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

// LastAssistantText is the text of s's last assistant message with text
// ("" when none).
func LastAssistantText(s *agent.Conversation) string {
	for i := len(s.Messages) - 1; i >= 0; i-- {
		if m := s.Messages[i]; m.Role == llm.RoleAssistant {
			if t := m.Text(); t != "" {
				return t
			}
		}
	}
	return ""
}
