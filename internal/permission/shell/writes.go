package shell

import "strings"

// outKind says where an output option names the file it writes.
type outKind uint8

const (
	outOperands   outKind = iota + 1 // every operand (tee FILE...)
	outNext                          // the next word (curl -o FILE)
	outGlued                         // the rest of the word (dd of=FILE, sort -oFILE)
	outBundled                       // after the option letter inside a cluster (sort -nruo FILE, -nruoFILE)
	outLongAbbrev                    // a long option, abbreviated as GNU getopt allows (sort --outp FILE, --o=FILE)
)

// outputOption is one way a command names a file it writes.
type outputOption struct {
	kind   outKind
	opt    string // "-o", "of=", "--output"
	op     string // Target.Op for the file
	anyPos bool   // also after "--"
}

// outputOptions maps a command (its base name, folded) to the options
// that name a file it writes; genericOutputs apply to every command. The
// first option matching a word decides it.
var outputOptions = map[string][]outputOption{
	"tee":  {{kind: outOperands, op: "tee", anyPos: true}},
	"dd":   {{kind: outGlued, opt: "of=", op: "dd of=", anyPos: true}},
	"curl": {{kind: outNext, opt: "-o", op: "curl -o", anyPos: true}},
	"wget": {{kind: outNext, opt: "-O", op: "wget -O", anyPos: true}},
	"find": {
		{kind: outNext, opt: "-fprint", op: "find -fprint", anyPos: true},
		{kind: outNext, opt: "-fprint0", op: "find -fprint0", anyPos: true},
		{kind: outNext, opt: "-fprintf", op: "find -fprintf", anyPos: true},
		{kind: outNext, opt: "-fls", op: "find -fls", anyPos: true},
	},
	"sort": {
		{kind: outNext, opt: "-o", op: "sort -o", anyPos: true},
		{kind: outGlued, opt: "-o", op: "sort -o", anyPos: true},
		{kind: outBundled, opt: "-o", op: "sort -o"},
		{kind: outLongAbbrev, opt: "--output", op: "sort --output"},
	},
}

var genericOutputs = []outputOption{
	{kind: outNext, opt: "--output", op: "--output"},
	{kind: outNext, opt: "--output-file", op: "--output-file"},
	{kind: outNext, opt: "--log-file", op: "--log-file"},
	{kind: outGlued, opt: "--output=", op: "--output="},
	{kind: outGlued, opt: "--output-file=", op: "--output-file="},
	{kind: outGlued, opt: "--log-file=", op: "--log-file="},
}

// commandWrites records files written through arguments: tee FILE,
// dd of=FILE, sort -o FILE, --output=FILE and the rest of outputOptions.
func (z *analyzer) commandWrites(sc SimpleCommand) {
	own := outputOptions[sc.FoldedBase()]
	words := sc.Words[1:]
	opts := true
	for i, w := range words {
		if w.Pattern == "--" {
			opts = false
			continue
		}
		if z.outputWord(own, words, i, opts) {
			continue
		}
		z.outputWord(genericOutputs, words, i, opts)
	}
}

// outputWord records the file named by words[i] or the word after it for
// the first matching option; it reports whether one matched.
func (z *analyzer) outputWord(list []outputOption, words []Word, i int, opts bool) bool {
	for _, o := range list {
		if !opts && !o.anyPos {
			continue
		}
		if w, found, ok := o.file(words, i, opts); ok {
			if found {
				z.a.Writes = append(z.a.Writes, Target{Op: o.op, Word: w})
			}
			return true
		}
	}
	return false
}

// file applies the option to words[i] (opts: before any "--"): ok
// reports a match, found that the file could be located (an option at the
// end of the line names none).
func (o outputOption) file(words []Word, i int, opts bool) (w Word, found, ok bool) {
	v := words[i].Pattern
	next := i+1 < len(words)
	switch o.kind {
	case outOperands:
		return words[i], true, v != "-" && (!opts || !strings.HasPrefix(v, "-"))
	case outNext:
		if v == o.opt && next {
			return words[i+1], true, true
		}
	case outGlued:
		if strings.HasPrefix(v, o.opt) && (len(v) > len(o.opt) || strings.HasSuffix(o.opt, "=")) {
			return valueAfter(words[i], o.opt), true, true
		}
	case outBundled:
		return bundledFile(o.opt[1], words, i)
	case outLongAbbrev:
		return longAbbrevFile(o.opt, words, i)
	}
	return Word{}, false, false
}

// bundledFile handles a short option letter bundled after others:
// "-nruo FILE" or "-nruoFILE".
func bundledFile(letter byte, words []Word, i int) (Word, bool, bool) {
	v := words[i].Pattern
	if len(v) <= 2 || v[0] != '-' || v[1] == '-' || strings.IndexByte(v, letter) <= 0 {
		return Word{}, false, false
	}
	j := strings.IndexByte(v, letter)
	if j < len(v)-1 {
		return valueAfter(words[i], v[:j+1]), true, true
	}
	if i+1 < len(words) {
		return words[i+1], true, true
	}
	return Word{}, false, true
}

// longAbbrevFile handles an abbreviated long option, "--o=FILE" or
// "--outp FILE" for --output (the option in full is left to the generic
// table).
func longAbbrevFile(opt string, words []Word, i int) (Word, bool, bool) {
	v := words[i].Pattern
	name, _, eq := strings.Cut(v, "=")
	if v == opt || !isLongAbbrev(name, opt) {
		return Word{}, false, false
	}
	if eq {
		return valueAfter(words[i], name+"="), true, true
	}
	if i+1 < len(words) {
		return words[i+1], true, true
	}
	return Word{}, false, true
}

// valueAfter returns the part of w after prefix (literal words only keep
// their literal value; others keep a pattern).
func valueAfter(w Word, prefix string) Word {
	out := w
	out.Pattern = strings.TrimPrefix(w.Pattern, prefix)
	if w.Literal {
		out.Value = strings.TrimPrefix(w.Value, prefix)
	}
	return out
}

// isLongAbbrev reports whether a is an abbreviation of the long option o
// ("--o" or "--outp" for "--output"), which GNU getopt_long and git
// accept when unambiguous.
func isLongAbbrev(a, o string) bool {
	if !strings.HasPrefix(o, "--") || !strings.HasPrefix(a, "--") {
		return false
	}
	name, _, _ := strings.Cut(a, "=")
	return len(name) > 2 && strings.HasPrefix(o, name)
}
