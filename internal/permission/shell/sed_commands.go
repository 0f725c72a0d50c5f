package shell

import "strings"

// sedRisky are the commands that run a command or read or write a file.
var sedRisky = map[byte]string{
	'e': "runs a command (e)", 'r': "reads a file (r)", 'R': "reads a file (R)", 'w': "writes a file (w)",
	'W': "writes a file (W)",
}

// body reads the command c and its arguments; it returns a risk or "".
func (p *sedScanner) body(c byte) string {
	if r, ok := sedRisky[c]; ok {
		return r
	}
	switch {
	case c == '{':
		return ""
	case strings.IndexByte("}=dDgGhHnNpPxzF", c) >= 0:
	case strings.IndexByte("lLqQ", c) >= 0:
		p.skipSpaces()
		p.digits()
	case c == 'a' || c == 'i' || c == 'c':
		p.text()
		return ""
	case strings.IndexByte(":btTv", c) >= 0:
		p.skipSpaces()
		for !p.eof() && strings.IndexByte("; \t\n", p.s[p.i]) < 0 {
			p.i++
		}
	case c == 's':
		if r := p.subst(); r != "" {
			return r
		}
	case c == 'y':
		if !p.delimiter() {
			return "with a y command " + sedUnknown
		}
	default:
		return "with the command " + string(c) + " " + sedUnknown
	}
	return p.end()
}

// end checks what follows a command: a separator, "}", a comment or the
// end of the script.
func (p *sedScanner) end() string {
	p.skipSpaces()
	if p.eof() || strings.IndexByte(";\n}#", p.s[p.i]) >= 0 {
		return ""
	}
	return "with text after a command " + sedUnknown
}

// text reads the text of a, i and c: to the end of the line, where a
// backslash continues it.
func (p *sedScanner) text() {
	for !p.eof() {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
		case '\n':
			p.i++
			return
		default:
			p.i++
		}
	}
}

func (p *sedScanner) toEOL() {
	for !p.eof() && p.s[p.i] != '\n' {
		p.i++
	}
}

// subst reads s/RE/REPLACEMENT/FLAGS.
func (p *sedScanner) subst() string {
	if !p.delimiter() {
		return "with an s command " + sedUnknown
	}
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == 'e':
			return "runs the result of s///e as a command"
		case c == 'w':
			return "writes a file (s///w)"
		case strings.IndexByte("gpiImM0123456789", c) >= 0:
			p.i++
		default:
			return ""
		}
	}
	return ""
}

// delimiter reads the two delimited parts of s and y: DRE D TEXT D, the
// first one a regular expression for s.
func (p *sedScanner) delimiter() bool {
	if p.eof() {
		return false
	}
	cmd := p.s[p.i-1]
	d := p.s[p.i]
	p.i++
	if d == '\n' || d == '\\' {
		return false
	}
	return p.delimited(d, cmd == 's') && p.delimited(d, false)
}

// delimited reads to the unescaped delimiter d (inclusive); an unescaped
// newline or the end of the script is an error. In a regular expression
// (re), a bracket expression may hold d.
func (p *sedScanner) delimited(d byte, re bool) bool {
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == d:
			return true
		case c == '\\':
			p.i++
		case c == '\n':
			return false
		case c == '[' && re && p.brackets:
			if !p.bracket() {
				return false
			}
		}
	}
	return false
}

// bracket reads a bracket expression after its "[": "]" first is a
// member, as are [:class:], [.coll.] and [=equiv=].
func (p *sedScanner) bracket() bool {
	if p.peek() == '^' {
		p.i++
	}
	if p.peek() == ']' {
		p.i++
	}
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == ']':
			p.i++
			return true
		case c == '\n':
			return false
		case c == '[' && p.i+1 < len(p.s) && strings.IndexByte(":.=", p.s[p.i+1]) >= 0:
			k := strings.Index(p.s[p.i+2:], string(p.s[p.i+1])+"]")
			if k < 0 {
				return false
			}
			p.i += k + 4
		default:
			p.i++
		}
	}
	return false
}
