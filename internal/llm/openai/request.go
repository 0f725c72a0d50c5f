package openai

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []wireMessage   `json:"messages"`
	Tools               []wireTool      `json:"tools,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	Verbosity           string          `json:"verbosity,omitempty"`
	Reasoning           *reasoningParam `json:"reasoning,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// reasoningParam is OpenRouter's `reasoning` request object.
type reasoningParam struct {
	Effort    string `json:"effort,omitempty"`
	MaxTokens int    `json:"max_tokens,omitempty"`
}

// wireMessage is one message sent. Content is a string, a []contentPart, or
// nil (JSON null: an assistant message holding only tool calls).
type wireMessage struct {
	Role             string            `json:"role"`
	Content          any               `json:"content"`
	ToolCalls        []wireToolCall    `json:"tool_calls,omitempty"`
	ToolCallID       string            `json:"tool_call_id,omitempty"`
	ReasoningContent *string           `json:"reasoning_content,omitempty"`
	ReasoningDetails []reasoningDetail `json:"reasoning_details,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	File     *fileData `json:"file,omitempty"`
}

// fileData is a file content part (a PDF):
// https://platform.openai.com/docs/guides/pdf-files.
type fileData struct {
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
}

type imageURL struct {
	URL string `json:"url"`
}

type wireToolCall struct {
	ID           string        `json:"id"`
	Type         string        `json:"type"`
	Function     wireFunction  `json:"function"`
	ExtraContent *extraContent `json:"extra_content,omitempty"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// extraContent carries Gemini's thought signature on its OpenAI-compatible
// endpoint (https://ai.google.dev/gemini-api/docs/thought-signatures).
type extraContent struct {
	Google *struct {
		ThoughtSignature text `json:"thought_signature"`
	} `json:"google,omitempty"`
}

func googleSignature(sig string) *extraContent {
	e := &extraContent{Google: &struct {
		ThoughtSignature text `json:"thought_signature"`
	}{}}
	e.Google.ThoughtSignature = text(sig)
	return e
}

func (e *extraContent) signature() string {
	if e == nil || e.Google == nil {
		return ""
	}
	return string(e.Google.ThoughtSignature)
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

// reasoningDetail is one entry of OpenRouter's `reasoning_details`
// (https://openrouter.ai/docs/use-cases/reasoning-tokens): type
// "reasoning.text" (text, signature), "reasoning.summary" (summary) or
// "reasoning.encrypted" (data), with the provider's id and format.
type reasoningDetail struct {
	Type      text `json:"type"`
	Text      text `json:"text,omitempty"`
	Summary   text `json:"summary,omitempty"`
	Signature text `json:"signature,omitempty"`
	Data      text `json:"data,omitempty"`
	ID        text `json:"id,omitempty"`
	Format    text `json:"format,omitempty"`
	Index     int  `json:"index"`
}

// buildRequest maps req onto the wire for a host with quirks q.
func buildRequest(req *llm.Request, q quirks) (*chatRequest, error) {
	if strings.TrimSpace(req.Model) == "" {
		return nil, errors.New("no model given: set the model for this provider in the config or with --model")
	}
	wr := &chatRequest{Model: req.Model, Stream: req.Stream, Temperature: req.Temperature}
	if req.Stream && !q.noStreamOptions {
		wr.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	wr.Verbosity = strings.ToLower(strings.TrimSpace(req.Verbosity))
	if req.MaxTokens > 0 {
		if q.maxCompletionTokens || ReasoningModel(req.Model) {
			wr.MaxCompletionTokens = req.MaxTokens
		} else {
			wr.MaxTokens = req.MaxTokens
		}
	}
	setEffort(wr, req, q)
	if req.System != "" {
		wr.Messages = append(wr.Messages, wireMessage{Role: "system", Content: req.System})
	}
	for i := range req.Messages {
		msgs, err := encodeMessage(&req.Messages[i], q)
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
func buildBody(req *llm.Request, q quirks, cache *llm.WireCache) (*llm.Spliced, error) {
	head := *req
	head.Messages = nil
	wr, err := buildRequest(&head, q)
	if err != nil {
		return nil, err
	}
	items, err := llm.EncodeList(cache, req.Messages, func(m *llm.Message) ([]wireMessage, error) { return encodeMessage(m, q) })
	if err != nil {
		return nil, err
	}
	sys := wr.Messages // the system prompt
	wr.Messages = nil
	return llm.SpliceAfter(wr, "messages", sys, items, true)
}

// setEffort sends the reasoning effort the way the host takes it. A
// thinking budget without an effort reaches only hosts with OpenRouter's
// `reasoning` object (as max_tokens); Chat Completions has no budget field.
func setEffort(wr *chatRequest, req *llm.Request, q quirks) {
	effort := strings.ToLower(strings.TrimSpace(req.ReasoningEffort))
	switch q.effort {
	case effortParam:
		wr.ReasoningEffort = effort
	case effortObject:
		if effort != "" {
			wr.Reasoning = &reasoningParam{Effort: effort}
		} else if req.ThinkingBudget > 0 {
			wr.Reasoning = &reasoningParam{MaxTokens: req.ThinkingBudget}
		}
	}
}

// encodeMessage maps one message onto one or more wire messages (a tool
// message becomes one message per result).
func encodeMessage(m *llm.Message, q quirks) ([]wireMessage, error) {
	switch m.Role {
	case llm.RoleAssistant:
		return []wireMessage{encodeAssistant(m, q)}, nil
	case llm.RoleTool:
		return encodeToolResults(m)
	case llm.RoleUser, "":
		content, err := encodeContent(m.Parts)
		if err != nil {
			return nil, err
		}
		return []wireMessage{{Role: "user", Content: content}}, nil
	}
	return nil, errors.New("unknown message role " + string(m.Role) + ": use user, assistant or tool")
}

// encodeContent returns the user content: a plain string when there is no
// image (every host takes that), else a list of text and image_url parts.
func encodeContent(parts []llm.Part) (any, error) {
	hasImage := false
	for _, p := range parts {
		if p.Type == llm.PartImage || p.Type == llm.PartDocument {
			hasImage = true
			break
		}
	}
	if !hasImage {
		return joinText(parts), nil
	}
	out := make([]contentPart, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				out = append(out, contentPart{Type: "text", Text: p.Text})
			}
		case llm.PartImage:
			u, err := imageURLOf(p)
			if err != nil {
				return nil, err
			}
			out = append(out, contentPart{Type: "image_url", ImageURL: &imageURL{URL: u}})
		case llm.PartDocument:
			if len(p.Data) > 0 {
				out = append(out, contentPart{Type: "file", File: &fileData{Filename: p.Text,
					FileData: "data:" + p.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)}})
			}
		}
	}
	return out, nil
}

// imageURLOf returns the URL of an image part: its bytes as a data URL, or
// its URL.
func imageURLOf(p llm.Part) (string, error) {
	if len(p.Data) > 0 {
		mime := p.MIMEType
		if mime == "" {
			mime = http.DetectContentType(p.Data)
		}
		return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(p.Data), nil
	}
	if p.URL != "" {
		return p.URL, nil
	}
	return "", errors.New("an image part has neither bytes nor a URL: attach the image again")
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

// encodeAssistant maps an assistant message: its text, its tool calls, and
// its reasoning where the host wants it back.
func encodeAssistant(m *llm.Message, q quirks) wireMessage {
	wm := wireMessage{Role: "assistant"}
	if s := joinText(m.Parts); s != "" {
		wm.Content = s
	}
	for _, p := range m.Parts {
		if p.Type != llm.PartToolCall || p.ToolCall == nil {
			continue
		}
		tc := wireToolCall{ID: p.ToolCall.ID, Type: "function", Function: wireFunction{Name: p.ToolCall.Name, Arguments: argumentsString(p.ToolCall)}}
		if q.thoughtSignatures && p.ToolCall.Signature != "" {
			tc.ExtraContent = googleSignature(p.ToolCall.Signature)
		}
		wm.ToolCalls = append(wm.ToolCalls, tc)
	}
	switch q.echo {
	case echoContent:
		// DeepSeek's thinking mode answers 400 when an assistant message
		// with tool calls lacks reasoning_content, even an empty one.
		if r := m.Reasoning(); r != "" || len(wm.ToolCalls) > 0 {
			wm.ReasoningContent = &r
		}
	case echoDetails:
		wm.ReasoningDetails = encodeDetails(m.Parts)
	}
	return wm
}

// argumentsString returns a tool call's arguments as the JSON string the
// wire wants; arguments the model got wrong (ArgsError set) go back as the
// text it wrote.
func argumentsString(c *llm.ToolCall) string {
	if c.ArgsError != "" {
		var s string
		if json.Unmarshal(c.Arguments, &s) == nil {
			return s
		}
	}
	if len(c.Arguments) == 0 {
		return "{}"
	}
	return string(c.Arguments)
}

// encodeDetails rebuilds `reasoning_details` from reasoning parts: a
// redacted part (encrypted data in Signature) becomes its summary, if any,
// and a reasoning.encrypted entry; any other becomes reasoning.text with its
// signature. The detail's format travels in Part.ID (see splitDetailID).
func encodeDetails(parts []llm.Part) []reasoningDetail {
	var out []reasoningDetail
	idx := 0
	for _, p := range parts {
		if p.Type != llm.PartReasoning || (p.Text == "" && p.Signature == "") {
			continue
		}
		format, id := splitDetailID(p.ID)
		base := reasoningDetail{ID: text(id), Format: text(format), Index: idx}
		if p.Redacted {
			if p.Text != "" {
				d := base
				d.Type, d.Summary = "reasoning.summary", text(p.Text)
				out = append(out, d)
			}
			d := base
			d.Type, d.Data = "reasoning.encrypted", text(p.Signature)
			out = append(out, d)
		} else {
			d := base
			d.Type, d.Text, d.Signature = "reasoning.text", text(p.Text), text(p.Signature)
			out = append(out, d)
		}
		idx++
	}
	return out
}

// joinDetailID stores a reasoning detail's format with its id in Part.ID
// ("format|id"), since the part has no field of its own for it and
// OpenRouter needs the format back to route the signature.
func joinDetailID(format, id string) string {
	if format == "" {
		return id
	}
	return format + "|" + id
}

// splitDetailID undoes joinDetailID.
func splitDetailID(s string) (format, id string) {
	if f, rest, ok := strings.Cut(s, "|"); ok {
		return f, rest
	}
	return "", s
}

// encodeToolResults maps a tool message: one role `tool` message per
// result, then any text or images as a user message (Chat Completions tool
// results carry text only).
func encodeToolResults(m *llm.Message) ([]wireMessage, error) {
	var out []wireMessage
	var rest []llm.Part
	for _, p := range m.Parts {
		if p.Type == llm.PartToolResult && p.ToolResult != nil {
			out = append(out, wireMessage{Role: "tool", ToolCallID: p.ToolResult.CallID, Content: p.ToolResult.Content})
			continue
		}
		if p.Type == llm.PartText || p.Type == llm.PartImage {
			rest = append(rest, p)
		}
	}
	if len(rest) > 0 {
		content, err := encodeContent(rest)
		if err != nil {
			return nil, err
		}
		out = append(out, wireMessage{Role: "user", Content: content})
	}
	return out, nil
}

// ReasoningModel reports whether model is one of OpenAI's reasoning
// models, the o-series (o1, o3, o4-mini, ...) and gpt-5 (not
// gpt-5-chat), also behind a gateway's prefix ("openai/gpt-5"). They take
// the output cap only as `max_completion_tokens`, on every host.
func ReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if strings.HasPrefix(m, "gpt-5") {
		return !strings.HasPrefix(m, "gpt-5-chat")
	}
	return len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9'
}
