package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/sse"
)

// wireMessageResp is a non-streamed response body, and the `message` of a
// `message_start` event (https://docs.anthropic.com/en/api/messages).
type wireMessageResp struct {
	Type       string          `json:"type"`
	ID         string          `json:"id"`
	Model      string          `json:"model"`
	Content    []respBlock     `json:"content"`
	StopReason string          `json:"stop_reason"`
	Usage      *wireUsage      `json:"usage"`
	Error      json.RawMessage `json:"error"`
}

// respBlock is one response content block; Type selects the fields used.
type respBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// wireUsage holds the token counts; pointers tell a count that is absent
// from one that is 0, since message_delta repeats only some of them.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

// merge overwrites u's counts with those present in v.
func (u *wireUsage) merge(v *wireUsage) {
	if v == nil {
		return
	}
	for _, f := range [...]struct{ dst, src **int }{
		{&u.InputTokens, &v.InputTokens},
		{&u.OutputTokens, &v.OutputTokens},
		{&u.CacheCreationInputTokens, &v.CacheCreationInputTokens},
		{&u.CacheReadInputTokens, &v.CacheReadInputTokens},
	} {
		if *f.src != nil {
			n := **f.src
			*f.dst = &n
		}
	}
}

// usage maps the wire counts onto [llm.Usage]: InputTokens counts every
// prompt token (input_tokens + cache_read_input_tokens +
// cache_creation_input_tokens).
func (u *wireUsage) usage() llm.Usage {
	get := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	read, write := get(u.CacheReadInputTokens), get(u.CacheCreationInputTokens)
	return llm.Usage{
		InputTokens:      get(u.InputTokens) + read + write,
		OutputTokens:     get(u.OutputTokens),
		CacheReadTokens:  read,
		CacheWriteTokens: write,
	}
}

// readMessage decodes a non-streamed response and reports it to acc.
func readMessage(body io.Reader, acc *llm.Accumulator, name string) error {
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	acc.SetRaw(data)
	var m wireMessageResp
	if err := json.Unmarshal(data, &m); err != nil {
		return malformed(name, "response body", err)
	}
	if m.Type == "error" || len(m.Error) > 0 && string(m.Error) != "null" {
		return llm.NewStreamError(name, data)
	}
	acc.SetMeta(m.ID, m.Model)
	for _, b := range m.Content {
		reportBlock(acc, b)
	}
	if m.Usage != nil {
		acc.Usage(m.Usage.usage())
	}
	acc.Finish(m.StopReason)
	return nil
}

// reportBlock reports one complete content block. Server tool blocks and
// unknown types are skipped.
func reportBlock(acc *llm.Accumulator, b respBlock) {
	switch b.Type {
	case "text":
		acc.Text(b.Text)
	case "thinking":
		acc.Reasoning(b.Thinking)
		if b.Signature != "" {
			acc.ReasoningSignature(b.Signature, "", false)
		}
	case "redacted_thinking":
		acc.ReasoningSignature(b.Data, "", true)
	case "tool_use":
		acc.ToolCall(llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
	}
}

// streamEvent is the payload of one SSE event
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming).
type streamEvent struct {
	Type         string           `json:"type"`
	Message      *wireMessageResp `json:"message"`
	Index        int              `json:"index"`
	ContentBlock *respBlock       `json:"content_block"`
	Delta        *streamDelta     `json:"delta"`
	Usage        *wireUsage       `json:"usage"`
}

// streamDelta is the delta of content_block_delta (text_delta,
// thinking_delta, signature_delta, input_json_delta, citations_delta) and of
// message_delta (stop_reason).
type streamDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// blockState is a content block being streamed.
type blockState struct {
	typ       string
	id, name  string
	input     json.RawMessage // the input given at content_block_start
	args      bytes.Buffer    // input_json_delta fragments
	signature strings.Builder
}

// streamState assembles one streamed message.
type streamState struct {
	acc    *llm.Accumulator
	name   string
	blocks map[int]*blockState
	usage  wireUsage
	done   bool
}

