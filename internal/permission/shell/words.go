package shell

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word converts a syntax word.
func (z *analyzer) word(w *syntax.Word) Word {
	var val, pat strings.Builder
	out := Word{Literal: true}
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			v := unescapeUnquoted(x.Value)
			if v != x.Value {
				out.Quoted = true
			}
			if isGlobLit(x.Value) || braceLike(x.Value) {
				out.Glob = true
			}
			val.WriteString(v)
			pat.WriteString(v)
		case *syntax.SglQuoted:
			out.Quoted = true
			v := x.Value
			if x.Dollar {
				v = decodeANSIC(v)
			}
			val.WriteString(v)
			pat.WriteString(v)
		case *syntax.DblQuoted:
			out.Quoted = true
			for _, dp := range x.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					v := unescapeDouble(l.Value)
					val.WriteString(v)
					pat.WriteString(v)
					continue
				}
				out.Literal = false
				pat.WriteString(partPattern(dp))
			}
		case *syntax.ArithmExp:
			if n, ok := constArith(x.X); ok {
				val.WriteString(n)
				pat.WriteString(n)
				continue
			}
			out.Literal = false
			pat.WriteString("*")
		default:
			out.Literal = false
			pat.WriteString(partPattern(p))
		}
	}
	if out.Literal {
		out.Value = val.String()
	} else {
		out.Value = printNode(w)
	}
	out.Pattern = pat.String()
	return out
}

// isGlobLit reports unquoted glob characters: * and ?, and [ with a
// closing ] after it (a lone "[" is a literal, the test command).
func isGlobLit(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	i := strings.IndexByte(s, '[')
	return i >= 0 && strings.IndexByte(s[i+1:], ']') >= 0
}

func partPattern(p syntax.WordPart) string {
	if pe, ok := p.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "HOME" &&
		pe.Exp == nil && pe.Repl == nil && pe.Slice == nil && !pe.Length && !pe.Excl && pe.Index == nil {
		return "~"
	}
	return "*"
}

func literalWord(s string) Word { return Word{Value: s, Literal: true, Pattern: s} }

func printNode(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "<unprintable>"
	}
	return b.String()
}

// braceLike reports an unquoted brace expansion like {a,b} or {1..3}.
func braceLike(s string) bool {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return false
	}
	j := strings.IndexByte(s[i:], '}')
	if j < 0 {
		return false
	}
	inner := s[i+1 : i+j]
	return strings.Contains(inner, ",") || strings.Contains(inner, "..")
}

// unescapeUnquoted removes backslash escapes of an unquoted literal.
func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the escapes bash honours inside double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiEscapes are the one-letter escapes of bash $'...' strings.
var ansiEscapes = map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'v': 11}

// decodeANSIC decodes the body of a bash $'...' string.
func decodeANSIC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		i += decodeEscape(&b, s, i)
	}
	return b.String()
}

// decodeEscape writes the escape starting at s[i] (after the backslash)
// and returns how many bytes after s[i] it used.
func decodeEscape(b *strings.Builder, s string, i int) int {
	ch := s[i]
	if e, ok := ansiEscapes[ch]; ok {
		b.WriteByte(e)
		return 0
	}
	switch ch {
	case 'x':
		n, l := parseRadix(s[i+1:], 16, 2)
		if l == 0 {
			b.WriteString(`\x`)
			return 0
		}
		b.WriteByte(byte(n))
		return l
	case 'u', 'U':
		max := 4
		if ch == 'U' {
			max = 8
		}
		n, l := parseRadix(s[i+1:], 16, max)
		if l == 0 {
			b.WriteByte('\\')
			b.WriteByte(ch)
			return 0
		}
		b.WriteRune(rune(n))
		return l
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, l := parseRadix(s[i:], 8, 3)
		b.WriteByte(byte(n))
		return l - 1
	}
	b.WriteByte(ch)
	return 0
}

func parseRadix(s string, base, max int) (int, int) {
	n, l := 0, 0
	for l < max && l < len(s) {
		d := strings.IndexByte("0123456789abcdef", byte(unicode.ToLower(rune(s[l]))))
		if d < 0 || d >= base {
			break
		}
		n = n*base + d
		l++
	}
	return n, l
}

// confusable returns a reason when s contains characters that can make a
// command look like another: invisible format characters, control
// characters, or any non-ASCII letter (fullwidth forms, homoglyphs).
func confusable(s string) string {
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return "the command name is not valid UTF-8"
		case unicode.Is(unicode.Cf, r) || unicode.IsControl(r):
			return fmt.Sprintf("the command name contains the invisible character %U", r)
		case r > unicode.MaxASCII:
			return fmt.Sprintf("the command name contains the non-ASCII character %q (%U), which can imitate another command", r, r)
		}
	}
	return ""
}

// foldConfusable maps fullwidth forms to ASCII and drops invisible format
// characters, so that the deny list sees "curl" in "ｃｕｒｌ" or "r\u200bm".
func foldConfusable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Cf, r):
		case r >= 0xFF01 && r <= 0xFF5E:
			b.WriteRune(r - 0xFEE0)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// EscapeInvisible returns s unchanged when it is printable ASCII, and
// otherwise as a bash $'...' string with every non-ASCII or control
// character escaped ("r\u200bm" is shown as $'r\u200bm'), so that a
// message never hides what a command really is.
func EscapeInvisible(s string) string {
	for _, r := range s {
		if r > unicode.MaxASCII || unicode.IsControl(r) {
			q := strconv.QuoteToASCII(s)
			return "$" + "'" + strings.ReplaceAll(q[1:len(q)-1], "'", `\'`) + "'"
		}
	}
	return s
}

// shellQuote quotes s for display when it is not a plain word.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./=:,+@%^", r))) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	for _, r := range s {
		if r > unicode.MaxASCII || unicode.IsControl(r) {
			return EscapeInvisible(s)
		}
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
