package openai

import (
	"bytes"
	"encoding/json"
)

// pendingCall is a tool call being assembled from deltas.
type pendingCall struct {
	id, name, sig string
	args          []byte
	emitted       bool
}

// callSet assembles tool calls from stream deltas. Calls keep the order in
// which they first appeared.
type callSet struct {
	calls   []*pendingCall
	byIndex map[int]*pendingCall
}

// add applies one tool-call delta.
func (s *callSet) add(tc *toolCallDelta) {
	c := s.slot(tc)
	if tc.ID != "" && c.id == "" {
		c.id = string(tc.ID)
	}
	if tc.Function.Name != "" && c.name == "" {
		c.name = string(tc.Function.Name)
	}
	if sig := tc.ExtraContent.signature(); sig != "" {
		c.sig = sig
	}
	c.appendArgs(tc.Function.Arguments)
}

// slot finds the call a delta belongs to. A delta with an index joins the
// call at that index, unless it starts another call there (a new id, or a
// new name after complete arguments: hosts that send every parallel call at
// index 0). A delta without an index joins the call with its id, else the
// last call.
func (s *callSet) slot(tc *toolCallDelta) *pendingCall {
	if tc.Index != nil {
		if c, ok := s.byIndex[*tc.Index]; ok && !startsNew(c, tc) {
			return c
		}
		c := s.byID(string(tc.ID))
		if c == nil {
			c = s.newCall()
		}
		if s.byIndex == nil {
			s.byIndex = make(map[int]*pendingCall, 2)
		}
		s.byIndex[*tc.Index] = c
		return c
	}
	if c := s.byID(string(tc.ID)); c != nil {
		return c
	}
	if n := len(s.calls); n > 0 && tc.ID == "" && !startsNew(s.calls[n-1], tc) {
		return s.calls[n-1]
	}
	return s.newCall()
}

// startsNew reports whether tc begins a call other than c.
func startsNew(c *pendingCall, tc *toolCallDelta) bool {
	if tc.ID != "" && c.id != "" && string(tc.ID) != c.id {
		return true
	}
	return tc.ID == "" && tc.Function.Name != "" && c.name != "" &&
		nonEmptyArgs(tc.Function.Arguments) && json.Valid(c.args) && len(bytes.TrimSpace(c.args)) > 0
}

// nonEmptyArgs reports whether an arguments field carries anything.
func nonEmptyArgs(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null" && string(raw) != `""`
}

func (s *callSet) byID(id string) *pendingCall {
	if id == "" {
		return nil
	}
	for _, c := range s.calls {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (s *callSet) newCall() *pendingCall {
	c := &pendingCall{}
	s.calls = append(s.calls, c)
	return c
}

// appendArgs adds an arguments fragment: a JSON string is appended (unless
// it repeats, whole, arguments already complete, as some hosts do in their
// last chunk); a JSON object replaces them.
func (c *pendingCall) appendArgs(raw json.RawMessage) {
	if !nonEmptyArgs(raw) {
		return
	}
	switch raw[0] {
	case '"':
		frag, _ := unquote(raw)
		if frag == "" {
			return
		}
		if len(frag) == len(c.args) && frag == string(c.args) && json.Valid(c.args) {
			return
		}
		c.args = append(c.args, frag...)
	case '{':
		c.args = append(c.args[:0], raw...)
	}
}
