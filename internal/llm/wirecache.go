package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// cacheLanes is how many conversations a [WireCache] keeps at once (a
// session and the subagents it runs beside it).
const cacheLanes = 4

// WireCache keeps each message's wire encoding between the requests of a
// client, so that a turn encodes only the messages added since the last
// one instead of the whole conversation (issue 40: the request of a long
// session is megabytes; encoding it every turn made the CPU cost per turn
// grow with the session). A cached encoding is reused only for a message
// equal to the one it was made from at the same position of the
// conversation (strings compare by pointer first, so an unchanged message
// costs a few comparisons); a message edited, cut or replaced by compaction
// is encoded again. The zero value is ready; a nil *WireCache caches
// nothing. Safe for concurrent use.
type WireCache struct {
	mu    sync.Mutex
	clock uint64
	lanes [cacheLanes]cacheLane
}

// cacheLane is the cache of one conversation: entry i is message i.
type cacheLane struct {
	used    uint64
	entries []cacheEntry
}

// cacheEntry is one message's encoding and a copy of the message it was
// made from (strings shared, the slices and the structs its parts point to
// copied, so that a change made in place is seen).
type cacheEntry struct {
	msg  msgCopy
	wire Wire
}

// msgCopy is a copy of a message for [WireCache]: its role, model and
// parts, with the parts' data, tool calls (their arguments too) and tool
// results copied and strings shared. A message of one part (most of a
// conversation: a prompt, a call, a result) keeps that part inline, so
// that checking a long conversation each turn reads the entries' one
// array rather than two or three allocations of each message's copy.
type msgCopy struct {
	role  Role
	model string
	one   partFields // the part of a one-part message (many nil)
	tool  toolCopy   // its tool call or tool result
	many  []Part     // else: a copy of the parts (copyParts), never nil
}

// partFields are a [Part]'s fields other than its tool call and result.
type partFields struct {
	typ                                PartType
	text, mimeType, url, signature, id string
	data                               []byte
	redacted                           bool
}

// toolCopy is a copy of one part's tool call (ID, Name, Arguments,
// ArgsError in text, Signature) or tool result (CallID in id, Name,
// Content in text, IsError), as kind says.
type toolCopy struct {
	id, name, text, signature string
	args                      []byte
	isError                   bool
	kind                      uint8 // toolNone, toolCall or toolResult
}

const (
	toolNone uint8 = iota
	toolCall
	toolResult
)

