package ollama

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// chatRequest is the body of POST /api/chat. Think is true, or an effort
// level for gpt-oss models; nil leaves the model's default.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	Tools    []wireTool    `json:"tools,omitempty"`
	Stream   bool          `json:"stream"`
	Think    any           `json:"think,omitempty"`
	Options  *modelOptions `json:"options,omitempty"`
}

type modelOptions struct {
	NumPredict  int      `json:"num_predict,omitempty"`
	NumCtx      int      `json:"num_ctx,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
}

// wireMessage is one message; Images are base64 in JSON ([]byte).
type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Thinking   string         `json:"thinking,omitempty"`
	Images     [][]byte       `json:"images,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolName   string         `json:"tool_name,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// buildRequest maps req onto the wire; numCtx is the context window to ask
// for (0: Ollama's default).
func buildRequest(req *llm.Request, numCtx int) (*chatRequest, error) {
	if strings.TrimSpace(req.Model) == "" {
		return nil, errors.New("no model given: set the model for this provider in the config or with --model (see `ollama list`)")
	}
	wr := &chatRequest{Model: req.Model, Stream: req.Stream, Think: think(req)}
	if req.MaxTokens > 0 || numCtx > 0 || req.Temperature != nil {
		wr.Options = &modelOptions{NumPredict: req.MaxTokens, NumCtx: numCtx, Temperature: req.Temperature}
	}
	if req.System != "" {
		wr.Messages = append(wr.Messages, wireMessage{Role: "system", Content: req.System})
	}
	for i := range req.Messages {
		msgs, err := encodeMessage(&req.Messages[i])
		if err != nil {
			return nil, err
		}
		wr.Messages = append(wr.Messages, msgs...)
	}
	for _, t := range req.Tools {
		wr.Tools = append(wr.Tools, wireTool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: t.Schema()}})
	}
	return wr, nil
}

// buildBody is [buildRequest] with the conversation encoded message by
// message through cache (nil: no cache): the body of the request sent.
func buildBody(req *llm.Request, numCtx int, cache *llm.WireCache) (*llm.Spliced, error) {
	head := *req
	head.Messages = nil
	wr, err := buildRequest(&head, numCtx)
	if err != nil {
		return nil, err
	}
	items, err := llm.EncodeList(cache, req.Messages, encodeMessage)
	if err != nil {
		return nil, err
	}
	sys := wr.Messages // the system prompt
	wr.Messages = nil
	return llm.SpliceAfter(wr, "messages", sys, items, true)
}

// think returns the `think` value: nil when no reasoning is asked, the
// effort level for gpt-oss models (which take "low", "medium" or "high";
// "minimal" becomes "low"), else true.
func think(req *llm.Request) any {
	effort := strings.ToLower(strings.TrimSpace(req.ReasoningEffort))
	if effort == "" && req.ThinkingBudget <= 0 {
		return nil
	}
	if strings.Contains(strings.ToLower(req.Model), "gpt-oss") {
		switch effort {
		case "low", "medium", "high":
			return effort
		case "minimal":
			return "low"
		}
	}
	return true
}

// encodeMessage maps one message onto one or more wire messages (a tool
// message becomes one message per result).
func encodeMessage(m *llm.Message) ([]wireMessage, error) {
	switch m.Role {
	case llm.RoleUser, "":
		wm, err := userMessage("user", m.Parts)
		if err != nil {
			return nil, err
		}
		return []wireMessage{wm}, nil
	case llm.RoleAssistant:
		return []wireMessage{assistantMessage(m)}, nil
	case llm.RoleTool:
		return toolMessages(m)
	}
	return nil, errors.New("unknown message role " + string(m.Role) + ": use user, assistant or tool")
}

// userMessage gathers text and images into one message of the given role.
func userMessage(role string, parts []llm.Part) (wireMessage, error) {
	wm := wireMessage{Role: role, Content: joinText(parts)}
	for _, p := range parts {
		if p.Type != llm.PartImage {
			continue
		}
		data, err := imageBytes(p)
		if err != nil {
			return wm, err
		}
		wm.Images = append(wm.Images, data)
	}
	return wm, nil
}

// imageBytes returns an image part's bytes, decoding a base64 data: URL.
func imageBytes(p llm.Part) ([]byte, error) {
	if len(p.Data) > 0 {
		return p.Data, nil
	}
	if rest, ok := strings.CutPrefix(p.URL, "data:"); ok {
		if _, b64, ok := strings.Cut(rest, ";base64,"); ok {
			data, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				return nil, errors.New("an image data: URL is not valid base64: attach the image again")
			}
			return data, nil
		}
	}
	if p.URL != "" {
		return nil, errors.New("image URLs cannot be sent to Ollama, which does not fetch them (" + p.URL + "): attach the image file instead")
	}
	return nil, errors.New("an image part has neither bytes nor a URL: attach the image again")
}

// joinText joins the text parts of a message, one per line.
func joinText(parts []llm.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type != llm.PartText || p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// assistantMessage maps an assistant message: text, reasoning as thinking,
// tool calls with object arguments.
func assistantMessage(m *llm.Message) wireMessage {
	wm := wireMessage{Role: "assistant", Content: joinText(m.Parts), Thinking: m.Reasoning()}
	for _, c := range m.ToolCalls() {
		args := c.Arguments
		if c.ArgsError != "" || len(args) == 0 || args[0] != '{' {
			args = json.RawMessage("{}") // Ollama accepts only an object here
		}
		wm.ToolCalls = append(wm.ToolCalls, wireToolCall{ID: c.ID, Function: wireFunction{Name: c.Name, Arguments: args}})
	}
	return wm
}

// toolMessages maps a tool message: one role `tool` message per result,
// then any text or images as a user message.
func toolMessages(m *llm.Message) ([]wireMessage, error) {
	var out []wireMessage
	var rest []llm.Part
	for _, p := range m.Parts {
		switch {
		case p.Type == llm.PartToolResult && p.ToolResult != nil:
			r := p.ToolResult
			out = append(out, wireMessage{Role: "tool", Content: r.Content, ToolName: r.Name, ToolCallID: r.CallID})
		case p.Type == llm.PartText || p.Type == llm.PartImage:
			rest = append(rest, p)
		}
	}
	if len(rest) > 0 {
		wm, err := userMessage("user", rest)
		if err != nil {
			return nil, err
		}
		out = append(out, wm)
	}
	return out, nil
}
