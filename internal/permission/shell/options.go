package shell

import "strings"

// argKind says whether an option takes a value.
type argKind uint8

const (
	argNone     argKind = iota + 1 // a flag: "-l", "--all"
	argRequired                    // a value glued or in the next word: "-n5", "-n 5", "--lines=5", "--lines 5"
	argOptional                    // a value only glued: "-uno", "--color=auto"; never the next word
)

// optSpec is an allowlist of options in getopt notation:
//
//   - short: one-letter options as a getopt optstring, "ln:u::" for -l,
//     -n VALUE and -u[VALUE]; they bundle ("-la", "-ln5").
//   - long: long option names without the dashes, with the same ":" and
//     "::" suffixes: "all format: color::" for --all, --format VALUE and
//     --color[=WHEN].
//   - words: single-dash word options (find -name, go -json, xxd -cols),
//     written without the dash and never bundled: "name: print". A
//     one-letter word option with a value may have it glued ("-c16").
//   - num: "-5" is a count (head -5, git log -3).
//
// Marking an option ":" when the program does not take the next word as
// its value would hide that word from the check, so uncertain values are
// "::" (glued only), which is always the stricter reading.
type optSpec struct {
	short, long, words string
	num                bool

	opts map[string]argKind // "-l", "--all", "-name" → kind; built by compile
}

// compile builds the lookup map from the notation. The tables call it
// once, while the package initialises; an uncompiled spec allows nothing.
func (s *optSpec) compile() {
	s.opts = map[string]argKind{}
	for i := 0; i < len(s.short); {
		name := "-" + s.short[i:i+1]
		i++
		kind := argNone
		switch {
		case strings.HasPrefix(s.short[i:], "::"):
			kind, i = argOptional, i+2
		case strings.HasPrefix(s.short[i:], ":"):
			kind, i = argRequired, i+1
		}
		s.opts[name] = kind
	}
	addNamed(s.opts, "--", s.long)
	addNamed(s.opts, "-", s.words)
}

func addNamed(m map[string]argKind, dashes, list string) {
	for _, f := range strings.Fields(list) {
		kind := argNone
		switch {
		case strings.HasSuffix(f, "::"):
			kind, f = argOptional, strings.TrimSuffix(f, "::")
		case strings.HasSuffix(f, ":"):
			kind, f = argRequired, strings.TrimSuffix(f, ":")
		}
		m[dashes+f] = kind
	}
}

// scan is the result of checking arguments against an optSpec.
type scan struct {
	operands []string
	seen     map[string]bool     // options given, by name ("-l", "--list")
	values   map[string][]string // the values of the options given, by name
	ok       bool                // every option is in the allowlist
}

func (r *scan) value(name, v string) { r.values[name] = append(r.values[name], v) }

// check reads args against the allowlist. With posix, options end at the
// first operand (printf, xxd, BSD tools, git before its subcommand).
func (s *optSpec) check(args []string, posix bool) scan {
	r := scan{seen: map[string]bool{}, values: map[string][]string{}, ok: true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			r.operands = append(r.operands, args[i+1:]...)
			return r
		}
		if len(a) < 2 || a[0] != '-' {
			if posix {
				r.operands = append(r.operands, args[i:]...)
				return r
			}
			r.operands = append(r.operands, a)
			continue
		}
		name, next, ok := s.option(a, &r)
		if !ok {
			r.ok = false
			return r
		}
		if next && i+1 < len(args) {
			i++ // the next word is the option's value
			r.value(name, args[i])
		}
	}
	return r
}

// option checks one option word; name is the option and next reports that
// the following word is its value (a glued value is recorded in r).
func (s *optSpec) option(a string, r *scan) (name string, next, ok bool) {
	if kind, found := s.opts[a]; found {
		r.seen[a] = true
		return a, kind == argRequired, true
	}
	if name, v, eq := strings.Cut(a, "="); eq && len(name) > 2 {
		kind := s.opts[name]
		r.seen[name] = true
		r.value(name, v)
		return name, false, kind == argRequired || kind == argOptional
	}
	if s.num && allDigits(a[1:]) {
		return a, false, true
	}
	if a[1] == '-' {
		return "", false, false // an unknown or abbreviated long option
	}
	if s.short == "" {
		// Word options: only a one-letter option with its value glued.
		kind := s.opts[a[:2]]
		r.seen[a[:2]] = true
		r.value(a[:2], a[2:])
		return a[:2], false, kind == argRequired || kind == argOptional
	}
	return s.bundle(a, r)
}

// bundle checks a getopt cluster ("-la", "-n5", "-vn 5").
func (s *optSpec) bundle(a string, r *scan) (name string, next, ok bool) {
	for j := 1; j < len(a); j++ {
		name := "-" + a[j:j+1]
		kind, found := s.opts[name]
		if !found {
			return "", false, false
		}
		r.seen[name] = true
		switch kind {
		case argRequired:
			if j < len(a)-1 {
				r.value(name, a[j+1:])
			}
			return name, j == len(a)-1, true
		case argOptional:
			r.value(name, a[j+1:])
			return name, false, true
		}
	}
	return "", false, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