// Encode returns the wire encoding of each message of msgs (enc's output:
// the JSON values one message maps to, comma-separated, or nothing), from
// the cache where the message is unchanged, else from enc, whose error it
// returns. enc's output must depend on the message alone (and on settings
// fixed for the cache's life, such as a client's host quirks), not on its
// position or its neighbours. The returned encodings are never written
// again, so a request body may point into them.
func (c *WireCache) Encode(msgs []Message, enc func(*Message) ([]byte, error)) ([]Wire, error) {
	out := make([]Wire, len(msgs))
	if c == nil {
		for i := range msgs {
			b, err := enc(&msgs[i])
			if err != nil {
				return nil, err
			}
			out[i] = WireBytes(b)
		}
		return out, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	lane := c.lane(msgs)
	for i := range msgs {
		if i < len(lane.entries) && lane.entries[i].msg.same(&msgs[i]) {
			out[i] = lane.entries[i].wire
			continue
		}
		b, err := enc(&msgs[i])
		if err != nil {
			lane.entries = lane.entries[:min(i, len(lane.entries))]
			return nil, err
		}
		out[i] = WireBytes(b)
		entry := cacheEntry{msg: copyMessage(&msgs[i]), wire: out[i]}
		if i < len(lane.entries) {
			lane.entries[i] = entry // a message's encoding depends on it alone, so the others stay
		} else {
			lane.entries = append(lane.entries, entry)
		}
	}
	clear(lane.entries[len(msgs):])
	lane.entries = lane.entries[:len(msgs)]
	return out, nil
}

// staleAfter is how many requests a lane may go unused before it is
// emptied: a conversation replaced by compaction, a subagent that ended.
const staleAfter = 16

// lane returns the lane whose first message is msgs' first, else the
// least recently used one, emptied; lanes unused for staleAfter requests
// are emptied.
func (c *WireCache) lane(msgs []Message) *cacheLane {
	c.clock++
	var found *cacheLane
	oldest := &c.lanes[0]
	for i := range c.lanes {
		l := &c.lanes[i]
		if found == nil && len(msgs) > 0 && len(l.entries) > 0 && l.entries[0].msg.same(&msgs[0]) {
			found = l
			continue
		}
		if c.clock-l.used > staleAfter {
			l.entries = nil
		}
		if l.used < oldest.used {
			oldest = l
		}
	}
	if found == nil {
		found, oldest.entries = oldest, nil
	}
	found.used = c.clock
	return found
}

// copyMessage copies m's parts and what they point to; strings are
// immutable and stay shared.
func copyMessage(m *Message) msgCopy {
	c := msgCopy{role: m.Role, model: m.Model}
	if len(m.Parts) != 1 || (m.Parts[0].ToolCall != nil && m.Parts[0].ToolResult != nil) {
		c.many = copyParts(m.Parts)
		return c
	}
	p := &m.Parts[0]
	c.one = fieldsOf(p)
	c.one.data = bytes.Clone(p.Data)
	if tc := p.ToolCall; tc != nil {
		c.tool = toolCopy{id: tc.ID, name: tc.Name, text: tc.ArgsError, signature: tc.Signature, args: bytes.Clone(tc.Arguments), kind: toolCall}
	}
	if tr := p.ToolResult; tr != nil {
		c.tool = toolCopy{id: tr.CallID, name: tr.Name, text: tr.Content, isError: tr.IsError, kind: toolResult}
	}
	return c
}

func fieldsOf(p *Part) partFields {
	return partFields{typ: p.Type, text: p.Text, mimeType: p.MIMEType, url: p.URL, signature: p.Signature, id: p.ID,
		data: p.Data, redacted: p.Redacted}
}

// copyParts copies parts and what they point to; strings stay shared.
func copyParts(parts []Part) []Part {
	cp := make([]Part, len(parts))
	for i, p := range parts {
		p.Data = bytes.Clone(p.Data)
		if p.ToolCall != nil {
			tc := *p.ToolCall
			tc.Arguments = bytes.Clone(tc.Arguments)
			p.ToolCall = &tc
		}
		if p.ToolResult != nil {
			tr := *p.ToolResult
			p.ToolResult = &tr
		}
		cp[i] = p
	}
	return cp
}

// same reports whether m holds the content c was copied from.
func (c *msgCopy) same(m *Message) bool {
	if c.role != m.Role || c.model != m.Model {
		return false
	}
	if c.many != nil {
		if len(c.many) != len(m.Parts) {
			return false
		}
		for i := range c.many {
			if !samePart(&c.many[i], &m.Parts[i]) {
				return false
			}
		}
		return true
	}
	if len(m.Parts) != 1 {
		return false
	}
	p := &m.Parts[0]
	if c.one.differ(p) {
		return false
	}
	t := &c.tool
	switch tc, tr := p.ToolCall, p.ToolResult; {
	case tc != nil:
		return t.kind == toolCall && tr == nil && t.id == tc.ID && t.name == tc.Name && bytes.Equal(t.args, tc.Arguments) &&
			t.text == tc.ArgsError && t.signature == tc.Signature
	case tr != nil:
		return t.kind == toolResult && t.id == tr.CallID && t.name == tr.Name && t.text == tr.Content && t.isError == tr.IsError
	}
	return t.kind == toolNone
}

// differ reports whether p's fields other than its tool call and result
// differ from f.
func (f *partFields) differ(p *Part) bool {
	return f.typ != p.Type || f.text != p.Text || f.mimeType != p.MIMEType || !bytes.Equal(f.data, p.Data) ||
		f.url != p.URL || f.signature != p.Signature || f.redacted != p.Redacted || f.id != p.ID
}

func samePart(a, b *Part) bool {
	if f := fieldsOf(a); f.differ(b) || (a.ToolCall == nil) != (b.ToolCall == nil) || (a.ToolResult == nil) != (b.ToolResult == nil) {
		return false
	}
	if x, y := a.ToolCall, b.ToolCall; x != nil && (x.ID != y.ID || x.Name != y.Name || !bytes.Equal(x.Arguments, y.Arguments) ||
		x.ArgsError != y.ArgsError || x.Signature != y.Signature) {
		return false
	}
	return a.ToolResult == nil || *a.ToolResult == *b.ToolResult
}

// MarshalJSON encodes v exactly as the request bodies are encoded (see
// [PostJSON]): encoding/json's output, written by
// github.com/go-json-experiment/json under its v1 options.
func MarshalJSON(v any) ([]byte, error) {
	return jsonv2.Marshal(v, jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.WithMarshalers(numberAsV1)))
}

