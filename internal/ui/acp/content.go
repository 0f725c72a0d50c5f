package acp

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// promptParts converts a prompt's content blocks to message parts: text
// as text, images as images, embedded text resources as the file's text
// in a <file> block, resource links as a line naming the file (the model
// reads it with its tools). Errors: an image that is not base64, audio.
func promptParts(blocks []sdk.ContentBlock) ([]llm.Part, error) {
	var parts []llm.Part
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, llm.Part{Type: llm.PartText, Text: b.Text.Text})
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return nil, fmt.Errorf("prompt block %d: image data is not base64: %w", i+1, err)
			}
			parts = append(parts, llm.Part{Type: llm.PartImage, MIMEType: b.Image.MimeType, Data: data})
		case b.ResourceLink != nil:
			parts = append(parts, llm.Part{Type: llm.PartText, Text: fmt.Sprintf("[file: %s (%s)]", b.ResourceLink.Name, b.ResourceLink.Uri)})
		case b.Resource != nil:
			p, err := resourcePart(b.Resource.Resource)
			if err != nil {
				return nil, fmt.Errorf("prompt block %d: %w", i+1, err)
			}
			parts = append(parts, p)
		default:
			return nil, fmt.Errorf("prompt block %d: aidex takes text, image, resource and resource_link blocks (audio is not supported)", i+1)
		}
	}
	return parts, nil
}

// resourcePart is an embedded resource as a part.
func resourcePart(r sdk.EmbeddedResourceResource) (llm.Part, error) {
	if t := r.TextResourceContents; t != nil {
		return llm.Part{Type: llm.PartText, Text: fmt.Sprintf("<file uri=%q>\n%s\n</file>", t.Uri, t.Text)}, nil
	}
	if b := r.BlobResourceContents; b != nil {
		mime := ""
		if b.MimeType != nil {
			mime = *b.MimeType
		}
		if !strings.HasPrefix(mime, "image/") {
			return llm.Part{}, fmt.Errorf("resource %s: aidex takes binary resources only as images, not %q", b.Uri, mime)
		}
		data, err := base64.StdEncoding.DecodeString(b.Blob)
		if err != nil {
			return llm.Part{}, fmt.Errorf("resource %s is not base64: %w", b.Uri, err)
		}
		return llm.Part{Type: llm.PartImage, MIMEType: mime, Data: data}, nil
	}
	return llm.Part{}, fmt.Errorf("empty resource")
}

// replay sends a stored conversation as updates: the user's text as
// user_message_chunk, the answers as agent_message_chunk and
// agent_thought_chunk, tool calls as tool_call then tool_call_update
// with the result.
func (s *session) replay(ctx context.Context, st *agent.Conversation) error {
	ws := st.Workspace
	for _, m := range st.Messages {
		for _, p := range m.Parts {
			u, ok := s.replayPart(m.Role, p, ws)
			if !ok {
				continue
			}
			if err := s.update(ctx, u); err != nil {
				return fmt.Errorf("replay session %s: %w", st.ID, err)
			}
		}
	}
	if len(st.Todos) > 0 {
		return s.update(ctx, plan(st.Todos))
	}
	return nil
}

// replayPart is the update of one stored part (false: none).
func (s *session) replayPart(role llm.Role, p llm.Part, ws string) (sdk.SessionUpdate, bool) {
	switch p.Type {
	case llm.PartText:
		if p.Text == "" {
			return sdk.SessionUpdate{}, false
		}
		if role == llm.RoleUser {
			return sdk.UpdateUserMessageText(p.Text), true
		}
		return sdk.UpdateAgentMessageText(p.Text), true
	case llm.PartReasoning:
		return sdk.UpdateAgentThoughtText(p.Text), p.Text != ""
	case llm.PartImage:
		if role == llm.RoleUser && len(p.Data) > 0 {
			return sdk.UpdateUserMessage(sdk.ImageBlock(base64.StdEncoding.EncodeToString(p.Data), p.MIMEType)), true
		}
	case llm.PartToolCall:
		tc := p.ToolCall
		v := s.view(&agent.ToolCallInfo{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}, ws)
		v.diff = nil // the file holds the edit now: no diff to show
		return s.start(tc.ID, v), true
	case llm.PartToolResult:
		r := p.ToolResult
		info := &agent.ToolResultInfo{ID: r.CallID, Name: r.Name, OK: !r.IsError, Output: r.Content}
		if r.IsError {
			info.Error = r.Content
		}
		u := s.result(info)
		return u, true
	}
	return sdk.SessionUpdate{}, false
}
