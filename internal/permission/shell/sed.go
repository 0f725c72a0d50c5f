package shell

import "strings"

// sedOptions are every option of GNU sed (for finding its scripts).
var sedOptions = compiled(optSpec{short: "bnrsuzEe:f:l:i::", long: "binary debug in-place:: regexp-extended " +
	"expression: file: follow-symlinks help line-length: null-data zero-terminated quiet posix silent sandbox " +
	"separate unbuffered version"})

// sedScripts marks a sed whose script can run commands or touch files
// other than its input (see sedRisk), is read from a file or is built at
// run time: the line is opaque and no rule may allow the command.
func (z *analyzer) sedScripts(sc *SimpleCommand) {
	if b := sc.FoldedBase(); b != "sed" && b != "gsed" {
		return
	}
	if r := sedProblem(sc.Words); r != "" {
		markSuspicious(sc, r)
		z.opaque(r)
	}
}

// sedScriptWords returns the indexes of the words of a sed command that
// hold its scripts (-e SCRIPT, -eSCRIPT, --expression=SCRIPT, or the first
// operand), which are not paths.
func sedScriptWords(sc SimpleCommand) map[int]bool {
	if b := sc.FoldedBase(); b != "sed" && b != "gsed" {
		return nil
	}
	p := sedOptions.parse(sc.Words, 1, false)
	out := map[int]bool{}
	for _, o := range p.opts {
		if o.has && (o.name == "-e" || o.name == "--expression") {
			out[o.at] = true
		}
	}
	if len(out) == 0 && len(p.operands) > 0 {
		out[p.operands[0]] = true
	}
	return out
}

// sedProblem returns why sed's scripts are unknown, or "".
func sedProblem(words []Word) string {
	p := sedOptions.parse(words, 1, false)
	switch {
	case p.nonLiteral:
		return "sed with options built at run time"
	case p.unknown != "":
		return "sed with the option " + p.unknown + ", which aidex does not know"
	}
	var scripts []Word
	for _, o := range p.opts {
		switch o.name {
		case "-f", "--file":
			return "sed reads its script from a file, which aidex cannot check"
		case "-e", "--expression":
			scripts = append(scripts, o.value)
		}
	}
	if len(scripts) == 0 && len(p.operands) > 0 {
		scripts = append(scripts, words[p.operands[0]])
	}
	texts := make([]string, 0, len(scripts))
	for _, w := range scripts {
		if !w.Literal {
			return "sed script built at run time: " + w.Value
		}
		texts = append(texts, w.Value)
	}
	return sedScriptsRisk(texts)
}

// sedScriptsRisk checks each script and the scripts joined, as sed joins
// its -e scripts.
func sedScriptsRisk(scripts []string) string {
	for _, s := range append(scripts, strings.Join(scripts, "\n")) {
		if r := sedRisk(s); r != "" {
			return r
		}
	}
	return ""
}

// sedRisk returns why a sed script may run a command or read or write a
// file other than its input (the e, r, R, w and W commands, the e and w
// flags of s), or "" when it cannot. What the scanner does not understand
// is a risk too. Bracket expressions in regular expressions are read both
// as GNU sed reads them and as plain characters; either reading decides.
func sedRisk(script string) string {
	for _, brackets := range []bool{true, false} {
		p := &sedScanner{s: script, brackets: brackets}
		for {
			p.skipSeparators()
			if p.eof() {
				break
			}
			if r := p.command(); r != "" {
				return "sed script " + r
			}
		}
	}
	return ""
}

// sedScanner reads a sed script one command at a time.
type sedScanner struct {
	s        string
	i        int
	brackets bool // "[...]" in a regular expression may hold the delimiter
}

const sedUnknown = "that aidex cannot read"

func (p *sedScanner) eof() bool { return p.i >= len(p.s) }

func (p *sedScanner) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedScanner) skipSpaces() {
	for p.peek() == ' ' || p.peek() == '\t' {
		p.i++
	}
}

func (p *sedScanner) skipSeparators() {
	for !p.eof() && strings.IndexByte(" \t\n;", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sedScanner) digits() {
	for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
		p.i++
	}
}

// command reads [ADDR[,ADDR]][!]CMD and its arguments.
func (p *sedScanner) command() string {
	if p.peek() == '#' {
		p.toEOL()
		return ""
	}
	if !p.address(false) {
		return "with an address " + sedUnknown
	}
	p.skipSpaces()
	if p.peek() == ',' {
		p.i++
		p.skipSpaces()
		if !p.address(true) {
			return "with an address " + sedUnknown
		}
	}
	p.skipSpaces()
	for p.peek() == '!' {
		p.i++
		p.skipSpaces()
	}
	if p.eof() {
		return "with an address and no command"
	}
	c := p.s[p.i]
	p.i++
	return p.body(c)
}

// address reads one address: N, N~M, $, /RE/, \cREc (with I and M
// flags); second addresses may also be +N or ~N.
func (p *sedScanner) address(second bool) bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.peek() == '~' {
			p.i++
			p.digits()
		}
	case second && (c == '+' || c == '~'):
		p.i++
		p.digits()
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		p.i++
		if c == '\\' {
			if p.eof() {
				return false
			}
			c = p.s[p.i]
			p.i++
		}
		if !p.delimited(c, true) {
			return false
		}
		for p.peek() == 'I' || p.peek() == 'M' {
			p.i++
		}
	}
	return true
}
