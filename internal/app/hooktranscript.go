package app

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
	Role    string `json:"role"`
	Model   string `json:"model,omitempty"`
	Content []any  `json:"content"`
}

// claudeTranscript renders s in Claude Code's transcript format, the one
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
func claudeTranscript(s *agent.Session, workspace string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one compact line each, <, > and & as they are
	enc.SetEscapeHTML(false)
	var parent *string
	for i, m := range s.Messages {
		line := transcriptLine{ParentUUID: parent, Type: "user", SessionID: s.ID, UUID: lineUUID(s.ID, i), Cwd: workspace,
			Message: transcriptMessage{Role: "user", Content: []any{}}}
		if m.Role == llm.RoleAssistant {
			line.Type, line.Message.Role, line.Message.Model = "assistant", "assistant", m.Model
		}
		for _, p := range m.Parts {
			if b := transcriptBlock(p, workspace); b != nil {
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

// transcriptBlock is part p as a Claude content block (nil: none).
func transcriptBlock(p llm.Part, workspace string) any {
	switch p.Type {
	case llm.PartText:
		return map[string]any{"type": "text", "text": p.Text}
	case llm.PartReasoning:
		if p.Redacted || p.Text == "" {
			return nil
		}
		return map[string]any{"type": "thinking", "thinking": p.Text}
	case llm.PartToolCall:
		if p.ToolCall == nil {
			return nil
		}
		name, input := hooks.ClaudeTool(p.ToolCall.Name, p.ToolCall.Arguments, workspace)
		if !json.Valid(input) {
			input, _ = json.Marshal(string(input))
		}
		return map[string]any{"type": "tool_use", "id": p.ToolCall.ID, "name": name, "input": json.RawMessage(input)}
	case llm.PartToolResult:
		if p.ToolResult == nil {
			return nil
		}
		b := map[string]any{"type": "tool_result", "tool_use_id": p.ToolResult.CallID, "content": p.ToolResult.Content}
		if p.ToolResult.IsError {
			b["is_error"] = true
		}
		return b
	case llm.PartImage, llm.PartDocument:
		kind := "image"
		if p.Type == llm.PartDocument {
			kind = "document"
		}
		if p.URL != "" {
			return map[string]any{"type": kind, "source": map[string]any{"type": "url", "url": p.URL}}
		}
		return map[string]any{"type": kind, "source": map[string]any{"type": "base64", "media_type": p.MIMEType,
			"data": base64.StdEncoding.EncodeToString(p.Data)}}
	}
	return nil
}

// lineUUID is the uuid of line i of session's transcript: a
// name-based (version 5 form) uuid of the two.
func lineUUID(session string, i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", session, i))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

// lastAssistantText is the text of s's last assistant message with text
// ("" when none).
func lastAssistantText(s *agent.Session) string {
	for i := len(s.Messages) - 1; i >= 0; i-- {
		if m := s.Messages[i]; m.Role == llm.RoleAssistant {
			if t := m.Text(); t != "" {
				return t
			}
		}
	}
	return ""
}
