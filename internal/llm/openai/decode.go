package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/sse"
)

// chunk is a streamed `chat.completion.chunk` or a whole `chat.completion`
// (choices then carry message instead of delta). Error is OpenRouter's
// in-band error object; XGroq carries Groq's usage on older streams.
type chunk struct {
	ID      text            `json:"id"`
	Model   text            `json:"model"`
	Choices []choice        `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
	XGroq   *struct {
		Usage *wireUsage `json:"usage"`
	} `json:"x_groq"`
}

type choice struct {
	Index        int        `json:"index"`
	Delta        *wireDelta `json:"delta"`
	Message      *wireDelta `json:"message"`
	FinishReason text       `json:"finish_reason"`
}

// wireDelta is a stream delta or a whole message: the same fields.
type wireDelta struct {
	Content          json.RawMessage   `json:"content"`
	Refusal          text              `json:"refusal"`
	ReasoningContent text              `json:"reasoning_content"`
	Reasoning        text              `json:"reasoning"`
	ReasoningDetails []reasoningDetail `json:"reasoning_details"`
	ToolCalls        []toolCallDelta   `json:"tool_calls"`
	FunctionCall     *functionDelta    `json:"function_call"`
	ExtraContent     *extraContent     `json:"extra_content"`
}

type toolCallDelta struct {
	Index        *int          `json:"index"`
	ID           text          `json:"id"`
	Function     functionDelta `json:"function"`
	ExtraContent *extraContent `json:"extra_content"`
}

// functionDelta is a tool call's function: Arguments is a JSON string
// fragment (the standard) or a whole JSON object (some hosts).
type functionDelta struct {
	Name      text            `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// wireUsage is the usage object of OpenAI and the compatible hosts.
type wireUsage struct {
	PromptTokens      count          `json:"prompt_tokens"`
	CompletionTokens  count          `json:"completion_tokens"`
	PromptDetails     *promptDetails `json:"prompt_tokens_details"`
	CompletionDetails *struct {
		ReasoningTokens          count `json:"reasoning_tokens"`
		AcceptedPredictionTokens count `json:"accepted_prediction_tokens"`
		RejectedPredictionTokens count `json:"rejected_prediction_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens     count `json:"prompt_cache_hit_tokens"`
	CacheCreationInputTokens count `json:"cache_creation_input_tokens"`
}

type promptDetails struct {
	CachedTokens     count `json:"cached_tokens"`
	CacheWriteTokens count `json:"cache_write_tokens"`
}

// toLLM maps the usage: prompt_tokens already counts cached tokens.
func (u *wireUsage) toLLM() llm.Usage {
	out := llm.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens)}
	if d := u.PromptDetails; d != nil {
		out.CacheReadTokens = int(d.CachedTokens)
		out.CacheWriteTokens = int(d.CacheWriteTokens)
	}
	if out.CacheReadTokens == 0 {
		out.CacheReadTokens = int(u.PromptCacheHitTokens)
	}
	if out.CacheWriteTokens == 0 {
		out.CacheWriteTokens = int(u.CacheCreationInputTokens)
	}
	if d := u.CompletionDetails; d != nil {
		out.ReasoningTokens = int(d.ReasoningTokens)
		out.AcceptedPredictionTokens = int(d.AcceptedPredictionTokens)
		out.RejectedPredictionTokens = int(d.RejectedPredictionTokens)
	}
	return out
}

// text is a JSON string that decodes leniently: null and values of other
// types become "" instead of failing the whole chunk.
type text string

// UnmarshalJSON implements json.Unmarshaler.
func (t *text) UnmarshalJSON(b []byte) error {
	s, _ := unquote(b)
	*t = text(s)
	return nil
}

// unquote decodes a JSON string value; ok is false (and s "") for any other
// value. Strings without escapes, the bulk of stream deltas, skip the
// reflection-based decoder.
func unquote(b []byte) (s string, ok bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') < 0 && bytes.IndexByte(inner, '"') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return "", false
	}
	return s, true
}

// count is a token count that decodes leniently: null, floats ("12.0") and
// numeric strings are accepted; anything else is 0.
type count int

// UnmarshalJSON implements json.Unmarshaler.
func (c *count) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 || f > 1<<53 {
		*c = 0
		return nil
	}
	*c = count(f)
	return nil
}

// decoder turns chunks into accumulator calls. It lives for one response.
type decoder struct {
	acc      *llm.Accumulator
	name     string
	think    *thinkSplitter
	calls    callSet
	finished bool
	reason   string
	// msgSig is a Gemini thought signature sent on the message rather than
	// on a tool call; it goes to the first call without one.
	msgSig string
}

func newDecoder(acc *llm.Accumulator, name string, splitThink bool) *decoder {
	d := &decoder{acc: acc, name: name}
	if splitThink {
		d.think = &thinkSplitter{}
	}
	return d
}

// read reads a response body: one JSON object (a non-streamed answer, or a
// host that ignored `stream`) when it starts with `{`, an SSE stream when it
// starts with an SSE field, and an error for anything else (an HTML page
// from a wrong base URL).
func (d *decoder) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 32<<10)
	first, err := firstByte(br)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return &llm.APIError{Provider: d.name, Kind: llm.KindStreamCut, Message: "the response body is empty"}
		}
		return err
	}
	switch first {
	case '{':
		return d.readBody(br)
	case 'd', 'e', 'i', 'r', ':': // data, event, id, retry, comment
		return d.readStream(br)
	}
	head, _ := br.Peek(200)
	return &llm.APIError{Provider: d.name, Kind: llm.KindStream, Message: "the response is neither JSON nor an event stream (check the provider's base URL): " + snippet(head)}
}

// firstByte returns the first byte that is not white space, without
// consuming it.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.ReadByte()
		default:
			return b[0], nil
		}
	}
}

// readBody reads a whole `chat.completion` object.
func (d *decoder) readBody(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var ch chunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return d.malformed(err, data)
	}
	d.acc.SetRaw(data)
	if err := d.handle(&ch, data); err != nil {
		return err
	}
	if len(ch.Choices) == 0 {
		return &llm.APIError{Provider: d.name, Kind: llm.KindStream, Message: "the response holds no choices: " + snippet(data)}
	}
	return d.end(true)
}

// readStream reads an SSE stream of chunks until `data: [DONE]` or the end
// of the body.
func (d *decoder) readStream(r io.Reader) error {
	rd := sse.NewReader(r)
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return d.end(false)
		}
		if err != nil {
			d.flushText()
			return err
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		if string(data) == "[DONE]" {
			return d.end(true)
		}
		if string(ev.Name) == "error" {
			d.flushText()
			return llm.NewStreamError(d.name, data)
		}
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			d.flushText()
			return d.malformed(err, data)
		}
		d.acc.SetRaw(data)
		if err := d.handle(&ch, data); err != nil {
			d.flushText()
			return err
		}
	}
}

// malformed builds the error for a chunk or body that is not valid JSON: a
// chunk cut short is a stream cut, anything else a malformed stream.
func (d *decoder) malformed(err error, data []byte) error {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset >= int64(len(data)) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &llm.APIError{Provider: d.name, Kind: llm.KindStreamCut, Message: "the answer was cut off mid-chunk: " + snippet(data), Err: err}
	}
	return &llm.APIError{Provider: d.name, Kind: llm.KindStream, Message: "malformed response from the model host: " + snippet(data), Err: err}
}

// snippet returns the start of data for error messages.
func snippet(data []byte) string {
	const max = 200
	if len(data) > max {
		return string(data[:max]) + "..."
	}
	return string(data)
}

// end finishes the answer. done says the host marked the end ([DONE] or a
// whole body); without it the answer is complete only after a finish_reason.
func (d *decoder) end(done bool) error {
	d.flushText()
	if !done && !d.finished {
		return &llm.APIError{Provider: d.name, Kind: llm.KindStreamCut, Message: "the stream ended before the answer was complete (no finish_reason and no [DONE])"}
	}
	d.flushCalls()
	return nil
}

// handle applies one chunk: meta, usage, the first choice's delta, an
// in-band error, then the finish reason.
func (d *decoder) handle(ch *chunk, raw []byte) error {
	d.acc.SetMeta(string(ch.ID), string(ch.Model))
	if u := ch.usage(); u != nil {
		d.acc.Usage(u.toLLM())
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.Index != 0 {
			continue
		}
		if m := c.message(); m != nil {
			d.delta(m)
		}
	}
	if hasValue(ch.Error) {
		d.flushText()
		return llm.NewStreamError(d.name, raw)
	}
	for i := range ch.Choices {
		if c := &ch.Choices[i]; c.Index == 0 {
			if err := d.finish(string(c.FinishReason)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (ch *chunk) usage() *wireUsage {
	if ch.Usage != nil {
		return ch.Usage
	}
	if ch.XGroq != nil {
		return ch.XGroq.Usage
	}
	return nil
}

func (c *choice) message() *wireDelta {
	if c.Delta != nil {
		return c.Delta
	}
	return c.Message
}

// hasValue reports whether a raw JSON field is present and not null.
func hasValue(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// finish records a finish reason. OpenRouter's "error" ends the answer
// with an error.
func (d *decoder) finish(reason string) error {
	if reason == "" {
		return nil
	}
	if reason == "error" {
		d.flushText()
		return &llm.APIError{Provider: d.name, Kind: llm.KindStream, Message: `the model host ended the answer with an error (finish_reason "error")`}
	}
	if d.finished && reason == d.reason {
		return nil // OpenRouter repeats the finish chunk
	}
	d.flushText()
	d.flushCalls()
	d.acc.Finish(reason)
	d.finished, d.reason = true, reason
	return nil
}

// delta applies one delta or message: reasoning, text, tool calls.
func (d *decoder) delta(m *wireDelta) {
	d.reasoning(m)
	d.content(m.Content)
	if m.Refusal != "" {
		d.text(string(m.Refusal))
	}
	for i := range m.ToolCalls {
		d.calls.add(&m.ToolCalls[i])
	}
	if m.FunctionCall != nil {
		legacy := -1
		d.calls.add(&toolCallDelta{Index: &legacy, Function: *m.FunctionCall})
	}
	if sig := m.ExtraContent.signature(); sig != "" {
		d.msgSig = sig
	}
}

// reasoning reports reasoning text: from reasoning_details when they carry
// text (they then repeat `reasoning`), else reasoning_content, else
// reasoning; then the details' signatures and encrypted data.
func (d *decoder) reasoning(m *wireDelta) {
	fromDetails := false
	for i := range m.ReasoningDetails {
		if r := &m.ReasoningDetails[i]; r.Text != "" || r.Summary != "" {
			fromDetails = true
			break
		}
	}
	if !fromDetails {
		if m.ReasoningContent != "" {
			d.acc.Reasoning(string(m.ReasoningContent))
		} else {
			d.acc.Reasoning(string(m.Reasoning))
		}
	}
	for i := range m.ReasoningDetails {
		r := &m.ReasoningDetails[i]
		if fromDetails {
			d.acc.Reasoning(string(r.Text))
			d.acc.Reasoning(string(r.Summary))
		}
		switch {
		case r.Data != "":
			d.acc.ReasoningSignature(string(r.Data), joinDetailID(string(r.Format), string(r.ID)), true)
		case r.Signature != "":
			d.acc.ReasoningSignature(string(r.Signature), joinDetailID(string(r.Format), string(r.ID)), false)
		}
	}
}

// messagePart is one part of a content list (Mistral): text, or thinking
// holding text parts.
type messagePart struct {
	Type     text            `json:"type"`
	Text     text            `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// content reports a message's content: a string, or a list of parts.
func (d *decoder) content(raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	switch raw[0] {
	case '"':
		s, _ := unquote(raw)
		d.text(s)
	case '[':
		var parts []messagePart
		if json.Unmarshal(raw, &parts) != nil {
			return
		}
		for _, p := range parts {
			switch p.Type {
			case "text":
				d.text(string(p.Text))
			case "thinking":
				d.acc.Reasoning(thinkingText(p.Thinking))
			}
		}
	}
}

// thinkingText returns the text of a thinking part: a string or a list of
// text parts.
func thinkingText(raw json.RawMessage) string {
	if s, ok := unquote(raw); ok {
		return s
	}
	var parts []messagePart
	_ = json.Unmarshal(raw, &parts)
	var out []byte
	for _, p := range parts {
		out = append(out, p.Text...)
	}
	return string(out)
}

// text reports answer text, through the think-tag splitter when on.
func (d *decoder) text(s string) {
	if d.think == nil {
		d.acc.Text(s)
		return
	}
	d.think.write(s, d.acc.Text, d.acc.Reasoning)
}

// flushText reports text the think-tag splitter holds back.
func (d *decoder) flushText() {
	if d.think != nil {
		d.think.flush(d.acc.Text, d.acc.Reasoning)
	}
}

// flushCalls reports the tool calls not reported yet, in order.
func (d *decoder) flushCalls() {
	for i, c := range d.calls.calls {
		if c.emitted || (c.name == "" && len(c.args) == 0) {
			continue
		}
		c.emitted = true
		id := c.id
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		sig := c.sig
		if sig == "" && d.msgSig != "" {
			sig, d.msgSig = d.msgSig, ""
		}
		d.acc.ToolCall(llm.ToolCall{ID: id, Name: c.name, Arguments: json.RawMessage(c.args), Signature: sig})
	}
}
