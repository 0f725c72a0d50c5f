package shell

import (
	"strings"
)

// skipSpec describes a wrapper's options: short options that take an
// argument (letters), long options that take an argument (without "--").
type skipSpec struct {
	short string
	long  []string
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

// wrapper is one wrapper the analysis looks through: how it runs the
// wrapped command, and its options that take an argument.
type wrapper struct {
	kind wrapKind
	opts skipSpec
}

var (
	specStrace = skipSpec{short: "oesuEpPbaIX", long: []string{"output", "user", "env"}}
	specShell  = skipSpec{short: "oO", long: []string{"init-file", "rcfile"}}
)

// wrappers maps a wrapper (its base name, folded) to how it runs the
// command it wraps. Shells (sh -c CODE) are handled apart.
var wrappers = map[string]wrapper{
	"nohup":    {wrapRest, skipSpec{}},
	"builtin":  {wrapRest, skipSpec{}},
	"busybox":  {wrapRest, skipSpec{}},
	"toybox":   {wrapRest, skipSpec{}},
	"unbuffer": {wrapRest, skipSpec{}},
	"chronic":  {wrapRest, skipSpec{}},
	"command":  {wrapRest, skipSpec{}},
	"setsid":   {wrapRest, skipSpec{}},
	"time":     {wrapRest, skipSpec{short: "fo", long: []string{"format", "output"}}},
	"nice":     {wrapRest, skipSpec{short: "n", long: []string{"adjustment"}}},
	"exec":     {wrapRest, skipSpec{short: "a"}},
	"stdbuf":   {wrapRest, skipSpec{short: "ioe", long: []string{"input", "output", "error"}}},
	"ionice":   {wrapRest, skipSpec{short: "cnp", long: []string{"class", "classdata", "pid", "pgid", "uid"}}},
	"strace":   {wrapRest, specStrace},
	"ltrace":   {wrapRest, specStrace},
	"timeout":  {wrapTimeout, skipSpec{short: "sk", long: []string{"signal", "kill-after"}}},
	"sudo": {wrapPrivilege, skipSpec{short: "ugCDhprtUTR", long: []string{"user", "group", "close-from", "chdir", "host",
		"prompt", "role", "type", "other-user", "command-timeout", "chroot"}}},
	"doas": {wrapPrivilege, skipSpec{short: "uC"}},
	"su":   {wrapSu, skipSpec{}},
	"env":  {wrapEnv, skipSpec{short: "uCS", long: []string{"unset", "chdir", "split-string", "argv0"}}},
	"xargs": {wrapXargs, skipSpec{short: "InLPsdEa", long: []string{"arg-file", "delimiter", // --eof, --replace, --max-lines: value only with =
		"max-args", "max-procs", "max-chars", "process-slot-var"}}},
	"watch": {wrapWatch, skipSpec{short: "nqd", long: []string{"interval", "differences", "equexit"}}},
	"eval":  {wrapEval, skipSpec{}},
}

// skipOptions returns the index of the first operand after the options in
// words[from:], or -1 when an option word is not literal (position unknown).
func skipOptions(words []Word, from int, spec skipSpec) int {
	i := from
	for i < len(words) {
		w := words[i]
		if !w.Literal {
			if strings.HasPrefix(w.Pattern, "-") {
				return -1
			}
			return i
		}
		v := w.Value
		if v == "--" {
			return i + 1
		}
		if len(v) < 2 || v[0] != '-' {
			return i
		}
		if strings.HasPrefix(v, "--") {
			name, _, hasVal := strings.Cut(v[2:], "=")
			i++
			if !hasVal && longTakesValue(spec.long, name) {
				i++
			}
			continue
		}
		i++
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(spec.short, v[j]) >= 0 {
				if j == len(v)-1 {
					i++ // argument is the next word
				}
				break // the rest of this word is the argument
			}
		}
	}
	return i
}

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
	w, ok := wrappers[base]
	if !ok {
		return isShell(base) && z.unwrapShell(sc, c, base)
	}
	switch w.kind {
	case wrapRest:
		return z.unwrapRest(sc, c, base, w.opts)
	case wrapTimeout:
		return z.unwrapTimeout(sc, c, base, w.opts)
	case wrapPrivilege:
		return z.unwrapPrivilege(sc, c, base, w.opts)
	case wrapSu:
		return z.unwrapSu(sc, c)
	case wrapEnv:
		return z.unwrapEnv(sc, c, w.opts)
	case wrapXargs:
		return z.unwrapXargs(sc, c, base, w.opts)
	case wrapWatch:
		return z.unwrapWatch(sc, c, w.opts)
	case wrapEval:
		return z.unwrapEval(sc, c)
	}
	return false
}

