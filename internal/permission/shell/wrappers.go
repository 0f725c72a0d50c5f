package shell

import (
	"strings"
)

// skipSpec lists the long options of a shell that take a value.
type skipSpec struct {
	long []string
}

// wrapKind says how a wrapper runs the command it wraps.
type wrapKind uint8

const (
	wrapRest      wrapKind = iota + 1 // the words after its options (nohup, nice, stdbuf, ...)
	wrapTimeout                       // options, a duration, then the command
	wrapPrivilege                     // sudo, doas: kept as a command for the deny list, then the rest
	wrapSu                            // su -c CODE
	wrapEnv                           // env [-S CODE] [NAME=value ...] [command]
	wrapXargs                         // xargs [options] [command], echo by default
	wrapWatch                         // watch [options] WORDS: the words joined are shell code
	wrapEval                          // eval WORDS: the words joined are shell code
)

var specShell = skipSpec{long: []string{"init-file", "rcfile"}}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unwrap handles wrappers; it reports whether sc was consumed.
func (z *analyzer) unwrap(sc SimpleCommand, c actx) bool {
	base := sc.FoldedBase()
	if sc.Suspicious {
		c.taint = sc.SuspiciousReason
	}
	w, ok := wrappers()[base]
	if !ok {
		return isShell(base) && z.unwrapShell(sc, c, base)
	}
	switch w.kind {
	case wrapRest:
		return z.unwrapRest(sc, c, base, w)
	case wrapTimeout:
		return z.unwrapTimeout(sc, c, base, w)
	case wrapPrivilege:
		return z.unwrapPrivilege(sc, c, base, w)
	case wrapSu:
		return z.unwrapSu(sc, c)
	case wrapEnv:
		return z.unwrapEnv(sc, c, w)
	case wrapXargs:
		return z.unwrapXargs(sc, c, base, w)
	case wrapWatch:
		return z.unwrapWatch(sc, c, w)
	case wrapEval:
		return z.unwrapEval(sc, c)
	}
	return false
}

// unwrapRest: the command is the words after the wrapper's options.
func (z *analyzer) unwrapRest(sc SimpleCommand, c actx, label string, w *wrapper) bool {
	nc, p := z.wrapperOptions(sc, c, label, w)
	if p.nonLiteral {
		return z.nonLiteralWrapper(sc, c, label)
	}
	if p.next >= len(sc.Words) {
		return false // the wrapper alone is the command
	}
	z.simple(sc.Words[p.next:], nc, sc.ArgCommands, nil)
	return true
}

// unwrapTimeout: timeout [options] DURATION command.
func (z *analyzer) unwrapTimeout(sc SimpleCommand, c actx, base string, w *wrapper) bool {
	nc, p := z.wrapperOptions(sc, c, base, w)
	if p.nonLiteral {
		return z.nonLiteralWrapper(sc, c, base)
	}
	if p.next+1 >= len(sc.Words) {
		return false
	}
	z.simple(sc.Words[p.next+1:], nc, sc.ArgCommands, nil)
	return true
}

// unwrapPrivilege keeps sudo/doas itself as a command, so the deny list
// sees it, then analyses the command it runs.
func (z *analyzer) unwrapPrivilege(sc SimpleCommand, c actx, base string, w *wrapper) bool {
	words := sc.Words
	nc, p := z.wrapperOptions(sc, c, base, w)
	z.add(SimpleCommand{Words: words[:1], Suspicious: sc.Suspicious, SuspiciousReason: sc.SuspiciousReason}, c)
	if p.nonLiteral {
		z.opaque(base + " with non-literal options")
		return true
	}
	i := p.next
	var env []string
	for i < len(words) && isAssignWord(words[i]) { // sudo NAME=value command
		if name, _, _ := strings.Cut(words[i].Pattern, "="); !isHarmlessEnv(name) {
			env = append(env, name)
		}
		i++
	}
	if i < len(words) {
		z.simple(words[i:], nc, sc.ArgCommands, env)
	}
	return true
}

// unwrapSu keeps su as a command and parses the code of su -c.
func (z *analyzer) unwrapSu(sc SimpleCommand, c actx) bool {
	z.add(sc, c)
	for _, code := range optionValues(sc.Words, 1, []string{"-c", "--command", "--session-command"}, false) {
		z.shellString(code, nested(c, "su -c"))
	}
	return true
}

// unwrapXargs: xargs runs its command (echo without one) on its input,
// with arguments read at run time.
func (z *analyzer) unwrapXargs(sc SimpleCommand, c actx, base string, w *wrapper) bool {
	nc, p := z.wrapperOptions(sc, c, base, w)
	nc.inputArgs = true
	nc.input, nc.replace = "xargs", xargsReplace(p)
	switch {
	case p.nonLiteral:
		return z.nonLiteralWrapper(sc, c, base)
	case p.next >= len(sc.Words):
		z.simple([]Word{literalWord("echo")}, nc, nil, nil)
	default:
		z.simple(sc.Words[p.next:], nc, sc.ArgCommands, nil)
	}
	return true
}

// xargsReplace returns the placeholder xargs replaces with each input
// line (-I R, -i[R], --replace[=R]), or "" when it appends the input.
func xargsReplace(p parsed) string {
	r := ""
	for _, o := range p.opts {
		switch o.name {
		case "-I":
			if o.has {
				r = o.value.Pattern
			}
		case "-i", "--replace":
			r = "{}"
			if o.has {
				r = o.value.Pattern
			}
		}
	}
	return r
}

