package llm

import (
	"encoding/json"
	"strings"
)

// Role is the author of a [Message].
type Role string

// The roles of a conversation. System text travels in [Request.System], not as
// a message; tool results travel in messages of role [RoleTool].
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// PartType says which fields of a [Part] are meaningful.
type PartType string

// The kinds of message part.
const (
	PartText       PartType = "text"
	PartImage      PartType = "image"
	PartDocument   PartType = "document"
	PartReasoning  PartType = "reasoning"
	PartToolCall   PartType = "tool_call"
	PartToolResult PartType = "tool_result"
)

// Part is one piece of a message. Type selects the meaningful fields:
//   - text: Text.
//   - image: MIMEType and Data (raw bytes; base64 in JSON) or URL.
//   - document: a file the model reads natively, MIMEType (application/pdf)
//     and Data; Text is its file name. Only for providers that take PDFs
//     (Anthropic, Gemini, OpenAI); the others drop it.
//   - reasoning: Text (the thinking/summary text), Signature (Anthropic thinking
//     signature, Gemini thought signature, or an OpenAI Responses
//     encrypted_content), Redacted (Anthropic redacted_thinking: Signature
//     then holds its opaque data), ID (an OpenAI Responses reasoning item id).
//   - tool_call: ToolCall.
//   - tool_result: ToolResult.
//
// Provider-specific opaque values are kept so the next request can send them
// back unchanged, as the providers require.
type Part struct {
	Type       PartType    `json:"type"`
	Text       string      `json:"text,omitempty"`
	MIMEType   string      `json:"mime_type,omitempty"`
	Data       []byte      `json:"data,omitempty"`
	URL        string      `json:"url,omitempty"`
	Signature  string      `json:"signature,omitempty"`
	Redacted   bool        `json:"redacted,omitempty"`
	ID         string      `json:"id,omitempty"`
	ToolCall   *ToolCall   `json:"tool_call,omitempty"`
	ToolResult *ToolResult `json:"tool_result,omitempty"`
}

// ToolCall is the model's request to run a tool.
//
// Arguments is the JSON object the model wrote. When the model wrote
// arguments that are not a JSON object, Arguments holds them as a JSON string
// and ArgsError says what is wrong, so the engine can send a tool error back
// to the model instead of running the tool. Signature is Gemini's
// thoughtSignature for this call (sent back unchanged on the next request).
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	ArgsError string          `json:"args_error,omitempty"`
	Signature string          `json:"signature,omitempty"`
}

// ToolResult answers a [ToolCall]: CallID is the call's ID, Name the tool's
// name (Gemini matches results by name), Content the text the model sees and
// IsError whether the tool failed.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Message is one turn of the conversation: a role and its parts, in order.
// Model names the model that wrote an assistant message, as
// "PROVIDER/MODEL" ("" for user and tool messages, and for messages saved
// before aidex recorded it). Wire formats never send it: it is aidex's
// record of who answered, for labels and per-model usage.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
	Model string `json:"model,omitempty"`
}

// Text returns the concatenated text parts of m.
func (m Message) Text() string {
	var n int
	for _, p := range m.Parts {
		if p.Type == PartText {
			n += len(p.Text)
		}
	}
	buf := make([]byte, 0, n)
	for _, p := range m.Parts {
		if p.Type == PartText {
			buf = append(buf, p.Text...)
		}
	}
	return string(buf)
}

// Reasoning returns the concatenated reasoning text of m.
func (m Message) Reasoning() string {
	var s string
	for _, p := range m.Parts {
		if p.Type == PartReasoning {
			s += p.Text
		}
	}
	return s
}

// ToolCalls returns the tool calls of m, in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if p.Type == PartToolCall && p.ToolCall != nil {
			calls = append(calls, *p.ToolCall)
		}
	}
	return calls
}

// UserText returns a user message holding one text part.
func UserText(s string) Message {
	return Message{Role: RoleUser, Parts: []Part{{Type: PartText, Text: s}}}
}

// AssistantText returns an assistant message holding one text part.
func AssistantText(s string) Message {
	return Message{Role: RoleAssistant, Parts: []Part{{Type: PartText, Text: s}}}
}

// ToolResults returns a tool message carrying results, in call order.
func ToolResults(results ...ToolResult) Message {
	parts := make([]Part, len(results))
	for i := range results {
		r := results[i]
		parts[i] = Part{Type: PartToolResult, ToolResult: &r}
	}
	return Message{Role: RoleTool, Parts: parts}
}

// Tool describes a tool offered to the model. Parameters is a JSON Schema
// object (`{"type":"object","properties":{...}}`).
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema is the parameters schema of a tool declared without any.
const emptySchema = `{"type":"object","properties":{}}`

// Schema returns t's parameters schema, or an empty object schema when t
// declares none (empty or JSON null), as every wire format requires one.
func (t Tool) Schema() json.RawMessage {
	if s := strings.TrimSpace(string(t.Parameters)); s == "" || s == "null" {
		return json.RawMessage(emptySchema)
	}
	return t.Parameters
}

// Request is one call to a model.
//
// MaxTokens is the output cap in tokens (0: the provider's default, or a
// client default where the API requires one). Temperature is nil for the
// provider's default. ReasoningEffort is "", "minimal", "low", "medium" or
// "high", mapped per wire format. ThinkingBudget is a token budget for
// Anthropic extended thinking and Gemini thinking (0: off unless
// ReasoningEffort asks). Stream selects streaming; non-streaming requests
// still report their content as events. CacheControl asks Anthropic for prompt
// caching on the system prompt, the tools and the recent messages.
// Verbosity is "", "low", "medium" or "high": how long OpenAI's reasoning
// models (gpt-5) answer (`verbosity` in Chat Completions, `text.verbosity`
// in Responses; other wire formats have no such field and leave it out).
type Request struct {
	Model           string
	System          string
	Messages        []Message
	Tools           []Tool
	MaxTokens       int
	Temperature     *float64
	ReasoningEffort string
	Verbosity       string
	ThinkingBudget  int
	Stream          bool
	CacheControl    bool
	// KeepRaw makes the client record the provider's raw response body,
	// or every chunk of a streamed one, in Response.Raw (for --raw). Off,
	// Raw stays empty: a long stream then holds no copy of its chunks.
	KeepRaw bool
}
