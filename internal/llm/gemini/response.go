package gemini

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/sse"
)

// Wire types of GenerateContentResponse
// (https://ai.google.dev/api/generate-content#generatecontentresponse).

type response struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *usageMetadata  `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	ResponseID     string          `json:"responseId"`
	Error          json.RawMessage `json:"error"`
}

type candidate struct {
	Content struct {
		Parts []inPart `json:"parts"`
	} `json:"content"`
	FinishReason json.RawMessage `json:"finishReason"`
	Index        int             `json:"index"`
}

type promptFeedback struct {
	BlockReason        json.RawMessage `json:"blockReason"`
	BlockReasonMessage string          `json:"blockReasonMessage"`
}

type inPart struct {
	Text             *string         `json:"text"`
	Thought          bool            `json:"thought"`
	ThoughtSignature string          `json:"thoughtSignature"`
	FunctionCall     *inFunctionCall `json:"functionCall"`
}

type inFunctionCall struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Args         json.RawMessage `json:"args"`
	PartialArgs  []partialArg    `json:"partialArgs"`
	WillContinue bool            `json:"willContinue"`
}

type usageMetadata struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
}

func (u *usageMetadata) toUsage() llm.Usage {
	return llm.Usage{
		InputTokens:     u.PromptTokenCount,
		OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
		CacheReadTokens: u.CachedContentTokenCount,
		ReasoningTokens: u.ThoughtsTokenCount,
	}
}

// finishReasonNames returns the FinishReason enum names by number, for
// hosts that encode enums as integers (the REST gateway with
// enum-encoding=int).
func finishReasonNames() []string {
	return []string{
		"", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER", "BLOCKLIST",
		"PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY",
	}
}

// blockReasonNames returns the BlockReason enum names by number.
func blockReasonNames() []string {
	return []string{"", "SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "IMAGE_SAFETY"}
}

// enumName decodes an enum sent as a string or as a number; "" for absent,
// null or unspecified values.
func enumName(raw json.RawMessage, names []string) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "FINISH_REASON_UNSPECIFIED" || s == "BLOCK_REASON_UNSPECIFIED" {
			return ""
		}
		return s
	}
	var n int
	if json.Unmarshal(raw, &n) == nil {
		if n > 0 && n < len(names) {
			return names[n]
		}
		if n > 0 {
			return strconv.Itoa(n)
		}
	}
	return ""
}

// state assembles one response from chunks.
type state struct {
	acc      *llm.Accumulator
	name     string
	nextID   func() string
	msg      builder
	partial  *partialCall
	usage    *usageMetadata
	finish   string
	finished bool
}

func newState(acc *llm.Accumulator, name string, nextID func() string) *state {
	return &state{acc: acc, name: name, nextID: nextID}
}

// result reports the usage and finish reason, and returns the response with
// the parts (and their signatures) as this package assembled them.
func (s *state) result(ctx context.Context, req *llm.Request, err error) (*llm.Response, error) {
	if s.usage != nil {
		s.acc.Usage(s.usage.toUsage())
	}
	if err == nil {
		s.acc.Finish(s.finish)
	}
	resp, err := llm.Finish(ctx, s.acc, req, err)
	resp.Message.Parts = s.msg.done()
	return resp, err
}

// readBody reads a non-streamed response.
func (s *state) readBody(b *llm.Body) error {
	data, err := llm.ReadAll(b)
	if err != nil {
		return err
	}
	if err := s.chunk(bytes.TrimSpace(data)); err != nil {
		return err
	}
	s.flushPartial()
	return nil
}

// readStream reads a streamed response: SSE `data:` lines, or a JSON array
// (or sequence) of response objects, as the endpoint sends without alt=sse.
func (s *state) readStream(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstByte(br)
	if err != nil {
		return s.streamErr(err)
	}
	switch first {
	case '[', '{':
		err = s.readJSONSeq(br, first == '[')
	case 'd', 'e', 'i', 'r', ':': // data, event, id, retry, comment
		err = s.readSSE(br)
	default:
		return &llm.APIError{Provider: s.name, Kind: llm.KindStream,
			Message: "malformed stream: the response is neither an event stream nor JSON (starts with " + strconv.QuoteRune(rune(first)) + ")"}
	}
	if err != nil {
		return s.streamErr(err)
	}
	return s.end()
}

// firstByte returns the first non-space byte without consuming it.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c, br.UnreadByte()
	}
}

func (s *state) readSSE(r io.Reader) error {
	rd := sse.NewReader(r)
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		if err := s.chunk(data); err != nil {
			return err
		}
	}
}

// readJSONSeq reads response objects from a JSON array (inArray) or a
// sequence of objects.
func (s *state) readJSONSeq(r io.Reader, inArray bool) error {
	dec := json.NewDecoder(r)
	if inArray {
		if _, err := dec.Token(); err != nil { // '['
			return err
		}
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := s.chunk(raw); err != nil {
			return err
		}
	}
	return nil
}

// streamErr classifies a read or decode error: errors of the body (timeouts,
// cuts, cancellation) and chunk errors pass through, an early end is a
// stream cut, anything else a malformed stream.
func (s *state) streamErr(err error) error {
	var ae *llm.APIError
	switch {
	case errors.As(err, &ae), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return s.end()
	}
	return &llm.APIError{Provider: s.name, Kind: llm.KindStream, Message: "malformed stream: " + err.Error(), Err: err}
}

// end checks that the stream finished.
func (s *state) end() error {
	if !s.finished {
		return &llm.APIError{Provider: s.name, Kind: llm.KindStreamCut, Message: "the stream ended before the answer was complete (no finishReason)"}
	}
	s.flushPartial()
	return nil
}

// chunk handles one GenerateContentResponse.
func (s *state) chunk(data []byte) error {
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return &llm.APIError{Provider: s.name, Kind: llm.KindStream, Message: "malformed response chunk: " + err.Error(), Err: err}
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return llm.NewStreamError(s.name, data)
	}
	s.acc.SetRaw(data)
	s.acc.SetMeta(r.ResponseID, r.ModelVersion)
	if r.UsageMetadata != nil {
		s.usage = r.UsageMetadata
	}
	if err := s.blocked(r.PromptFeedback); err != nil {
		return err
	}
	for i := range r.Candidates {
		c := &r.Candidates[i]
		if c.Index != 0 {
			continue
		}
		for _, p := range c.Content.Parts {
			s.part(p)
		}
		if reason := enumName(c.FinishReason, finishReasonNames()); reason != "" {
			s.finish = reason
			s.finished = true
		}
	}
	return nil
}

// blocked returns the error for a prompt Gemini refused to answer.
func (s *state) blocked(pf *promptFeedback) error {
	if pf == nil {
		return nil
	}
	reason := enumName(pf.BlockReason, blockReasonNames())
	if reason == "" {
		return nil
	}
	msg := "the prompt was blocked (" + reason + ")"
	if pf.BlockReasonMessage != "" {
		msg += ": " + pf.BlockReasonMessage
	}
	return &llm.APIError{Provider: s.name, Kind: llm.KindBadRequest, Type: "prompt_blocked", Code: reason,
		Message: msg + "; rephrase the request or remove the blocked content"}
}

// part handles one response part.
func (s *state) part(p inPart) {
	if p.FunctionCall != nil {
		s.functionCall(p.FunctionCall, p.ThoughtSignature)
		return
	}
	s.flushPartial()
	if p.Text == nil {
		return // inline data, executable code, ...: not represented
	}
	text := *p.Text
	if p.Thought {
		s.acc.Reasoning(text)
		s.msg.add(llm.PartReasoning, text, p.ThoughtSignature)
		return
	}
	s.acc.Text(text)
	s.msg.add(llm.PartText, text, p.ThoughtSignature)
}

// functionCall handles a function call part: complete, or one piece of a
// call streamed with partialArgs/willContinue.
func (s *state) functionCall(fc *inFunctionCall, sig string) {
	streamed := fc.WillContinue || len(fc.PartialArgs) > 0
	if !streamed && s.partial != nil && fc.Name == "" && len(fc.Args) == 0 {
		s.flushPartial() // the empty functionCall that ends a streamed call
		return
	}
	if streamed {
		if s.partial == nil || (fc.Name != "" && s.partial.name != "") {
			s.flushPartial()
			s.partial = &partialCall{}
		}
		s.partial.add(fc, sig)
		return
	}
	s.flushPartial()
	if fc.Name == "" && len(fc.Args) == 0 {
		return
	}
	s.emitCall(llm.ToolCall{ID: fc.ID, Name: fc.Name, Arguments: fc.Args, Signature: sig})
}

// flushPartial completes the call being streamed, if any.
func (s *state) flushPartial() {
	if s.partial == nil {
		return
	}
	p := s.partial
	s.partial = nil
	s.emitCall(llm.ToolCall{ID: p.id, Name: p.name, Arguments: p.arguments(), Signature: p.sig})
}

func (s *state) emitCall(tc llm.ToolCall) {
	if tc.ID == "" {
		tc.ID = s.nextID()
	}
	tc.Arguments, tc.ArgsError = llm.NormalizeArguments(tc.Arguments)
	s.acc.ToolCall(tc)
	s.msg.call(tc)
}

// builder assembles the message parts with their thought signatures, the
// way [llm.Accumulator] does for text and reasoning, except that a part that
// carries a signature is never merged with a later one.
type builder struct {
	parts []llm.Part
	open  bool            // the last part may take more text of its type
	buf   strings.Builder // the open part's text
}

// add appends text of type t with signature sig (either may be empty).
func (b *builder) add(t llm.PartType, text, sig string) {
	if text == "" && sig == "" {
		return
	}
	if n := len(b.parts); !b.open || b.parts[n-1].Type != t {
		b.flush()
		b.parts = append(b.parts, llm.Part{Type: t})
		b.open = true
	}
	b.buf.WriteString(text)
	if sig != "" {
		b.parts[len(b.parts)-1].Signature = sig
		b.flush()
	}
}

// flush closes the open part.
func (b *builder) flush() {
	if !b.open {
		return
	}
	b.parts[len(b.parts)-1].Text = b.buf.String()
	b.buf.Reset()
	b.open = false
}

func (b *builder) call(tc llm.ToolCall) {
	b.flush()
	b.parts = append(b.parts, llm.Part{Type: llm.PartToolCall, ToolCall: &tc})
}

// done closes the open part and returns a copy of the parts.
func (b *builder) done() []llm.Part {
	b.flush()
	if len(b.parts) == 0 {
		return nil
	}
	return append([]llm.Part(nil), b.parts...)
}
