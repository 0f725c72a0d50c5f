package responses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/sse"
)

// Wire types of the response object and stream events
// (https://platform.openai.com/docs/api-reference/responses/object,
// https://platform.openai.com/docs/api-reference/responses-streaming).

type response struct {
	ID                string          `json:"id"`
	Model             string          `json:"model"`
	Status            string          `json:"status"`
	Output            []outItem       `json:"output"`
	Usage             *usage          `json:"usage"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

type outItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Content          []itemContent   `json:"content"`
	Summary          []itemContent   `json:"summary"`
	EncryptedContent string          `json:"encrypted_content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Input            string          `json:"input"`
	Action           json.RawMessage `json:"action"`
}

type itemContent struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

type usage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

func (u *usage) toUsage() llm.Usage {
	return llm.Usage{
		InputTokens:     u.InputTokens,
		OutputTokens:    u.OutputTokens,
		CacheReadTokens: u.InputTokensDetails.CachedTokens,
		ReasoningTokens: u.OutputTokensDetails.ReasoningTokens,
	}
}

type event struct {
	Type      string          `json:"type"`
	Delta     string          `json:"delta"`
	ItemID    string          `json:"item_id"`
	Item      *outItem        `json:"item"`
	Response  *response       `json:"response"`
	Arguments string          `json:"arguments"`
	Code      json.RawMessage `json:"code"`
	Message   string          `json:"message"`
	Error     json.RawMessage `json:"error"`
}

// state assembles one response from events.
type state struct {
	acc      *llm.Accumulator
	name     string
	args     map[string]*strings.Builder // function call arguments by item id
	streamed map[string]bool             // items whose content arrived as deltas
	items    int                         // output items completed
	usage    *usage
	finish   string
	done     bool
}

func newState(acc *llm.Accumulator, name string) *state {
	return &state{acc: acc, name: name, args: map[string]*strings.Builder{}, streamed: map[string]bool{}}
}

// result reports the usage and finish reason and returns the response.
func (s *state) result(ctx context.Context, req *llm.Request, err error) (*llm.Response, error) {
	if s.usage != nil {
		s.acc.Usage(s.usage.toUsage())
	}
	if err == nil {
		s.acc.Finish(s.finish)
	}
	return llm.Finish(ctx, s.acc, req, err)
}

// readBody reads a non-streamed response object.
func (s *state) readBody(b *llm.Body) error {
	data, err := llm.ReadAll(b)
	if err != nil {
		return err
	}
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return s.malformed("response body", err)
	}
	s.acc.SetRaw(data)
	for i := range r.Output {
		s.item(&r.Output[i])
	}
	return s.final(&r)
}

// readStream reads Server-Sent Events until the response ends.
func (s *state) readStream(r io.Reader) error {
	rd := sse.NewReader(r)
	for !s.done {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return &llm.APIError{Provider: s.name, Kind: llm.KindStreamCut, Message: "the stream ended before the answer was complete (no response.completed event)"}
		}
		if err != nil {
			return err
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		if err := s.event(data); err != nil {
			return err
		}
	}
	return nil
}

func (s *state) malformed(what string, err error) error {
	return &llm.APIError{Provider: s.name, Kind: llm.KindStream, Message: "malformed " + what + ": " + err.Error(), Err: err}
}

// event handles one stream event.
func (s *state) event(data []byte) error {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return s.malformed("stream event", err)
	}
	s.acc.SetRaw(data)
	switch ev.Type {
	case "response.created", "response.in_progress":
		if ev.Response != nil {
			s.acc.SetMeta(ev.Response.ID, ev.Response.Model)
		}
	case "response.output_text.delta", "response.refusal.delta":
		s.streamed[ev.ItemID] = true
		s.acc.Text(ev.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		s.streamed[ev.ItemID] = true
		s.acc.Reasoning(ev.Delta)
	case "response.function_call_arguments.delta":
		s.argBuilder(ev.ItemID).WriteString(ev.Delta)
	case "response.function_call_arguments.done":
		b := s.argBuilder(ev.ItemID)
		b.Reset()
		b.WriteString(ev.Arguments)
	case "response.output_item.done":
		if ev.Item != nil {
			s.item(ev.Item)
		}
	case "response.completed", "response.incomplete", "response.failed":
		if ev.Response == nil {
			return s.malformed("stream event", errors.New(ev.Type+" without a response"))
		}
		if ev.Type == "response.failed" && ev.Response.Status == "" {
			ev.Response.Status = "failed"
		}
		if s.items == 0 {
			for i := range ev.Response.Output { // hosts that send only the final object
				s.item(&ev.Response.Output[i])
			}
		}
		s.done = true
		return s.final(ev.Response)
	case "error":
		return s.failure(ev.errorPayload(), "the stream reported an error")
	}
	return nil
}

