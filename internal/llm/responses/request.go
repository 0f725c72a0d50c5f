package responses

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// Wire types of the request body
// (https://platform.openai.com/docs/api-reference/responses/create).

type request struct {
	Model           string     `json:"model"`
	Instructions    string     `json:"instructions,omitempty"`
	Input           []any      `json:"input"`
	Tools           []tool     `json:"tools,omitempty"`
	Reasoning       *reasoning `json:"reasoning,omitempty"`
	MaxOutputTokens int        `json:"max_output_tokens,omitempty"`
	Temperature     *float64   `json:"temperature,omitempty"`
	Store           bool       `json:"store"`
	Include         []string   `json:"include,omitempty"`
	Stream          bool       `json:"stream,omitempty"`
	Text            *textParam `json:"text,omitempty"`
}

// textParam is the Responses API's `text` object; aidex sends only its
// verbosity.
type textParam struct {
	Verbosity string `json:"verbosity"`
}

type messageItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type imageContent struct {
	Type     string `json:"type"`
	ImageURL string `json:"image_url"`
}

// fileContent is an input_file part (a PDF):
// https://platform.openai.com/docs/guides/pdf-files.
type fileContent struct {
	Type     string `json:"type"`
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
}

type functionCallItem struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionCallOutputItem struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type reasoningItem struct {
	Type             string        `json:"type"`
	Summary          []summaryText `json:"summary"`
	EncryptedContent string        `json:"encrypted_content"`
}

type summaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type reasoning struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

// includeEncryptedReasoning asks for reasoning items' encrypted content, so
// that reasoning can be sent back without server-side storage.
const includeEncryptedReasoning = "reasoning.encrypted_content"

// buildRequest converts req to the wire request.
func buildRequest(req *llm.Request) (*request, error) {
	if req.Model == "" {
		return nil, errors.New("no model given: set the model in the configuration or with --model")
	}
	out, err := buildHead(req)
	if err != nil {
		return nil, err
	}
	out.Input = buildInput(req.Messages)
	if len(out.Input) == 0 {
		return nil, errNoInput
	}
	return out, nil
}

// errNoInput is the error of a request without any input item.
var errNoInput = errors.New("the request has no message content to send: add a user message")

// buildBody is [buildRequest] with the conversation encoded message by
// message through cache (nil: no cache): the body of the request sent.
func buildBody(req *llm.Request, cache *llm.WireCache) (*llm.Spliced, error) {
	if req.Model == "" {
		return nil, errors.New("no model given: set the model in the configuration or with --model")
	}
	items, err := cache.Encode(req.Messages, func(m *llm.Message) ([]byte, error) {
		return llm.MarshalList(buildInput([]llm.Message{*m}))
	})
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(items, func(it llm.Wire) bool { return it.Len() > 0 }) {
		return nil, errNoInput
	}
	out, err := buildHead(req)
	if err != nil {
		return nil, err
	}
	return &llm.Spliced{Head: out, Field: "input", Items: items}, nil
}

// buildHead is the request but its input.
func buildHead(req *llm.Request) (*request, error) {
	out := &request{
		Model:        req.Model,
		Instructions: req.System,
		Temperature:  req.Temperature,
		Stream:       req.Stream,
	}
	if req.MaxTokens > 0 {
		out.MaxOutputTokens = req.MaxTokens
	}
	if v := strings.ToLower(strings.TrimSpace(req.Verbosity)); v != "" {
		out.Text = &textParam{Verbosity: v}
	}
	if effort := strings.ToLower(strings.TrimSpace(req.ReasoningEffort)); effort != "" {
		out.Reasoning = &reasoning{Effort: effort, Summary: "detailed"}
	}
	if out.Reasoning != nil || isReasoningModel(req.Model) {
		out.Include = []string{includeEncryptedReasoning}
	}
	tools, err := buildTools(req.Tools)
	if err != nil {
		return nil, err
	}
	out.Tools = tools
	return out, nil
}