// readStream decodes an SSE body and reports it to acc. It returns nil after
// message_stop, the error of an `event: error`, or a KindStreamCut error when
// the body ends first.
func readStream(body io.Reader, acc *llm.Accumulator, name string) error {
	st := &streamState{acc: acc, name: name, blocks: make(map[int]*blockState)}
	r := sse.NewReader(body)
	for !st.done {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return &llm.APIError{Provider: name, Kind: llm.KindStreamCut, Message: "the stream ended before message_stop: the answer is incomplete"}
		}
		if err != nil {
			return err
		}
		if err := st.handle(ev); err != nil {
			return err
		}
	}
	return nil
}

// handle processes one SSE event. The payload's `type` decides; the event
// name is used when the payload has none.
func (st *streamState) handle(ev *sse.Event) error {
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 || bytes.Equal(data, []byte("[DONE]")) {
		return nil
	}
	var e streamEvent
	if err := json.Unmarshal(data, &e); err != nil {
		if string(ev.Name) == "error" {
			return llm.NewStreamError(st.name, data)
		}
		return malformed(st.name, "stream event "+string(ev.Name), err)
	}
	typ := e.Type
	if typ == "" {
		typ = string(ev.Name)
	}
	st.acc.SetRaw(data)
	switch typ {
	case "message_start":
		st.start(e.Message)
	case "content_block_start":
		st.blockStart(e.Index, e.ContentBlock)
	case "content_block_delta":
		st.blockDelta(e.Index, e.Delta)
	case "content_block_stop":
		st.blockStop(e.Index)
	case "message_delta":
		if e.Delta != nil {
			st.acc.Finish(e.Delta.StopReason)
		}
		if e.Usage != nil {
			st.usage.merge(e.Usage)
			st.acc.Usage(st.usage.usage())
		}
	case "message_stop":
		st.done = true
	case "error":
		return llm.NewStreamError(st.name, data)
	}
	return nil
}

func (st *streamState) start(m *wireMessageResp) {
	if m == nil {
		return
	}
	st.acc.SetMeta(m.ID, m.Model)
	if m.Usage != nil {
		st.usage.merge(m.Usage)
		st.acc.Usage(st.usage.usage())
	}
}

func (st *streamState) blockStart(i int, b *respBlock) {
	if b == nil {
		return
	}
	bs := &blockState{typ: b.Type, id: b.ID, name: b.Name, input: b.Input}
	st.blocks[i] = bs
	switch b.Type {
	case "text":
		st.acc.Text(b.Text)
	case "thinking":
		st.acc.Reasoning(b.Thinking)
		bs.signature.WriteString(b.Signature)
	case "redacted_thinking":
		st.acc.ReasoningSignature(b.Data, "", true)
	}
}

func (st *streamState) blockDelta(i int, d *streamDelta) {
	if d == nil {
		return
	}
	bs := st.blocks[i]
	switch d.Type {
	case "text_delta":
		st.acc.Text(d.Text)
	case "thinking_delta":
		st.acc.Reasoning(d.Thinking)
	case "signature_delta":
		if bs != nil {
			bs.signature.WriteString(d.Signature)
		}
	case "input_json_delta":
		if bs != nil && bs.typ == "tool_use" {
			bs.args.WriteString(d.PartialJSON)
		}
	}
}

// blockStop completes a block: a tool_use block's call is reported here,
// with its input assembled from the input_json_delta fragments.
func (st *streamState) blockStop(i int) {
	bs := st.blocks[i]
	if bs == nil {
		return
	}
	delete(st.blocks, i)
	switch bs.typ {
	case "thinking":
		if bs.signature.Len() > 0 {
			st.acc.ReasoningSignature(bs.signature.String(), "", false)
		}
	case "tool_use":
		args := json.RawMessage(bs.args.Bytes())
		if len(bytes.TrimSpace(args)) == 0 {
			args = bs.input
		}
		st.acc.ToolCall(llm.ToolCall{ID: bs.id, Name: bs.name, Arguments: bytes.Clone(args)})
	}
}

func malformed(name, what string, err error) error {
	return &llm.APIError{Provider: name, Kind: llm.KindStream, Message: fmt.Sprintf("malformed %s from the provider: %v", what, err), Err: err}
}
