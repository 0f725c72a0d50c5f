package llm

import (
	"bytes"
	"unicode/utf8"
)

// Wire is the wire encoding of one stored message, as [WireCache.Encode]
// returns it and a [Spliced] body sends it: one or more comma-separated
// JSON values, or nothing. The zero value is the empty encoding.
//
// A cached encoding of a message with a long string (a tool result, a
// long text) is kept packed: the encoding around the string, the string
// itself (shared with the message, not copied) and the few places where
// its JSON escaping differs from it (issue 40: a long session's tool
// results had been held twice, as the conversation's strings and as
// their encodings). Packed or not, the bytes sent are the same.
type Wire struct {
	b []byte      // the whole encoding, unless p is set
	p *packedWire // else: p.head, the string escaped, p.tail
}

// WireBytes returns b as a Wire (b is not copied).
func WireBytes(b []byte) Wire { return Wire{b: b[:len(b):len(b)]} }

// Len returns the encoding's length in bytes.
func (w Wire) Len() int {
	if w.p == nil {
		return len(w.b)
	}
	return len(w.p.head) + w.p.str.len() + len(w.p.tail)
}

// empty reports whether the encoding has no bytes, without reading a
// packed one (which never is: its string is at least packMinLen bytes).
func (w Wire) empty() bool { return w.p == nil && len(w.b) == 0 }

// Bytes returns the whole encoding in one slice (a copy when packed; for
// tests and merges).
func (w Wire) Bytes() []byte {
	if w.p == nil {
		return w.b
	}
	out := make([]byte, 0, w.Len())
	out = append(out, w.p.head...)
	out = w.p.str.appendTo(out)
	return append(out, w.p.tail...)
}

// packedWire is an encoding whose long string is held as escapedString.
type packedWire struct {
	head, tail []byte
	str        escapedString
}

// escapedString is a string's JSON escaping (without the quotes) held as
// the string and the edits that turn it into its escaping.
type escapedString struct {
	s     string
	edits []strEdit
	n     int // the escaping's length
}

// strEdit replaces n bytes of the string at offset at by b[:m] (an
// escape such as \n or \u2028, or U+FFFD for a byte that is not UTF-8).
type strEdit struct {
	at   uint32
	n, m uint8
	b    [6]byte
}

func (e *escapedString) len() int { return e.n }

func (e *escapedString) appendTo(out []byte) []byte {
	pos := 0
	for i := range e.edits {
		ed := &e.edits[i]
		out = append(out, e.s[pos:ed.at]...)
		out = append(out, ed.b[:ed.m]...)
		pos = int(ed.at) + int(ed.n)
	}
	return append(out, e.s[pos:]...)
}

// packMinLen is the shortest string worth packing.
const packMinLen = 1024

// packWire returns b, the encoding of m, packed around m's longest string
// when it is at least packMinLen bytes, appears in b as MarshalJSON
// encodes it, and its escaping differs from it in few places; else b as it
// is.
func packWire(m *Message, b []byte) Wire {
	s := longestString(m)
	if len(s) < packMinLen || len(s) > 1<<31 {
		return WireBytes(b)
	}
	esc, err := MarshalJSON(s)
	if err != nil || len(esc) < 2 {
		return WireBytes(b)
	}
	i := bytes.Index(b, esc)
	if i < 0 {
		return WireBytes(b)
	}
	str, ok := escapeEdits(s, esc[1:len(esc)-1])
	if !ok {
		return WireBytes(b)
	}
	return Wire{p: &packedWire{
		head: bytes.Clone(b[:i+1]),
		tail: bytes.Clone(b[i+len(esc)-1:]),
		str:  str,
	}}
}

// longestString returns the longest tool result or text of m.
func longestString(m *Message) string {
	var s string
	for i := range m.Parts {
		p := &m.Parts[i]
		if len(p.Text) > len(s) {
			s = p.Text
		}
		if p.ToolResult != nil && len(p.ToolResult.Content) > len(s) {
			s = p.ToolResult.Content
		}
	}
	return s
}

// escapeEdits returns s as the edits that turn it into inner, its JSON
// escaping without the quotes; false when they are not few (more than one
// per 16 bytes) or do not reproduce inner exactly.
func escapeEdits(s string, inner []byte) (escapedString, bool) {
	e := escapedString{s: s}
	i, j := 0, 0
	for i < len(s) {
		if j < len(inner) && inner[j] == s[i] && inner[j] != '\\' {
			i, j = i+1, j+1
			continue
		}
		m := 3 // U+FFFD for a byte that is not UTF-8
		if j+1 < len(inner) && inner[j] == '\\' {
			m = 2
			if inner[j+1] == 'u' {
				m = 6
			}
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		if j+m > len(inner) || len(e.edits) > len(s)/16 {
			return escapedString{}, false
		}
		ed := strEdit{at: uint32(i), n: uint8(n), m: uint8(m)}
		copy(ed.b[:], inner[j:j+m])
		e.edits = append(e.edits, ed)
		i, j = i+n, j+m
	}
	e.n = len(inner)
	if j != len(inner) || !bytes.Equal(e.appendTo(make([]byte, 0, len(inner))), inner) {
		return escapedString{}, false
	}
	e.edits = e.edits[:len(e.edits):len(e.edits)]
	return e, true
}

// escapedReader reads an escapedString from its start.
type escapedReader struct {
	e   *escapedString
	pos int // into e.s
	k   int // the next edit
	off int // how much of edit k's bytes is read
}

// read fills p and reports how much it wrote and whether the string is
// read to its end.
func (r *escapedReader) read(p []byte) (int, bool) {
	e, n := r.e, 0
	for r.k < len(e.edits) {
		ed := &e.edits[r.k]
		at, m := int(ed.at), int(ed.m)
		if r.off == 0 && len(p)-n >= at-r.pos+m { // the run before the edit and the edit fit
			var k int
			n, r.pos, k = expandEdits(p, n, e.s, r.pos, e.edits[r.k:])
			r.k += k
			continue
		}
		c := copy(p[n:], e.s[r.pos:at])
		n, r.pos = n+c, r.pos+c
		if r.pos < at {
			return n, false
		}
		c = copy(p[n:], ed.b[r.off:m])
		n, r.off = n+c, r.off+c
		if r.off < m {
			return n, false
		}
		r.pos, r.off, r.k = at+int(ed.n), 0, r.k+1
	}
	c := copy(p[n:], e.s[r.pos:])
	r.pos += c
	return n + c, r.pos == len(e.s)
}

// expandEdits writes s from pos with edits applied into p from n, while
// the next run and edit fit, and returns the new n and pos and how many
// edits it applied (at least one, as read calls it).
func expandEdits(p []byte, n int, s string, pos int, edits []strEdit) (int, int, int) {
	k := 0
	for ; k < len(edits); k++ {
		ed := &edits[k]
		at, m := int(ed.at), int(ed.m)
		if len(p)-n < at-pos+m {
			break
		}
		n += copy(p[n:], s[pos:at])
		if m == 2 { // \n, \t, \", \\: most edits
			p[n], p[n+1] = ed.b[0], ed.b[1]
		} else {
			copy(p[n:n+m], ed.b[:m])
		}
		n += m
		pos = at + int(ed.n)
	}
	return n, pos, k
}