// isReasoningModel reports whether model names an OpenAI reasoning model
// (o1/o3/o4 series, gpt-5 and later, codex, gpt-oss), which return reasoning
// items even when no effort is set. Other models reject the encrypted
// reasoning include.
func isReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"o1", "o3", "o4"} {
		if m == p || strings.HasPrefix(m, p+"-") {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(m, "gpt-"); ok {
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		if end > 0 && (end > 1 || rest[0] >= '5') {
			return true
		}
	}
	return strings.Contains(m, "codex") || strings.HasPrefix(m, "gpt-oss")
}

// buildInput converts the conversation into input items, in order.
func buildInput(msgs []llm.Message) []any {
	var items []any
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleAssistant:
			items = appendAssistant(items, m.Parts)
		default:
			items = appendUser(items, m.Parts)
		}
	}
	return items
}

// appendUser adds a user message item (text and images) and the
// function_call_output items of any tool results, in order.
func appendUser(items []any, parts []llm.Part) []any {
	var content []any
	flush := func() {
		if len(content) > 0 {
			items = append(items, messageItem{Type: "message", Role: "user", Content: content})
			content = nil
		}
	}
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				content = append(content, textContent{Type: "input_text", Text: p.Text})
			}
		case llm.PartImage:
			if u := imageURL(p); u != "" {
				content = append(content, imageContent{Type: "input_image", ImageURL: u})
			}
		case llm.PartDocument:
			if len(p.Data) > 0 {
				content = append(content, fileContent{Type: "input_file", Filename: p.Text,
					FileData: "data:" + p.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)})
			}
		case llm.PartToolResult:
			if p.ToolResult != nil {
				flush()
				items = append(items, functionCallOutputItem{Type: "function_call_output", CallID: p.ToolResult.CallID, Output: p.ToolResult.Content})
			}
		}
	}
	flush()
	return items
}

// imageURL returns the image's URL, or a data URL of its bytes.
func imageURL(p llm.Part) string {
	if len(p.Data) > 0 {
		mime := p.MIMEType
		if mime == "" {
			mime = "image/png"
		}
		return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
	}
	return p.URL
}

// appendAssistant adds the items of an assistant message: output text
// messages, reasoning items and function calls, in order.
func appendAssistant(items []any, parts []llm.Part) []any {
	var text []any
	flush := func() {
		if len(text) > 0 {
			items = append(items, messageItem{Type: "message", Role: "assistant", Content: text})
			text = nil
		}
	}
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				text = append(text, textContent{Type: "output_text", Text: p.Text})
			}
		case llm.PartReasoning:
			if ri, ok := reasoningInput(p); ok {
				flush()
				items = append(items, ri)
			}
		case llm.PartToolCall:
			if p.ToolCall != nil {
				flush()
				items = append(items, functionCallItem{Type: "function_call", CallID: p.ToolCall.ID, Name: p.ToolCall.Name, Arguments: callArguments(*p.ToolCall)})
			}
		}
	}
	flush()
	return items
}

// reasoningInput returns the reasoning item for a reasoning part that came
// from this API with encrypted content (see the package comment).
func reasoningInput(p llm.Part) (reasoningItem, bool) {
	if p.Signature == "" || p.ID == "" || p.Redacted {
		return reasoningItem{}, false
	}
	ri := reasoningItem{Type: "reasoning", Summary: []summaryText{}, EncryptedContent: p.Signature}
	if p.Text != "" {
		ri.Summary = append(ri.Summary, summaryText{Type: "summary_text", Text: p.Text})
	}
	return ri, true
}

// callArguments returns the arguments as the model wrote them: the JSON
// object, or the original text of arguments that were not one.
func callArguments(tc llm.ToolCall) string {
	if tc.ArgsError != "" {
		var s string
		if json.Unmarshal(tc.Arguments, &s) == nil {
			return s
		}
	}
	if len(tc.Arguments) == 0 {
		return "{}"
	}
	return string(tc.Arguments)
}

// buildTools converts the tool definitions to function tools.
func buildTools(tools []llm.Tool) ([]tool, error) {
	out := make([]tool, 0, len(tools))
	for _, t := range tools {
		if t.Name == "" {
			return nil, errors.New("a tool has no name: every tool offered to the model needs one")
		}
		params := t.Schema()
		if !json.Valid(params) {
			return nil, fmt.Errorf("tool %q: the parameters schema is not valid JSON", t.Name)
		}
		out = append(out, tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params, Strict: false})
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
