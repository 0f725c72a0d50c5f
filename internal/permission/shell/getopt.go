package shell

import "strings"

// optVal is one option found by parse.
type optVal struct {
	name  string // the option's name in the spec: "-C", "--chdir"; "-N" for a count (nice -5)
	shown string // as written: "-C", "--chdi"
	value Word   // its value, when has
	has   bool
	at    int // index of the word that holds the value
}

// parsed is what parse found in a command's words.
type parsed struct {
	opts       []optVal
	next       int    // index of the first operand (with posix), or len(words)
	operands   []int  // indexes of the operands
	unknown    string // the first option the spec does not know, as written
	nonLiteral bool   // an option word built at run time: where the operands start is unknown
}

// first returns the value of the first of the named options given.
func (p parsed) first(names ...string) (Word, bool) {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n && o.has {
				return o.value, true
			}
		}
	}
	return Word{}, false
}

// parse reads words[from:] as GNU getopt_long reads them with this spec:
// short options bundle and take a value glued or in the next word, long
// options may be abbreviated to an unambiguous prefix and take a value
// after "=" or in the next word, "--" ends the options. With posix the
// options end at the first operand (wrappers: "+" optstrings). An option
// the spec does not know is recorded in unknown and read as a flag.
func (s *optSpec) parse(words []Word, from int, posix bool) parsed {
	p := parsed{next: len(words)}
	for i := from; i < len(words); i++ {
		w := words[i]
		switch {
		case !w.Literal && strings.HasPrefix(w.Pattern, "-"):
			p.nonLiteral, p.next = true, i
			return p
		case w.Literal && w.Value == "--":
			p.next = i + 1
			for j := i + 1; j < len(words); j++ {
				p.operands = append(p.operands, j)
			}
			return p
		case !w.Literal || len(w.Value) < 2 || w.Value[0] != '-':
			if posix {
				p.next = i
				for j := i; j < len(words); j++ {
					p.operands = append(p.operands, j)
				}
				return p
			}
			p.operands = append(p.operands, i)
		case strings.HasPrefix(w.Value, "--"):
			i += s.parseLong(words, i, &p)
		default:
			i += s.parseShort(words, i, &p)
		}
	}
	return p
}

// parseLong reads the long option words[i]; it returns 1 when the next
// word is its value.
func (s *optSpec) parseLong(words []Word, i int, p *parsed) int {
	v := words[i].Value
	written, _, eq := strings.Cut(v, "=")
	name, kind := s.longName(written)
	o := optVal{name: name, shown: written, at: i}
	switch {
	case name == "" || eq && kind == argNone:
		p.note(written)
		return 0
	case eq:
		o.value, o.has = valueAfter(words[i], written+"="), true
	case kind == argRequired && i+1 < len(words):
		o.value, o.has, o.at = words[i+1], true, i+1
		p.opts = append(p.opts, o)
		return 1
	}
	p.opts = append(p.opts, o)
	return 0
}

// longName resolves a long option as written ("--chdi") to its name in the
// spec: the exact name, or the only one it abbreviates.
func (s *optSpec) longName(written string) (string, argKind) {
	if kind, ok := s.opts[written]; ok {
		return written, kind
	}
	found, kind := "", argKind(0)
	for name, k := range s.opts {
		if strings.HasPrefix(name, "--") && strings.HasPrefix(name, written) {
			if found != "" {
				return "", 0 // ambiguous: getopt refuses it
			}
			found, kind = name, k
		}
	}
	return found, kind
}

// parseShort reads the cluster words[i] ("-0C DIR", "-oL", "-5"); it
// returns 1 when the next word is a value.
func (s *optSpec) parseShort(words []Word, i int, p *parsed) int {
	v := words[i].Value
	if s.num && allDigits(v[1:]) {
		p.opts = append(p.opts, optVal{name: "-N", shown: v, value: literalWord(v[1:]), has: true})
		return 0
	}
	for j := 1; j < len(v); j++ {
		name := "-" + v[j:j+1]
		kind, ok := s.opts[name]
		if !ok {
			p.note(name)
			continue
		}
		o := optVal{name: name, shown: name, at: i}
		switch {
		case kind == argNone:
			p.opts = append(p.opts, o)
			continue
		case j < len(v)-1:
			o.value, o.has = valueAfter(words[i], v[:j+1]), true
		case kind == argRequired && i+1 < len(words):
			o.value, o.has, o.at = words[i+1], true, i+1
			p.opts = append(p.opts, o)
			return 1
		}
		p.opts = append(p.opts, o)
		return 0
	}
	return 0
}

// note records an option the spec does not know.
func (p *parsed) note(shown string) {
	if p.unknown == "" {
		p.unknown = shown
	}
}
