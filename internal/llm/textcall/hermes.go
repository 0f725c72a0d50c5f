package textcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// hermes parses the JSON body of a <tool_call> wrapper starting at q (at '{'
// or '['): one or more JSON values, each an object {"name", "arguments"} or
// an array of such objects. It returns the calls, the offset just past the
// wrapper, and a reason when the body is not usable.
func (p *parser) hermes(q int) ([]Call, int, string) {
	s := p.s
	var calls []Call
	pos := q
	for {
		raw, n, reason := decodeJSON(s[pos:])
		if reason != "" {
			if n > 0 {
				n += pos // the failed call runs to the end of the output
			}
			return nil, n, reason
		}
		cs, reason := p.hermesValue(raw)
		if reason != "" {
			return nil, 0, reason
		}
		calls = append(calls, cs...)
		pos = skipWS(s, pos+n)
		switch {
		case pos == len(s): // closing tag missing at the end of the output
			return calls, pos, ""
		case strings.HasPrefix(s[pos:], tagToolCallEnd):
			return calls, pos + len(tagToolCallEnd), ""
		case strings.HasPrefix(s[pos:], tagToolCall): // closing tag left out
			return calls, pos, ""
		case s[pos] == '{' || s[pos] == '[':
			continue
		}
		// Tolerate stray closing braces, a common slip: {"name":...}}}.
		k := pos
		for k < len(s) && (s[k] == '}' || isSpace(s[k])) {
			k++
		}
		if k > pos && k == len(s) {
			return calls, k, ""
		}
		if k > pos && strings.HasPrefix(s[k:], tagToolCallEnd) {
			return calls, k + len(tagToolCallEnd), ""
		}
		return nil, 0, "unexpected text " + quote(excerpt(s[pos:], 40)) + " after the JSON object; expected </tool_call>"
	}
}

// decodeJSON reads one JSON value from the start of s and returns it with the
// number of bytes it took. When the value runs to the end of s unfinished,
// the count is len(s): the rest of the output belongs to the failed call.
func decodeJSON(s string) (json.RawMessage, int, string) {
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, len(s), "the JSON is incomplete (the output was cut off or a closing brace or quote is missing)"
		}
		return nil, 0, "invalid JSON: " + err.Error()
	}
	return raw, int(dec.InputOffset()), ""
}

// hermesValue turns one decoded JSON value into calls.
func (p *parser) hermesValue(raw json.RawMessage) ([]Call, string) {
	if raw[0] != '[' {
		c, reason := p.hermesObject(raw)
		if reason != "" {
			return nil, reason
		}
		return []Call{c}, ""
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, "expected a JSON object with \"name\" and \"arguments\", got an empty or invalid list"
	}
	calls := make([]Call, 0, len(items))
	for _, it := range items {
		c, reason := p.hermesObject(it)
		if reason != "" {
			return nil, reason
		}
		calls = append(calls, c)
	}
	return calls, ""
}

// hermesObject reads {"name": ..., "arguments"|"parameters": ...}.
func (p *parser) hermesObject(raw json.RawMessage) (Call, string) {
	var obj struct {
		Name       json.RawMessage `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return Call{}, "expected a JSON object with \"name\" and \"arguments\""
	}
	var name string
	if len(obj.Name) == 0 || json.Unmarshal(obj.Name, &name) != nil || strings.TrimSpace(name) == "" {
		return Call{}, "the JSON object has no \"name\" (the tool name, a non-empty string)"
	}
	name = strings.TrimSpace(name)
	args := obj.Arguments
	if len(args) == 0 {
		args = obj.Parameters
	}
	return Call{Name: name, Arguments: p.hermesArgs(name, args), Format: FormatHermesJSON}, ""
}

// hermesArgs normalizes the "arguments" value: an object is kept; a missing or
// null value becomes {}; a string holding a JSON object or a Python dict
// literal is decoded (not double-encoded); in an object, a string given
// for an object or array parameter is decoded too (literalParams); any
// other value goes to the tool's single parameter when
// the schema names one, else is kept as given.
func (p *parser) hermesArgs(name string, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	sch := p.schema(name)
	switch raw[0] {
	case '{':
		return sch.literalParams(compact(raw))
	case '"':
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return compact(raw)
		}
		t := strings.TrimSpace(str)
		if t == "" {
			return json.RawMessage("{}")
		}
		if t[0] == '{' {
			if obj, ok := structured(t); ok && obj[0] == '{' {
				return sch.literalParams(obj)
			}
		}
		if param, ok := sch.singleParam(); ok {
			var b objBuilder
			b.set(param, sch.convert(param, str))
			return b.bytes()
		}
		return compact(raw)
	default:
		if param, ok := sch.singleParam(); ok {
			var b objBuilder
			b.set(param, compact(raw))
			return b.bytes()
		}
		return compact(raw)
	}
}

// literalParams decodes, in the arguments object obj, the string values
// of object and array parameters that hold JSON or a Python literal
// ("['a', 'b']" for an array): models often quote them. Other values,
// and strings that do not decode, are kept; key order is kept.
func (si *schemaInfo) literalParams(obj json.RawMessage) json.RawMessage {
	if !si.known {
		return obj
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return obj
	}
	var b objBuilder
	changed := false
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		var val json.RawMessage
		if err != nil || !isKey || dec.Decode(&val) != nil {
			return obj
		}
		if pt := si.propType(key).name; (pt == "object" || pt == "array") && len(val) > 0 && val[0] == '"' {
			var str string
			if json.Unmarshal(val, &str) == nil {
				if r, ok := structured(strings.TrimSpace(str)); ok {
					val, changed = r, true
				}
			}
		}
		b.set(key, val)
	}
	if !changed {
		return obj
	}
	return b.bytes()
}