// unwrapWatch: watch [options] WORDS runs the words as shell code.
func (z *analyzer) unwrapWatch(sc SimpleCommand, c actx, w *wrapper) bool {
	nc, p := z.wrapperOptions(sc, c, "watch", w)
	if p.nonLiteral || p.next >= len(sc.Words) {
		return false
	}
	z.joinedShell(sc, sc.Words[p.next:], nc)
	return true
}

// unwrapEval: eval WORDS runs the words as shell code.
func (z *analyzer) unwrapEval(sc SimpleCommand, c actx) bool {
	if len(sc.Words) > 1 {
		z.joinedShell(sc, sc.Words[1:], nested(c, "eval"))
	}
	return true
}

// joinedShell parses the words joined by spaces as a shell line (eval, watch).
func (z *analyzer) joinedShell(sc SimpleCommand, words []Word, c actx) {
	parts := make([]string, 0, len(words))
	for _, w := range words {
		if !w.Literal {
			z.opaque(sc.Words[0].Value + " of a non-literal string")
			markSuspicious(&sc, "runs a string built at run time")
			sc.InlineCode = true
			z.add(sc, c)
			return
		}
		parts = append(parts, w.Value)
	}
	z.parseAndWalk(strings.Join(parts, " "), c)
}

// shellString parses a literal shell-code word, or marks the line opaque.
func (z *analyzer) shellString(w Word, c actx) {
	if !w.Literal {
		z.opaque("shell code built at run time: " + w.Value)
		return
	}
	z.parseAndWalk(w.Value, c)
}

func (z *analyzer) unwrapShell(sc SimpleCommand, c actx, base string) bool {
	words := sc.Words
	i := 1
	for ; i < len(words); i++ {
		v := words[i].Value
		if !words[i].Literal || v == "--" || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
			break
		}
		switch {
		case strings.HasPrefix(v, "--"):
			if longTakesValue(specShell.long, strings.TrimPrefix(v, "--")) {
				i++
			}
		case strings.ContainsAny(v[1:], "oO") && !strings.Contains(v[1:], "c"):
			i++
		case strings.Contains(v[1:], "c"):
			return z.shellCode(sc, c, base, i+1)
		}
	}
	if i < len(words) && words[i].Value == "--" {
		i++
	}
	var prog *Word
	if i < len(words) {
		prog = &words[i]
	}
	z.shellFromInput(base, c, prog)
	return false
}

// shellCode analyses the code of sh -c CODE, words[i] (false: no code).
func (z *analyzer) shellCode(sc SimpleCommand, c actx, base string, i int) bool {
	if i >= len(sc.Words) {
		z.shellFromInput(base, c, nil)
		return false
	}
	code := sc.Words[i]
	if !code.Literal || z.shellFromInput(base, c, &code) {
		if !code.Literal {
			z.opaque(base + " -c with code built at run time")
		}
		sc.InlineCode = true
		markSuspicious(&sc, base+" -c runs code built at run time")
		z.add(sc, c)
		return true
	}
	z.parseAndWalk(code.Value, nested(c, base+" -c"))
	return true
}

// unwrapEnv looks through env [OPTIONS] [-] [NAME=value ...] COMMAND,
// and parses env -S STRING as shell words.
func (z *analyzer) unwrapEnv(sc SimpleCommand, c actx, w *wrapper) bool {
	words := sc.Words
	nc, p := z.wrapperOptions(sc, c, "env", w)
	if p.nonLiteral {
		return z.nonLiteralWrapper(sc, c, "env")
	}
	if code, ok := p.first("-S", "--split-string"); ok {
		sc := c
		sc.optPaths = nc.optPaths // env -C DIR -S CODE: the directory is confined too
		z.envSplitString(code, words[p.next:], sc)
		return true
	}
	i := p.next
	if i < len(words) && words[i].Literal && words[i].Value == "-" {
		nc.wrapTaint = true // "-" is -i
		i++
	}
	var dangerous []string
	for ; i < len(words); i++ {
		w := words[i]
		if !w.Literal {
			if strings.Contains(w.Pattern, "=") {
				return z.nonLiteralWrapper(sc, c, "env")
			}
			break
		}
		name, _, assign := strings.Cut(w.Value, "=")
		if !assign || !isName(name) {
			break
		}
		if !isHarmlessEnv(name) {
			dangerous = append(dangerous, name)
		}
		if !envKeepsReadOnly(name) {
			nc.wrapTaint = true
		}
	}
	if i >= len(words) {
		return false // env alone prints the environment: it is the command
	}
	z.simple(words[i:], nc, sc.ArgCommands, dangerous)
	return true
}

// envSplitString parses env -S STRING [ARGS] as one shell line.
func (z *analyzer) envSplitString(code Word, args []Word, c actx) {
	if !code.Literal {
		z.opaque("env -S with a string built at run time")
		return
	}
	rest := []string{code.Value}
	for _, r := range args {
		if !r.Literal {
			z.opaque("env -S with non-literal arguments")
			return
		}
		rest = append(rest, shellQuote(r.Value))
	}
	z.parseAndWalk(strings.Join(rest, " "), nested(c, "env -S"))
}

// isAssignWord reports a NAME=value word.
func isAssignWord(w Word) bool {
	name, _, ok := strings.Cut(w.Pattern, "=")
	return ok && isName(name)
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
