package llm

import (
	"encoding/json"
	"strings"
)

// EventType names an [Event] from a model.
type EventType string

// The normalized events every client reports.
const (
	// EventText carries a delta of the answer's text in Event.Text.
	EventText EventType = "text"
	// EventReasoning carries a delta of reasoning/thinking text in Event.Text.
	EventReasoning EventType = "reasoning"
	// EventToolCall carries one complete tool call (arguments assembled and
	// parsed) in Event.ToolCall.
	EventToolCall EventType = "tool_call"
	// EventUsage carries the token usage known so far in Event.Usage
	// (cumulative for the response, not a delta).
	EventUsage EventType = "usage"
	// EventFinish carries the provider's own finish reason in Event.FinishReason.
	EventFinish EventType = "finish"
)

// Event is one step of a model's answer as it streams.
type Event struct {
	Type         EventType
	Text         string
	ToolCall     *ToolCall
	Usage        *Usage
	FinishReason string
}

// Handler receives events as they arrive. It is called from the goroutine
// that runs [Provider.Generate]; it must not block for long.
type Handler func(Event)

// Usage counts tokens for one response.
//
// InputTokens is every prompt token, cached ones included (Anthropic's
// input_tokens + cache_read_input_tokens + cache_creation_input_tokens;
// OpenAI's prompt_tokens / input_tokens; Gemini's promptTokenCount; Ollama's
// prompt_eval_count). OutputTokens is every generated token, reasoning
// included (Gemini: candidatesTokenCount + thoughtsTokenCount). CacheReadTokens
// and CacheWriteTokens are the prompt tokens served from / written to the
// provider's prompt cache; ReasoningTokens the share of OutputTokens spent
// thinking, where the provider reports it.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
	// AcceptedPredictionTokens and RejectedPredictionTokens are the
	// output tokens of a Predicted Output (OpenAI's `prediction`) that
	// the answer used and did not use, as OpenAI-compatible hosts report
	// them in completion_tokens_details; both are counted in
	// OutputTokens already (rejected ones are billed as output too).
	AcceptedPredictionTokens int `json:"accepted_prediction_tokens,omitempty"`
	RejectedPredictionTokens int `json:"rejected_prediction_tokens,omitempty"`
}

// Add returns the sum of u and v, field by field.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,

		AcceptedPredictionTokens: u.AcceptedPredictionTokens + v.AcceptedPredictionTokens,
		RejectedPredictionTokens: u.RejectedPredictionTokens + v.RejectedPredictionTokens,
	}
}

// Total returns InputTokens + OutputTokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// Response is a model's complete answer: the assistant message (text,
// reasoning with signatures, tool calls in order), the provider's own finish
// reason string ("stop", "tool_calls", "end_turn", "STOP", "completed", ...),
// the token usage, and the response id and model the provider reported. Raw is
// the provider's raw response, for --raw output: the body, or for a streamed
// answer the JSON array of every chunk.
type Response struct {
	Message      Message
	FinishReason string
	Usage        Usage
	ID           string
	Model        string
	Raw          json.RawMessage
}

// Accumulator builds a [Response] from events while forwarding them to a
// handler. Clients report everything through it, so streaming and
// non-streaming answers are assembled the same way. The zero value is not
// usable; use [NewAccumulator].
type Accumulator struct {
	h    Handler
	resp Response
	text strings.Builder
	// reasoning buffers consecutive reasoning deltas into one part.
	reasoning strings.Builder
	last      PartType
	delivered bool
	// rawN counts the raw bodies or chunks recorded (SetRaw).
	rawN int
	// dropRaw: SetRaw records nothing (the request did not ask for Raw).
	dropRaw bool
}

// NewAccumulator returns an accumulator forwarding to h (h may be nil).
func NewAccumulator(h Handler) *Accumulator {
	a := &Accumulator{h: h}
	a.resp.Message.Role = RoleAssistant
	return a
}

// NewAccumulatorFor returns an accumulator for req forwarding to h (h may
// be nil): raw bodies and chunks are recorded only when req.KeepRaw is
// set. Wire-format clients use it in Generate.
func NewAccumulatorFor(req *Request, h Handler) *Accumulator {
	a := NewAccumulator(h)
	a.dropRaw = req != nil && !req.KeepRaw
	return a
}

func (a *Accumulator) emit(e Event) {
	if a.h != nil {
		a.h(e)
	}
}

// flush closes the text or reasoning part being built.
func (a *Accumulator) flush() {
	switch a.last {
	case PartText:
		if a.text.Len() > 0 {
			a.resp.Message.Parts = append(a.resp.Message.Parts, Part{Type: PartText, Text: a.text.String()})
		}
		a.text.Reset()
	case PartReasoning:
		a.resp.Message.Parts = append(a.resp.Message.Parts, Part{Type: PartReasoning, Text: a.reasoning.String()})
		a.reasoning.Reset()
	}
	a.last = ""
}

