package shell

import "strings"

// GNU getopt_long, git's parse-options and most tools accept any
// unambiguous prefix of a long option ("--to-comm" for "--to-command"),
// and bundle one-letter options ("-xI CMD", "-qc CMD"). Finding the
// options that take code or skip a wrapper's option values reads them the
// same way. An ambiguous prefix makes the tool fail, so matching every
// prefix is the stricter reading.

// longPrefixOf reports whether the option word name ("--to-comm", without
// "=value") abbreviates the long option opt ("--to-command").
func longPrefixOf(name, opt string) bool {
	return len(name) > 2 && strings.HasPrefix(name, "--") && strings.HasPrefix(opt, name)
}

// longTakesValue reports whether name (without dashes) abbreviates one of
// the long options in list (without dashes).
func longTakesValue(list []string, name string) bool {
	for _, l := range list {
		if name != "" && strings.HasPrefix(l, name) {
			return true
		}
	}
	return false
}

// optionValues returns the values of the options opts in words[from:],
// up to "--": "-x V", "-xV", "-abx V" and "-abxV" for a one-letter option
// (bundled after other letters), "-exec V" and "-exec=V" for a word option,
// and "--exec V", "--exec=V" and their abbreviations for a long one. With
// gluedOnly the value is never the next word (git grep -O[PAGER]).
func optionValues(words []Word, from int, opts []string, gluedOnly bool) []Word {
	var out []Word
	for i := from; i < len(words); i++ {
		v := words[i].Pattern
		if v == "--" {
			break
		}
		for _, o := range opts {
			val, next, ok := optionValue(words[i], o)
			if !ok {
				continue
			}
			switch {
			case !next:
				out = append(out, val)
			case !gluedOnly && i+1 < len(words):
				out = append(out, words[i+1])
				i++
			}
			break
		}
	}
	return out
}

// optionValue matches one word against the option o: the glued value, or
// next when the value is the following word.
func optionValue(w Word, o string) (val Word, next, ok bool) {
	v := w.Pattern
	switch {
	case strings.HasPrefix(o, "--"):
		name, _, eq := strings.Cut(v, "=")
		if !longPrefixOf(name, o) {
			return Word{}, false, false
		}
		if eq {
			return valueAfter(w, name+"="), false, true
		}
		return Word{}, true, true
	case len(o) > 2: // a word option: -exec, -TT
		if v == o {
			return Word{}, true, true
		}
		if strings.HasPrefix(v, o+"=") {
			return valueAfter(w, o+"="), false, true
		}
		return Word{}, false, false
	}
	if len(v) < 2 || v[0] != '-' || v[1] == '-' {
		return Word{}, false, false
	}
	j := strings.IndexByte(v[1:], o[1])
	if j < 0 || !allLetters(v[1:j+1]) {
		return Word{}, false, false
	}
	if j+2 == len(v) {
		return Word{}, true, true
	}
	return valueAfter(w, v[:j+2]), false, true
}

// allLetters reports option letters (a bundle before the option).
func allLetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