// unwrapRest: the command is the words after the wrapper's options.
func (z *analyzer) unwrapRest(sc SimpleCommand, c actx, label string, spec skipSpec) bool {
	words := sc.Words
	i := skipOptions(words, 1, spec)
	if i < 0 {
		z.opaque(label + " with non-literal options")
		sc.NonLiteral = true
		markSuspicious(&sc, label+" with non-literal options")
		z.add(sc, c)
		return true
	}
	if i >= len(words) {
		return false // the wrapper alone is the command
	}
	z.simple(words[i:], nested(c, label), sc.ArgCommands, nil)
	return true
}

// unwrapTimeout: timeout [options] DURATION command.
func (z *analyzer) unwrapTimeout(sc SimpleCommand, c actx, base string, spec skipSpec) bool {
	words := sc.Words
	i := skipOptions(words, 1, spec)
	if i < 0 || i+1 >= len(words) {
		return false
	}
	z.simple(words[i+1:], nested(c, base), sc.ArgCommands, nil)
	return true
}

// unwrapPrivilege keeps sudo/doas itself as a command, so the deny list
// sees it, then analyses the command it runs.
func (z *analyzer) unwrapPrivilege(sc SimpleCommand, c actx, base string, spec skipSpec) bool {
	words := sc.Words
	i := skipOptions(words, 1, spec)
	z.add(SimpleCommand{Words: words[:1], Suspicious: sc.Suspicious, SuspiciousReason: sc.SuspiciousReason}, c)
	var env []string
	for i > 0 && i < len(words) && isAssignWord(words[i]) { // sudo NAME=value command
		if name, _, _ := strings.Cut(words[i].Pattern, "="); !isHarmlessEnv(name) {
			env = append(env, name)
		}
		i++
	}
	if i > 0 && i < len(words) {
		z.simple(words[i:], nested(c, base), sc.ArgCommands, env)
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

// unwrapXargs: xargs runs its command (echo without one) on its input.
func (z *analyzer) unwrapXargs(sc SimpleCommand, c actx, base string, spec skipSpec) bool {
	words := sc.Words
	i := skipOptions(words, 1, spec)
	c.input, c.replace = "xargs", xargsReplace(words, i)
	switch {
	case i < 0:
		return z.unwrapRest(sc, c, base, spec)
	case i >= len(words):
		z.simple([]Word{literalWord("echo")}, nested(c, base), nil, nil)
	default:
		z.simple(words[i:], nested(c, base), sc.ArgCommands, nil)
	}
	return true
}

// xargsReplace returns the placeholder xargs replaces with each input
// line (-I R, -i[R], --replace[=R]), or "" when it appends the input.
func xargsReplace(words []Word, end int) string {
	if end < 0 || end > len(words) {
		end = len(words)
	}
	r := ""
	for _, v := range optionValues(words[:end], 1, []string{"-I"}, false) {
		r = v.Pattern
	}
	for _, w := range words[1:end] {
		v := w.Pattern
		name, val, eq := strings.Cut(v, "=")
		switch {
		case strings.HasPrefix(v, "-i") && !strings.HasPrefix(v, "--"):
			r = "{}"
			if len(v) > 2 {
				r = v[2:]
			}
		case longPrefixOf(name, "--replace") && len(name) > 3:
			r = "{}"
			if eq {
				r = val
			}
		}
	}
	return r
}

// unwrapWatch: watch [options] WORDS runs the words as shell code.
func (z *analyzer) unwrapWatch(sc SimpleCommand, c actx, spec skipSpec) bool {
	i := skipOptions(sc.Words, 1, spec)
	if i < 0 || i >= len(sc.Words) {
		return false
	}
	z.joinedShell(sc, sc.Words[i:], nested(c, "watch"))
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

// unwrapEnv looks through env [OPTIONS] [NAME=value ...] COMMAND, and
// parses env -S STRING as shell words.
func (z *analyzer) unwrapEnv(sc SimpleCommand, c actx, spec skipSpec) bool {
	words := sc.Words
	i := 1
	var dangerous []string
	for ; i < len(words); i++ {
		w := words[i]
		if !w.Literal {
			if strings.HasPrefix(w.Pattern, "-") || strings.Contains(w.Pattern, "=") {
				z.opaque("env with non-literal options")
				sc.NonLiteral = true
				markSuspicious(&sc, "env with non-literal options")
				z.add(sc, c)
				return true
			}
			break
		}
		v := w.Value
		name, _, assign := strings.Cut(v, "=")
		switch {
		case v == "--":
		case isSplitString(v):
			z.envSplitString(words, i, c)
			return true
		case strings.HasPrefix(v, "-") && len(v) > 1:
			i = max(skipOptions(words[:i+1], i, spec), i+1) - 1
		case assign && isName(name):
			if !isHarmlessEnv(name) {
				dangerous = append(dangerous, name)
			}
		default:
			return z.envCommand(sc, c, i, dangerous)
		}
	}
	return z.envCommand(sc, c, i, dangerous)
}

// envCommand analyses the command env runs from words[i] (env alone
// prints the environment: it is the command).
func (z *analyzer) envCommand(sc SimpleCommand, c actx, i int, dangerous []string) bool {
	if i >= len(sc.Words) {
		return false
	}
	z.simple(sc.Words[i:], nested(c, "env"), sc.ArgCommands, dangerous)
	return true
}

// envSplitString parses env -S STRING [ARGS] as one shell line.
func (z *analyzer) envSplitString(words []Word, i int, c actx) {
	code, next := splitStringArg(words, i)
	rest := []string{code}
	for _, r := range words[next:] {
		if !r.Literal {
			z.opaque("env -S with non-literal arguments")
			return
		}
		rest = append(rest, shellQuote(r.Value))
	}
	z.parseAndWalk(strings.Join(rest, " "), nested(c, "env -S"))
}

// isSplitString reports env's -S / --split-string, abbreviated or
// bundled after flags ("-iS CODE", "--split-s=CODE").
func isSplitString(v string) bool {
	name, _, _ := strings.Cut(v, "=")
	if longPrefixOf(name, "--split-string") {
		return true
	}
	if len(v) < 2 || v[0] != '-' || v[1] == '-' {
		return false
	}
	for j := 1; j < len(v); j++ {
		switch v[j] {
		case 'S':
			return true
		case 'u', 'C': // -uNAME, -CDIR: the rest is their value
			return false
		}
	}
	return false
}

func splitStringArg(words []Word, i int) (string, int) {
	v := words[i].Value
	if name, val, eq := strings.Cut(v, "="); strings.HasPrefix(v, "--") {
		if eq && longPrefixOf(name, "--split-string") {
			return val, i + 1
		}
	} else if j := strings.IndexByte(v, 'S'); j > 0 && j < len(v)-1 {
		return v[j+1:], i + 1
	}
	if i+1 < len(words) {
		return words[i+1].Value, i + 2
	}
	return "", i + 1
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
