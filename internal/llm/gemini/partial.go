package gemini

import (
	"encoding/json"
	"strconv"
	"strings"
)

// partialArg is one streamed piece of a function call's arguments (Vertex AI
// streamFunctionCallArguments): a value for the argument at JSONPath
// (RFC 9535, e.g. "$.foo.bar[0]"). A string value with WillContinue set is
// continued by the next piece for the same path.
type partialArg struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue"`
	NumberValue  *float64        `json:"numberValue"`
	BoolValue    *bool           `json:"boolValue"`
	NullValue    json.RawMessage `json:"nullValue"`
	WillContinue bool            `json:"willContinue"`
}

// maxPartialIndex bounds array indexes in partial argument paths.
const maxPartialIndex = 1 << 12

// partialCall assembles a function call streamed in pieces.
type partialCall struct {
	id, name, sig string
	args          map[string]any
	continuing    map[string]bool
}

// add merges one functionCall piece.
func (p *partialCall) add(fc *inFunctionCall, sig string) {
	if p.name == "" {
		p.name = fc.Name
	}
	if p.id == "" {
		p.id = fc.ID
	}
	if p.sig == "" {
		p.sig = sig
	}
	if p.args == nil {
		p.args = map[string]any{}
	}
	if len(fc.Args) > 0 {
		var m map[string]any
		if json.Unmarshal(fc.Args, &m) == nil {
			for k, v := range m {
				p.args[k] = v
			}
		}
	}
	for _, pa := range fc.PartialArgs {
		p.apply(pa)
	}
}

// apply sets (or, for a continued string, extends) one argument.
func (p *partialCall) apply(pa partialArg) {
	segs, ok := parsePath(pa.JSONPath)
	if !ok || len(segs) == 0 {
		return
	}
	if _, isKey := segs[0].(string); !isKey {
		return
	}
	if p.continuing == nil {
		p.continuing = map[string]bool{}
	}
	var v any
	appendStr := false
	switch {
	case pa.StringValue != nil:
		v = *pa.StringValue
		appendStr = p.continuing[pa.JSONPath]
		p.continuing[pa.JSONPath] = pa.WillContinue
	case pa.NumberValue != nil:
		v = *pa.NumberValue
	case pa.BoolValue != nil:
		v = *pa.BoolValue
	case len(pa.NullValue) > 0:
		v = nil
	default:
		return
	}
	p.args = setPath(p.args, segs, v, appendStr).(map[string]any)
}

// arguments returns the assembled arguments as a JSON object.
func (p *partialCall) arguments() json.RawMessage {
	if len(p.args) == 0 {
		return json.RawMessage("{}")
	}
	b, err := json.Marshal(p.args)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// setPath stores v at segs below cur and returns the updated cur; with
// appendStr a string already there is extended instead of replaced.
func setPath(cur any, segs []any, v any, appendStr bool) any {
	if len(segs) == 0 {
		if old, ok := cur.(string); ok && appendStr {
			if s, ok := v.(string); ok {
				return old + s
			}
		}
		return v
	}
	switch k := segs[0].(type) {
	case string:
		m, ok := cur.(map[string]any)
		if !ok {
			m = map[string]any{}
		}
		m[k] = setPath(m[k], segs[1:], v, appendStr)
		return m
	case int:
		a, _ := cur.([]any)
		for len(a) <= k {
			a = append(a, nil)
		}
		a[k] = setPath(a[k], segs[1:], v, appendStr)
		return a
	}
	return cur
}

// parsePath splits a JSON path of the forms "$.a.b", "$['a']", `$["a"]` and
// "$.a[0]" into keys (string) and indexes (int).
func parsePath(path string) ([]any, bool) {
	rest, ok := strings.CutPrefix(path, "$")
	if !ok {
		return nil, false
	}
	var segs []any
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, false
			}
			segs = append(segs, rest[:end])
			rest = rest[end:]
		case '[':
			seg, n, ok := bracket(rest)
			if !ok {
				return nil, false
			}
			segs = append(segs, seg)
			rest = rest[n:]
		default:
			return nil, false
		}
	}
	return segs, true
}

// bracket parses a leading "[n]", "['key']" or `["key"]`, returning the
// segment and the bytes consumed.
func bracket(s string) (any, int, bool) {
	end := strings.IndexByte(s, ']')
	if end < 2 {
		return nil, 0, false
	}
	inner := s[1:end]
	if q := inner[0]; q == '\'' || q == '"' {
		// A quoted key may contain ']': find the closing quote first.
		closeQ := strings.IndexByte(s[2:], q)
		if closeQ < 0 || 2+closeQ+1 >= len(s) || s[2+closeQ+1] != ']' {
			return nil, 0, false
		}
		return s[2 : 2+closeQ], 2 + closeQ + 2, true
	}
	n, err := strconv.Atoi(inner)
	if err != nil || n < 0 || n > maxPartialIndex {
		return nil, 0, false
	}
	return n, end + 1, true
}
