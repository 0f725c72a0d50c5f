package anthropic

import (
	"encoding/json"
	"net/http"
	"sort"

	"github.com/zelvior/aidex/internal/llm"
)

// The request body of POST /messages
// (https://docs.anthropic.com/en/api/messages).
type wireRequest struct {
	Model       string        `json:"model"`
	MaxTokens   int           `json:"max_tokens"`
	System      []wireBlock   `json:"system,omitempty"`
	Messages    []wireMessage `json:"messages"`
	Tools       []wireTool    `json:"tools,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	Thinking    *wireThinking `json:"thinking,omitempty"`
	Stream      bool          `json:"stream,omitempty"`
}

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type cacheControl struct {
	Type string `json:"type"`
}

// ephemeral is the only cache_control type the API defines.
func ephemeral() *cacheControl { return &cacheControl{Type: "ephemeral"} }

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

// wireBlock is one request content block; Type selects the fields used.
// Thinking is a pointer because a thinking block must carry the field even
// when its text is empty (thinking display omitted).
type wireBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      string          `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// imageSource is `{type: "base64", media_type, data}` or `{type: "url", url}`.
type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      []byte `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// buildRequest maps req onto the wire request (see the package doc).
func buildRequest(req *llm.Request) (*wireRequest, error) {
	budget, err := ThinkingBudget(req)
	if err != nil {
		return nil, err
	}
	wr := &wireRequest{
		Model:     req.Model,
		MaxTokens: MaxTokens(req, budget),
		Messages:  buildMessages(req.Messages),
		Tools:     buildTools(req.Tools),
		Stream:    req.Stream,
	}
	if req.System != "" {
		wr.System = []wireBlock{{Type: "text", Text: req.System}}
	}
	if budget > 0 {
		wr.Thinking = &wireThinking{Type: "enabled", BudgetTokens: budget}
	} else {
		wr.Temperature = req.Temperature
	}
	if req.CacheControl {
		markCache(wr)
	}
	return wr, nil
}

func buildTools(tools []llm.Tool) []wireTool {
	if len(tools) == 0 {
		return nil
	}
	out := make([]wireTool, len(tools))
	for i, t := range tools {
		out[i] = wireTool{Name: t.Name, Description: t.Description, InputSchema: t.Schema()}
	}
	return out
}

// buildMessages converts the conversation, merging consecutive messages of
// the same wire role and dropping messages left without blocks.
func buildMessages(msgs []llm.Message) []wireMessage {
	out := make([]wireMessage, 0, len(msgs))
	for _, m := range msgs {
		role := "user"
		if m.Role == llm.RoleAssistant {
			role = "assistant"
		}
		blocks := buildBlocks(m)
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, wireMessage{Role: role, Content: blocks})
	}
	for i := range out {
		if out[i].Role == "user" {
			toolResultsFirst(out[i].Content)
		}
	}
	return out
}

// toolResultsFirst moves tool_result blocks before the other blocks of a
// user message, keeping each group's order: the API rejects a user message
// where text precedes the results of the previous turn's tool calls.
func toolResultsFirst(blocks []wireBlock) {
	sort.SliceStable(blocks, func(i, j int) bool {
		return blocks[i].Type == "tool_result" && blocks[j].Type != "tool_result"
	})
}

func buildBlocks(m llm.Message) []wireBlock {
	blocks := make([]wireBlock, 0, len(m.Parts))
	for _, p := range m.Parts {
		if b, ok := buildBlock(p, m.Role == llm.RoleAssistant); ok {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// buildBlock converts one part; ok is false for parts the API cannot take
// (empty text, unsigned or misplaced reasoning, empty images).
func buildBlock(p llm.Part, assistant bool) (wireBlock, bool) {
	switch p.Type {
	case llm.PartText:
		return wireBlock{Type: "text", Text: p.Text}, p.Text != ""
	case llm.PartImage:
		return imageBlock(p)
	case llm.PartDocument:
		// https://docs.anthropic.com/en/docs/build-with-claude/pdf-support
		return wireBlock{Type: "document", Source: &imageSource{Type: "base64", MediaType: p.MIMEType, Data: p.Data}}, len(p.Data) > 0
	case llm.PartReasoning:
		if !assistant || p.Signature == "" {
			return wireBlock{}, false
		}
		if p.Redacted {
			return wireBlock{Type: "redacted_thinking", Data: p.Signature}, true
		}
		text := p.Text
		return wireBlock{Type: "thinking", Thinking: &text, Signature: p.Signature}, true
	case llm.PartToolCall:
		if p.ToolCall == nil {
			return wireBlock{}, false
		}
		return toolUseBlock(*p.ToolCall), true
	case llm.PartToolResult:
		if p.ToolResult == nil {
			return wireBlock{}, false
		}
		r := p.ToolResult
		return wireBlock{Type: "tool_result", ToolUseID: toolID(r.CallID), Content: r.Content, IsError: r.IsError}, true
	}
	return wireBlock{}, false
}

func imageBlock(p llm.Part) (wireBlock, bool) {
	if len(p.Data) > 0 {
		mt := p.MIMEType
		if mt == "" {
			mt = http.DetectContentType(p.Data)
		}
		return wireBlock{Type: "image", Source: &imageSource{Type: "base64", MediaType: mt, Data: p.Data}}, true
	}
	if p.URL != "" {
		return wireBlock{Type: "image", Source: &imageSource{Type: "url", URL: p.URL}}, true
	}
	return wireBlock{}, false
}

// toolUseBlock sends a call back as the model wrote it. Arguments that are
// not a JSON object (ArgsError set) become `{}`: the API requires an object,
// and the tool result already told the model what was wrong.
func toolUseBlock(c llm.ToolCall) wireBlock {
	input := c.Arguments
	if c.ArgsError != "" {
		input = json.RawMessage("{}")
	} else if norm, msg := llm.NormalizeArguments(input); msg == "" {
		input = norm
	} else {
		input = json.RawMessage("{}")
	}
	return wireBlock{Type: "tool_use", ID: toolID(c.ID), Name: c.Name, Input: input}
}

// toolID makes a tool call id acceptable to the API (^[a-zA-Z0-9_-]+$), for
// ids written by other providers; calls and results map alike. An empty id
// becomes "toolu_empty".
func toolID(id string) string {
	if id == "" {
		return "toolu_empty"
	}
	ok := true
	for i := 0; i < len(id) && ok; i++ {
		ok = idByte(id[i])
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i := range b {
		if !idByte(b[i]) {
			b[i] = '_'
		}
	}
	return string(b)
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// markCache sets the prompt-caching breakpoints: the system block, the last
// tool, and the last block of the last two user messages (4 at most).
func markCache(wr *wireRequest) {
	if n := len(wr.System); n > 0 {
		wr.System[n-1].CacheControl = ephemeral()
	}
	if n := len(wr.Tools); n > 0 {
		wr.Tools[n-1].CacheControl = ephemeral()
	}
	marked := 0
	for i := len(wr.Messages) - 1; i >= 0 && marked < 2; i-- {
		m := &wr.Messages[i]
		if m.Role != "user" || len(m.Content) == 0 {
			continue
		}
		m.Content[len(m.Content)-1].CacheControl = ephemeral()
		marked++
	}
}