// Text records and forwards a text delta. Empty deltas are dropped.
func (a *Accumulator) Text(s string) {
	if s == "" {
		return
	}
	if a.last != PartText {
		a.flush()
		a.last = PartText
	}
	a.text.WriteString(s)
	a.delivered = true
	a.emit(Event{Type: EventText, Text: s})
}

// Reasoning records and forwards a reasoning delta. Empty deltas are dropped.
func (a *Accumulator) Reasoning(s string) {
	if s == "" {
		return
	}
	if a.last != PartReasoning {
		a.flush()
		a.last = PartReasoning
	}
	a.reasoning.WriteString(s)
	a.delivered = true
	a.emit(Event{Type: EventReasoning, Text: s})
}

// ReasoningSignature attaches an opaque signature (and, for OpenAI Responses,
// an item id) to the reasoning part being built, or adds an empty-text
// reasoning part carrying it when none is open (Anthropic redacted thinking,
// encrypted reasoning with no summary).
func (a *Accumulator) ReasoningSignature(sig, id string, redacted bool) {
	if a.last != PartReasoning {
		a.flush()
		a.resp.Message.Parts = append(a.resp.Message.Parts, Part{Type: PartReasoning, Signature: sig, ID: id, Redacted: redacted})
		return
	}
	a.resp.Message.Parts = append(a.resp.Message.Parts, Part{Type: PartReasoning, Text: a.reasoning.String(), Signature: sig, ID: id, Redacted: redacted})
	a.reasoning.Reset()
	a.last = ""
}

// ToolCall records and forwards one complete tool call. Arguments that are
// empty become `{}`; arguments that are not a JSON object are kept as a JSON
// string with ArgsError set.
func (a *Accumulator) ToolCall(c ToolCall) {
	a.flush()
	c.Arguments, c.ArgsError = NormalizeArguments(c.Arguments)
	a.resp.Message.Parts = append(a.resp.Message.Parts, Part{Type: PartToolCall, ToolCall: &c})
	a.delivered = true
	a.emit(Event{Type: EventToolCall, ToolCall: &c})
}

// Usage records and forwards the usage known so far (cumulative).
func (a *Accumulator) Usage(u Usage) {
	a.resp.Usage = u
	a.emit(Event{Type: EventUsage, Usage: &u})
}

// Finish records and forwards the provider's finish reason. Empty reasons are
// ignored so a later empty chunk does not erase an earlier reason.
func (a *Accumulator) Finish(reason string) {
	if reason == "" {
		return
	}
	a.resp.FinishReason = reason
	a.emit(Event{Type: EventFinish, FinishReason: reason})
}

// SetMeta records the response id and model, where the provider reports them.
func (a *Accumulator) SetMeta(id, model string) {
	if id != "" {
		a.resp.ID = id
	}
	if model != "" {
		a.resp.Model = model
	}
}

// SetRaw records a raw response body or stream chunk (a JSON value): the
// first is the response's Raw; with more (a streamed answer) Raw is the
// JSON array of all of them, in order, so --raw shows the whole response.
// An accumulator of a request without KeepRaw records nothing.
func (a *Accumulator) SetRaw(raw []byte) {
	if a.dropRaw {
		return
	}
	a.rawN++
	switch a.rawN {
	case 1:
		a.resp.Raw = append(a.resp.Raw[:0], raw...)
	case 2:
		first := a.resp.Raw
		a.resp.Raw = make([]byte, 0, 2*(len(first)+len(raw))+3)
		a.resp.Raw = append(append(append(append(append(a.resp.Raw, '['), first...), ','), raw...), ']')
	default:
		a.resp.Raw = append(append(append(a.resp.Raw[:len(a.resp.Raw)-1], ','), raw...), ']')
	}
}

// Delivered reports whether any text, reasoning or tool call has been
// forwarded; a request is never retried after that.
func (a *Accumulator) Delivered() bool { return a.delivered }

// Response returns the response assembled so far. It may be called after an
// error to keep the partial answer.
func (a *Accumulator) Response() *Response {
	a.flush()
	r := a.resp
	r.Message.Parts = append([]Part(nil), a.resp.Message.Parts...)
	return &r
}

// NormalizeArguments checks that raw is a JSON object. Empty input becomes
// `{}`. Input that is a JSON string holding an object (double-encoded
// arguments, as some hosts send) is decoded once. Anything else is returned
// as a JSON string with a message for the model.
func NormalizeArguments(raw json.RawMessage) (json.RawMessage, string) {
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "" || trimmed == "null" {
		return json.RawMessage("{}"), ""
	}
	if trimmed[0] == '{' && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed), ""
	}
	if trimmed[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(trimmed), &inner) == nil {
			inner = strings.TrimSpace(inner)
			if strings.HasPrefix(inner, "{") && json.Valid([]byte(inner)) {
				return json.RawMessage(inner), ""
			}
		}
	}
	quoted, _ := json.Marshal(string(raw))
	return quoted, "the tool call's arguments are not a valid JSON object; send the arguments as one JSON object matching the tool's schema"
}
