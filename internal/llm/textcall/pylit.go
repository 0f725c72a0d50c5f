package textcall

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLiteralDepth bounds the nesting of a Python literal read by pyLiteral.
const maxLiteralDepth = 64

// pyLiteral reads s as a Python literal, the way vLLM's and SGLang's tool
// parsers fall back to ast.literal_eval when json.loads refuses a value,
// and returns it as compact JSON. Understood: dicts, lists and tuples
// (tuples become arrays), strings in single or double quotes with the
// usual escapes (an r prefix keeps backslashes), decimal integers and
// floats, True, False and None. Dict keys that are numbers become strings.
// ok is false when s is anything else (names, calls, sets, a trailing
// remainder).
func pyLiteral(s string) (json.RawMessage, bool) {
	r := pyReader{s: s}
	var out bytes.Buffer
	if !r.value(&out, 0) {
		return nil, false
	}
	r.skip()
	if r.i != len(r.s) {
		return nil, false
	}
	return out.Bytes(), true
}

// pyReader is the state of one pyLiteral call.
type pyReader struct {
	s string
	i int
}

func (r *pyReader) skip() {
	for r.i < len(r.s) && isSpace(r.s[r.i]) {
		r.i++
	}
}

// value reads one literal at r.i into out.
func (r *pyReader) value(out *bytes.Buffer, depth int) bool {
	if depth > maxLiteralDepth {
		return false
	}
	r.skip()
	if r.i >= len(r.s) {
		return false
	}
	switch c := r.s[r.i]; {
	case c == '{':
		return r.dict(out, depth)
	case c == '[':
		return r.seq(out, ']', depth)
	case c == '(':
		return r.seq(out, ')', depth)
	case c == '\'' || c == '"' || c == 'r' || c == 'R' || c == 'u' || c == 'U':
		str, ok := r.str()
		if !ok {
			return r.word(out)
		}
		out.Write(jsonString(str))
		return true
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return r.number(out)
	}
	return r.word(out)
}

// word reads True, False or None.
func (r *pyReader) word(out *bytes.Buffer) bool {
	for _, w := range [...]struct{ py, js string }{{"True", "true"}, {"False", "false"}, {"None", "null"}} {
		if strings.HasPrefix(r.s[r.i:], w.py) && !isIdentByte(r.s, r.i+len(w.py)) {
			r.i += len(w.py)
			out.WriteString(w.js)
			return true
		}
	}
	return false
}

func isIdentByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// seq reads a list or tuple closed by end.
func (r *pyReader) seq(out *bytes.Buffer, end byte, depth int) bool {
	r.i++ // [ or (
	out.WriteByte('[')
	for n := 0; ; n++ {
		r.skip()
		if r.i < len(r.s) && r.s[r.i] == end {
			r.i++
			out.WriteByte(']')
			return true
		}
		if n > 0 {
			out.WriteByte(',')
		}
		if !r.value(out, depth+1) || !r.sep(end) {
			return false
		}
	}
}

// sep reads the ',' after an item, or sees the closing end.
func (r *pyReader) sep(end byte) bool {
	r.skip()
	if r.i >= len(r.s) {
		return false
	}
	if r.s[r.i] == ',' {
		r.i++
		return true
	}
	return r.s[r.i] == end
}

// dict reads {key: value, ...}.
func (r *pyReader) dict(out *bytes.Buffer, depth int) bool {
	r.i++ // {
	out.WriteByte('{')
	for n := 0; ; n++ {
		r.skip()
		if r.i < len(r.s) && r.s[r.i] == '}' {
			r.i++
			out.WriteByte('}')
			return true
		}
		if n > 0 {
			out.WriteByte(',')
		}
		if !r.key(out) {
			return false
		}
		r.skip()
		if r.i >= len(r.s) || r.s[r.i] != ':' {
			return false
		}
		r.i++
		out.WriteByte(':')
		if !r.value(out, depth+1) || !r.sep('}') {
			return false
		}
	}
}

// key reads a dict key: a string, or a number written as a string.
func (r *pyReader) key(out *bytes.Buffer) bool {
	if str, ok := r.str(); ok {
		out.Write(jsonString(str))
		return true
	}
	var num bytes.Buffer
	if !r.number(&num) {
		return false
	}
	out.Write(jsonString(num.String()))
	return true
}

// number reads a decimal integer or float as JSON.
func (r *pyReader) number(out *bytes.Buffer) bool {
	start := r.i
	for r.i < len(r.s) && strings.IndexByte("+-.0123456789eE_", r.s[r.i]) >= 0 {
		r.i++
	}
	t := strings.ReplaceAll(r.s[start:r.i], "_", "")
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		out.WriteString(strconv.FormatInt(n, 10))
		return true
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || t == "" {
		return false
	}
	out.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	return true
}

// str reads a quoted string with an optional r/u prefix. It leaves r.i
// unchanged when there is none.
func (r *pyReader) str() (string, bool) {
	start, raw := r.i, false
	if r.i < len(r.s) && strings.IndexByte("rRuU", r.s[r.i]) >= 0 {
		raw = r.s[r.i] == 'r' || r.s[r.i] == 'R'
		r.i++
	}
	if r.i >= len(r.s) || (r.s[r.i] != '\'' && r.s[r.i] != '"') {
		r.i = start
		return "", false
	}
	q := r.s[r.i]
	r.i++
	var b strings.Builder
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == q:
			r.i++
			return b.String(), true
		case c == '\n':
			r.i = start
			return "", false
		case c == '\\' && r.i+1 < len(r.s):
			if raw {
				b.WriteString(r.s[r.i : r.i+2])
				r.i += 2
				continue
			}
			if !r.escape(&b) {
				r.i = start
				return "", false
			}
		default:
			b.WriteByte(c)
			r.i++
		}
	}
	r.i = start
	return "", false
}

// escape reads the escape sequence at r.i (a backslash) into b.
func (r *pyReader) escape(b *strings.Builder) bool {
	c := r.s[r.i+1]
	r.i += 2
	if k := strings.IndexByte(`nrt0ab\'"`, c); k >= 0 {
		b.WriteByte("\n\r\t\x00\a\b\\'\""[k])
		return true
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width == 0 {
		if c == '\n' { // a line continuation
			return true
		}
		b.WriteByte('\\') // Python keeps unknown escapes as written
		b.WriteByte(c)
		return true
	}
	if r.i+width > len(r.s) {
		return false
	}
	n, err := strconv.ParseUint(r.s[r.i:r.i+width], 16, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return false
	}
	b.WriteRune(rune(n))
	r.i += width
	return true
}