// MarshalList encodes the elements of list as [MarshalJSON] does,
// comma-separated, without the brackets (nothing for an empty list): a
// [Spliced] item.
func MarshalList[T any](list []T) ([]byte, error) {
	if len(list) == 0 {
		return nil, nil
	}
	b, err := MarshalJSON(list)
	if err != nil {
		return nil, err
	}
	return b[1 : len(b)-1], nil
}

// EncodeList is [WireCache.Encode] for a wire format that turns one
// message into a list of wire messages (enc), each message's list
// encoded by [MarshalList]. c may be nil (no cache).
func EncodeList[T any](c *WireCache, msgs []Message, enc func(*Message) ([]T, error)) ([]Wire, error) {
	return c.Encode(msgs, func(m *Message) ([]byte, error) {
		list, err := enc(m)
		if err != nil {
			return nil, err
		}
		return MarshalList(list)
	})
}

// SpliceAfter returns the [Spliced] body of head, whose field named field
// the caller has set to nil: the system messages sys first (none when
// empty), then items. keepNull is [Spliced]'s KeepNull. Errors: sys does
// not encode.
func SpliceAfter[T any](head any, field string, sys []T, items []Wire, keepNull bool) (*Spliced, error) {
	if len(sys) > 0 {
		b, err := MarshalList(sys)
		if err != nil {
			return nil, err
		}
		items = append([]Wire{WireBytes(b)}, items...)
	}
	return &Spliced{Head: head, Field: field, Items: items, KeepNull: keepNull}, nil
}

// Spliced is a request body whose conversation is already encoded: Head
// is the request with its top-level field Field encoding as null, and
// Items are the encoded values (each one or more comma-separated JSON
// values, or empty) sent as that field's array, in order. With no
// non-empty item the array is empty, or, with KeepNull, the null stays
// (what the wire format's own encoding of no messages is). The body is
// Head's encoding with the null replaced; Items are sent without being
// copied.
type Spliced struct {
	Head     any
	Field    string
	Items    []Wire
	KeepNull bool
}

// PostSpliced sends body as [PostJSON] sends a request. Errors: as
// PostJSON's, and one naming the field when Head does not encode it as
// null at its top level.
func PostSpliced(ctx context.Context, o *Options, url string, body *Spliced, extra map[string]string) (*Body, http.Header, error) {
	payload, err := body.encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode request: %w", err)
	}
	return send(ctx, o, http.MethodPost, url, payload, extra)
}

// Bytes returns the whole body in one slice (for tests and logs).
func (s *Spliced) Bytes() ([]byte, error) {
	c, err := s.encode()
	if err != nil {
		return nil, err
	}
	return c.bytes(), nil
}

// encode returns the body as chunks pointing at the head's encoding and
// at the items (nothing copied, nothing allocated per item: the reader
// walks the items as it sends them).
func (s *Spliced) encode() (*chunks, error) {
	head, err := MarshalJSON(s.Head)
	if err != nil {
		return nil, err
	}
	start, end, err := topLevelNull(head, s.Field)
	if err != nil {
		return nil, err
	}
	if s.KeepNull && !slices.ContainsFunc(s.Items, func(it Wire) bool { return !it.empty() }) {
		return &chunks{bufs: [][]byte{head}, n: len(head)}, nil
	}
	c := &chunks{bufs: [][]byte{head[:start:start], []byte("[")}, items: s.Items,
		after: [][]byte{[]byte("]"), head[end:]}}
	c.n = start + 1 + 1 + len(head) - end
	k := 0
	for _, it := range s.Items {
		if !it.empty() {
			c.n += it.Len()
			k++
		}
	}
	c.n += max(k-1, 0) // the commas
	return c, nil
}

// topLevelNull returns the offsets of the null value of the top-level
// field of the JSON object doc.
func topLevelNull(doc []byte, field string) (start, end int, err error) {
	dec := jsontext.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return 0, 0, errors.New("the request is not a JSON object")
	}
	for dec.PeekKind() == '"' {
		key, err := dec.ReadToken()
		if err != nil {
			return 0, 0, err
		}
		name := key.String() // valid only until the next read
		v, err := dec.ReadValue()
		if err != nil {
			return 0, 0, err
		}
		if name == field {
			if string(v) != "null" {
				break
			}
			end := int(dec.InputOffset())
			return end - len(v), end, nil
		}
	}
	return 0, 0, fmt.Errorf("the request has no field %q set to null to hold the conversation", field)
}