func (s *state) argBuilder(id string) *strings.Builder {
	b := s.args[id]
	if b == nil {
		b = &strings.Builder{}
		s.args[id] = b
	}
	return b
}

// errorPayload returns the error object of an `error` event, which carries
// it either nested or at the top level.
func (ev *event) errorPayload() json.RawMessage {
	if len(ev.Error) > 0 && string(ev.Error) != "null" {
		return ev.Error
	}
	b, _ := json.Marshal(struct {
		Code    json.RawMessage `json:"code,omitempty"`
		Message string          `json:"message"`
	}{ev.Code, ev.Message})
	return b
}

// item handles one completed output item.
func (s *state) item(it *outItem) {
	s.items++
	switch it.Type {
	case "message":
		if s.streamed[it.ID] {
			return
		}
		for _, c := range it.Content {
			s.acc.Text(c.Text + c.Refusal)
		}
	case "reasoning":
		s.reasoning(it)
	case "function_call":
		args := it.Arguments
		if b := s.args[it.ID]; args == "" && b != nil {
			args = b.String()
		}
		delete(s.args, it.ID)
		s.acc.ToolCall(llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: json.RawMessage(args)})
	case "local_shell_call":
		s.acc.ToolCall(llm.ToolCall{ID: it.CallID, Name: "local_shell", Arguments: it.Action})
	case "custom_tool_call":
		// aidex offers function tools only; free-form input that is not a
		// JSON object becomes a call with ArgsError set, which the engine
		// answers with a tool error.
		s.acc.ToolCall(llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: json.RawMessage(it.Input)})
	}
}

// reasoning records a reasoning item: its text (unless it streamed), then
// its encrypted content and id on the reasoning part.
func (s *state) reasoning(it *outItem) {
	hasText := s.streamed[it.ID]
	if !hasText {
		texts := it.Summary
		if len(texts) == 0 {
			texts = it.Content
		}
		for _, c := range texts {
			if c.Text != "" {
				s.acc.Reasoning(c.Text)
				hasText = true
			}
		}
	}
	if it.EncryptedContent != "" || (hasText && it.ID != "") {
		s.acc.ReasoningSignature(it.EncryptedContent, it.ID, false)
	}
}

// final records the end of the response: usage, id, model and finish
// reason, or the error of a failed response.
func (s *state) final(r *response) error {
	s.acc.SetMeta(r.ID, r.Model)
	if r.Usage != nil {
		s.usage = r.Usage
	}
	if r.Status == "failed" || (len(r.Error) > 0 && string(r.Error) != "null") {
		return s.failure(r.Error, "the response failed")
	}
	s.finish = r.Status
	if r.Status == "incomplete" && r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
		s.finish = r.IncompleteDetails.Reason
	}
	if s.finish == "" {
		s.finish = "completed"
	}
	return nil
}

// failure builds the error for an error object ({code, message, type}).
// Codes that say what went wrong pick the kind: rate limits and context
// overflow (by llm's rules), server_error as a server failure.
func (s *state) failure(obj json.RawMessage, fallback string) error {
	if len(obj) == 0 || string(obj) == "null" {
		return &llm.APIError{Provider: s.name, Kind: llm.KindStream, Message: fallback}
	}
	payload := make([]byte, 0, len(obj)+10)
	payload = append(payload, `{"error":`...)
	payload = append(payload, obj...)
	payload = append(payload, '}')
	e := llm.NewStreamError(s.name, payload)
	if e.Message == "" || e.Message == string(payload) {
		e.Message = fallback
	}
	if e.Code == "server_error" && e.Kind == llm.KindStream {
		e.Kind = llm.KindServer
	}
	return e
}
