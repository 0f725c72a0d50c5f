package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Code reaching an interpreter other than through -c: a heredoc or
// here-string on a shell's standard input is shell code and is analysed;
// a program produced at run time (bash <(...), source /dev/fd/3, code a
// pipe or xargs supplies) or given in another language is unknown.

// isStdinRedirect reports a redirection of standard input (<, <<, <<-, <<<).
func isStdinRedirect(r *syntax.Redirect) bool {
	if r.N != nil && r.N.Value != "0" {
		return false
	}
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	}
	return false
}

// programReader reports commands that run a program they read: shells,
// interpreters, and the source / . builtins.
func programReader(base string) bool {
	return isShellOrInterpreter(base) || base == "source" || base == "."
}

// programSource judges where a shell, interpreter or source reads its
// program from: an operand produced at run time, a pipe, or a heredoc.
func (z *analyzer) programSource(sc *SimpleCommand, c actx) {
	base := foldConfusable(sc.Base())
	if !programReader(base) {
		return
	}
	if w, ok := programOperand(*sc); ok && runtimeProgram(w) {
		sc.InlineCode = true
		markSuspicious(sc, "runs a program produced at run time ("+w.Value+")")
		z.opaque(base + " runs a program produced at run time (" + w.Value + ")")
		return
	}
	if !readsProgramFromStdin(*sc) {
		return
	}
	switch {
	case c.in != nil:
		z.stdinCode(sc, c, base)
	case c.stdin:
		sc.StdinProgram = true
		markSuspicious(sc, "reads its program from a pipe, so the code cannot be checked")
		z.opaque(base + " runs code read from a pipe")
	}
}

// programOperand returns the first operand of an interpreter: its program.
func programOperand(sc SimpleCommand) (Word, bool) {
	for _, w := range sc.Words[1:] {
		if w.Literal && (strings.HasPrefix(w.Value, "-") || strings.HasPrefix(w.Value, "+")) && w.Value != "-" {
			continue
		}
		return w, true
	}
	return Word{}, false
}

// runtimeProgram reports a program file that is produced at run time: a
// process substitution or an open file descriptor.
func runtimeProgram(w Word) bool {
	if !w.Literal {
		return strings.HasPrefix(w.Value, "<(")
	}
	for _, p := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if strings.HasPrefix(w.Value, p) {
			return true
		}
	}
	return false
}

// stdinCode analyses the program a heredoc or here-string gives a shell.
func (z *analyzer) stdinCode(sc *SimpleCommand, c actx, base string) {
	r := c.in
	if r.Op == syntax.RdrIn {
		if w := z.word(r.Word); !w.Literal && strings.HasPrefix(w.Value, "<(") {
			sc.InlineCode = true
			z.opaque(base + " runs a program produced at run time (< " + w.Value + ")")
		}
		return // a file, like "bash FILE"
	}
	if !isShell(base) && base != "source" && base != "." {
		sc.InlineCode = true
		z.opaque(base + " runs a program given on standard input in a language aidex does not analyse")
		return
	}
	code, ok := z.stdinText(r)
	if !ok {
		sc.InlineCode = true
		markSuspicious(sc, "runs shell code built at run time")
		z.opaque(base + " runs shell code built at run time (a heredoc or here-string with expansions)")
		return
	}
	nc := nested(c, base+" "+r.Op.String())
	nc.in = nil
	z.parseAndWalk(code, nc)
}

// stdinText returns the text a heredoc or here-string feeds, or false
// when it has expansions.
func (z *analyzer) stdinText(r *syntax.Redirect) (string, bool) {
	if r.Op == syntax.WordHdoc {
		w := z.word(r.Word)
		return w.Value + "\n", w.Literal
	}
	if r.Hdoc == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(lit.Value)
	}
	text := b.String()
	if !z.word(r.Word).Quoted {
		text = unescapeHeredoc(text)
	}
	if r.Op == syntax.DashHdoc {
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		text = strings.Join(lines, "\n")
	}
	return text, true
}

// unescapeHeredoc removes the escapes bash honours in an unquoted heredoc
// body: \$, \`, \\ and backslash-newline.
func unescapeHeredoc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// shellFromInput reports a shell whose program comes from the input lines
// xargs or find -exec put in its arguments: no program at all (xargs sh),
// or a program or -c code containing the placeholder ({}).
func (z *analyzer) shellFromInput(base string, c actx, program *Word) bool {
	if c.input == "" {
		return false
	}
	if program != nil && (c.replace == "" || !strings.Contains(program.Pattern, c.replace)) {
		return false
	}
	z.opaque(base + " under " + c.input + " runs a program built from its input")
	return true
}

// builtinCode analyses the builtins whose arguments are shell code or
// load code (trap, mapfile -C, enable -f); it reports whether base is one.
func (z *analyzer) builtinCode(base string, words []Word, c actx) bool {
	switch base {
	case "trap":
		z.trapCode(words, c)
	case "mapfile", "readarray":
		z.mapfileCode(words, c)
	case "enable":
		z.enableCode(words)
	default:
		return false
	}
	return true
}

// trapCode analyses trap CODE SIGNAL...: the code runs later in this shell.
func (z *analyzer) trapCode(words []Word, c actx) {
	i := 1
	for i < len(words) && words[i].Literal && len(words[i].Value) > 1 && words[i].Value[0] == '-' {
		i++
		if words[i-1].Value == "--" {
			break
		}
	}
	if len(words)-i < 2 {
		return // trap -p, trap -l, trap SIGNAL
	}
	code := words[i]
	if code.Literal && (code.Value == "-" || code.Value == "") {
		return
	}
	z.shellString(code, nested(c, "trap"))
}

// mapfileCode analyses the callback of mapfile -C CODE.
func (z *analyzer) mapfileCode(words []Word, c actx) {
	for i := 1; i < len(words); i++ {
		v := words[i].Pattern
		if len(v) < 2 || v[0] != '-' || v == "--" {
			return
		}
		for j := 1; j < len(v); j++ {
			if !strings.ContainsRune("dnOsuCc", rune(v[j])) {
				continue
			}
			if v[j] == 'C' {
				code := valueAfter(words[i], v[:j+1])
				if j == len(v)-1 && i+1 < len(words) {
					code = words[i+1]
				}
				z.shellString(code, nested(c, "mapfile -C"))
			}
			if j == len(v)-1 {
				i++
			}
			break
		}
	}
}

// enableCode: enable -f FILE loads a shared library into the shell.
func (z *analyzer) enableCode(words []Word) {
	for _, w := range words[1:] {
		if strings.HasPrefix(w.Pattern, "-") && strings.Contains(w.Pattern, "f") || !w.Literal {
			z.opaque("enable -f loads a shared library into the shell")
			return
		}
	}
}
