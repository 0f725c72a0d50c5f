package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/kind"
)

// Limits of the search tools.
const (
	defaultMaxResults = 100  // grep matches shown by default
	maxMaxResults     = 1000 // grep max_results ceiling
	grepCollectLimit  = 5000 // matching lines a backend collects before stopping
	maxContextLines   = 10   // grep context_lines ceiling
	grepLineChars     = 500  // grep output cuts lines longer than this (bytes)
	grepOutputBytes   = 64 << 10
	grepFileMatches   = 200 // grep_file matches shown
)

// GrepRequest is one search for a GrepBackend.
type GrepRequest struct {
	// Root is the absolute directory (searched recursively, honouring
	// .gitignore files at and below it, skipping .git, hidden files
	// included) or file to search.
	Root string
	// Pattern is a regular expression in RE2 syntax, already validated.
	Pattern string
	// IgnoreCase searches case-insensitively.
	IgnoreCase bool
	// Include, when set, is a glob that file paths relative to Root must
	// match (doublestar syntax; without "/" it matches the base name;
	// a leading "!" excludes).
	Include string
	// Context is the number of context lines around each match.
	Context int
	// Limit stops the search once this many matching lines were found
	// (the result may hold a few more); 0 means no limit.
	Limit int
}

// GrepLine is one output line of a search: a match or a context line.
type GrepLine struct {
	Num   int    // 1-based line number
	Text  string // line without its terminator
	Match bool   // false for context lines
}

// GrepFile holds the lines found in one file, in line order.
type GrepFile struct {
	Path  string // absolute path
	Lines []GrepLine
}

// GrepResult is the outcome of a search: files sorted by path.
type GrepResult struct {
	Files     []GrepFile
	Matches   int  // matching lines found
	Truncated bool // the search stopped at Limit
}

// GrepBackend runs searches for the grep tool. Both implementations give
// the same results on the same tree (binary files, i.e. files with a NUL
// byte, and files over MaxReadBytes are skipped).
type GrepBackend interface {
	// Name identifies the backend ("ripgrep", "go").
	Name() string
	// Search runs req; the error is an infrastructure failure (the grep
	// tool then retries with the Go backend).
	Search(ctx context.Context, req GrepRequest) (GrepResult, error)
}

// DefaultGrepBackend returns Ripgrep when `rg` is on PATH, else GoGrep.
func DefaultGrepBackend() GrepBackend {
	if p, err := exec.LookPath("rg"); err == nil {
		return Ripgrep{Path: p}
	}
	return GoGrep{}
}

// compilePattern compiles a grep pattern as both backends read it:
// multi-line mode (^ and $ match at line boundaries), optionally
// case-insensitive.
func compilePattern(pattern string, ignoreCase bool) (*regexp.Regexp, error) {
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	return regexp.Compile(flags + pattern)
}

// requiredLiteral returns a case-sensitive literal that every match of
// pattern contains (the longest literal of a top-level concatenation), or
// nil. Lines without it cannot match, so a fast bytes.Index finds the
// candidate lines.
func requiredLiteral(pattern string, ignoreCase bool) []byte {
	if ignoreCase {
		return nil
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var best []rune
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(r.Rune) > len(best) {
			best = r.Rune
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		consider(re)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			consider(sub)
		}
	}
	if len(best) == 0 {
		return nil
	}
	return []byte(string(best))
}

// maxLitAlts bounds the literals of a prefilter (alternatives times
// concatenated character choices).
const maxLitAlts = 16

// litAlt is one literal of a prefilter.
type litAlt struct {
	s    []byte // when fold, lower-case ASCII
	fold bool   // match ignoring ASCII case
	rare int    // when fold, the index in s of the byte looked for first
}

// litSet is a set of literals at least one of which every match of a
// regexp contains; exact means every match is exactly one of them (so a
// concatenation can extend them).
type litSet struct {
	alts  []litAlt
	exact bool
}

// usable reports whether the set can prefilter: no empty literal.
func (s litSet) usable() bool {
	if len(s.alts) == 0 {
		return false
	}
	for _, a := range s.alts {
		if len(a.s) == 0 {
			return false
		}
	}
	return true
}

// better reports whether s is a more selective prefilter than t: longer
// shortest literal, then fewer literals.
func (s litSet) better(t litSet) bool {
	if !s.usable() {
		return false
	}
	if !t.usable() {
		return true
	}
	minLen := func(x litSet) int {
		m := len(x.alts[0].s)
		for _, a := range x.alts {
			m = min(m, len(a.s))
		}
		return m
	}
	if ms, mt := minLen(s), minLen(t); ms != mt {
		return ms > mt
	}
	return len(s.alts) < len(t.alts)
}

// emptyLits is the set of an empty-width regexp: the empty literal.
func emptyLits() litSet { return litSet{alts: []litAlt{{}}, exact: true} }

// extractLits returns literals every match of re contains (see litSet),
// or false. Case-folded literals keep only runes whose folds are all
// ASCII (k and s fold to U+212A KELVIN SIGN and U+017F LONG S), so an
// ASCII case-insensitive search finds them.
func extractLits(re *syntax.Regexp) (litSet, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return emptyLits(), true
	case syntax.OpLiteral:
		return literalLits(re)
	case syntax.OpCharClass:
		return classLits(re.Rune)
	case syntax.OpCapture:
		return extractLits(re.Sub[0])
	case syntax.OpPlus:
		s, ok := extractLits(re.Sub[0])
		s.exact = false
		return s, ok
	case syntax.OpRepeat:
		if re.Min < 1 {
			return litSet{}, false
		}
		s, ok := extractLits(re.Sub[0])
		s.exact = false
		return s, ok
	case syntax.OpConcat:
		return concatLits(re.Sub)
	case syntax.OpAlternate:
		out := litSet{exact: true}
		for _, sub := range re.Sub {
			s, ok := extractLits(sub)
			if !ok || !s.usable() || len(out.alts)+len(s.alts) > maxLitAlts {
				return litSet{}, false
			}
			out.alts = append(out.alts, s.alts...)
			out.exact = out.exact && s.exact
		}
		return out, true
	}
	return litSet{}, false
}

func literalLits(re *syntax.Regexp) (litSet, bool) {
	if re.Flags&syntax.FoldCase == 0 {
		return litSet{alts: []litAlt{{s: []byte(string(re.Rune))}}, exact: true}, true
	}
	var best, run []byte
	exact := true
	for _, r := range append(slices.Clone(re.Rune), -1) { // -1 ends the last run
		if r >= 0 && asciiFoldOnly(r) {
			run = append(run, byte(unicode.ToLower(r)))
			continue
		}
		if r >= 0 {
			exact = false
		}
		if len(run) > len(best) {
			best = slices.Clone(run)
		}
		run = run[:0]
	}
	if len(best) == 0 {
		return litSet{}, false
	}
	return litSet{alts: []litAlt{{s: best, fold: true}}, exact: exact}, true
}

// classLits turns a small character class (pairs of rune ranges) into
// one literal per rune.
func classLits(ranges []rune) (litSet, bool) {
	out := litSet{exact: true}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] >= maxLitAlts {
			return litSet{}, false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if len(out.alts) == 4 {
				return litSet{}, false
			}
			out.alts = append(out.alts, litAlt{s: utf8.AppendRune(nil, r)})
		}
	}
	return out, len(out.alts) > 0
}

// concatLits joins runs of exact sets by their cross product and returns
// the most selective set of the concatenation.
func concatLits(subs []*syntax.Regexp) (litSet, bool) {
	var best litSet
	cur, whole := emptyLits(), true
	for _, sub := range subs {
		s, ok := extractLits(sub)
		if ok && s.exact {
			if joined, ok := crossLits(cur, s); ok {
				cur = joined
				continue
			}
		}
		whole = false
		if cur.better(best) {
			best = litSet{alts: cur.alts}
		}
		if ok && s.better(best) {
			best = litSet{alts: s.alts}
		}
		cur = emptyLits()
		if ok && s.exact {
			cur = s
		}
	}
	if whole {
		return cur, true
	}
	if cur.better(best) {
		best = litSet{alts: cur.alts}
	}
	return best, best.usable()
}

// crossLits concatenates every literal of a with every literal of b; it
// fails when the result would have too many literals or would mix a
// case-folded literal with a case-sensitive letter or non-ASCII byte.
func crossLits(a, b litSet) (litSet, bool) {
	if len(a.alts)*len(b.alts) > maxLitAlts {
		return litSet{}, false
	}
	out := litSet{exact: true}
	for _, x := range a.alts {
		for _, y := range b.alts {
			fold := x.fold || y.fold
			if fold && (!foldSafe(x) || !foldSafe(y)) {
				return litSet{}, false
			}
			out.alts = append(out.alts, litAlt{s: append(slices.Clip(x.s), y.s...), fold: fold})
		}
	}
	return out, true
}

// foldSafe reports whether a can join a case-folded literal unchanged.
func foldSafe(a litAlt) bool {
	if a.fold {
		return true
	}
	for _, c := range a.s {
		if c >= utf8.RuneSelf || unicode.IsLetter(rune(c)) {
			return false
		}
	}
	return true
}

// asciiFoldOnly reports whether r and every rune it case-folds to are
// ASCII.
func asciiFoldOnly(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// litFinder finds the literals of a prefilter: lines without any of them
// cannot match.
type litFinder struct {
	alts []litAlt
}

// newLitFinder returns the prefilter for a search, or nil when the
// pattern has no usable literals.
func newLitFinder(pattern string, ignoreCase bool) *litFinder {
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	re, err := syntax.Parse(flags+pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	s, ok := extractLits(re.Simplify())
	if !ok || !s.usable() {
		return nil
	}
	for i := range s.alts {
		a := &s.alts[i]
		for j, c := range a.s {
			if a.fold && byteRank(c) > byteRank(a.s[a.rare]) {
				a.rare = j
			}
		}
	}
	return &litFinder{alts: s.alts}
}

// index returns the offset of the first occurrence of any literal in
// data, or -1.
func (f *litFinder) index(data []byte) int {
	best := -1
	for _, a := range f.alts {
		window := data
		if best >= 0 { // only an earlier occurrence helps
			window = data[:min(len(data), best+len(a.s)-1)]
		}
		if i := a.index(window); i >= 0 {
			best = i
		}
	}
	return best
}

func (a *litAlt) index(data []byte) int {
	if !a.fold {
		return bytes.Index(data, a.s)
	}
	lo := a.s[a.rare]
	up := byte(unicode.ToUpper(rune(lo)))
	nextLo, nextUp := -1, -1 // next offsets of lo and up at or after i; len(data): none
	for i := a.rare; i < len(data); {
		if nextLo < i {
			nextLo = indexByteFrom(data, i, lo)
		}
		switch {
		case up == lo:
			nextUp = nextLo
		case nextUp < i:
			nextUp = indexByteFrom(data, i, up)
		}
		j := min(nextLo, nextUp)
		if j == len(data) {
			return -1
		}
		if start := j - a.rare; start+len(a.s) <= len(data) && equalFoldLower(data[start:start+len(a.s)], a.s) {
			return start
		}
		i = j + 1
	}
	return -1
}

// indexByteFrom returns the offset of the first c in data at or after
// from, or len(data).
func indexByteFrom(data []byte, from int, c byte) int {
	if j := bytes.IndexByte(data[from:], c); j >= 0 {
		return from + j
	}
	return len(data)
}

// equalFoldLower reports whether b equals lower (lower-case ASCII)
// ignoring ASCII case.
func equalFoldLower(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// byteRank estimates how rare byte c is in source code and text: higher
// is rarer. The finder looks for the rarest byte of a literal first.
func byteRank(c byte) int {
	const common = " etaoinsrlcdumhpfgbywvkxjqz" // most to least frequent
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	if i := strings.IndexByte(common, c); i >= 0 {
		return i
	}
	switch {
	case c == '\t' || c == '\n' || strings.IndexByte("(),.;:=_\"'{}", c) >= 0:
		return 5 // as common as the frequent letters
	case c >= '0' && c <= '9':
		return 15
	}
	return 20
}

// GoGrep is the pure-Go GrepBackend: a parallel walk (fastwalk) with
// Go's linear-time regexp engine.
type GoGrep struct{}

// Name returns "go".
func (GoGrep) Name() string { return "go" }

var errStopWalk = errors.New("search limit reached")

// Search implements GrepBackend.
func (GoGrep) Search(ctx context.Context, req GrepRequest) (GrepResult, error) {
	re, err := compilePattern(req.Pattern, req.IgnoreCase)
	if err != nil {
		return GrepResult{}, fmt.Errorf("invalid pattern: %w", err)
	}
	var inc *globMatcher
	if req.Include != "" {
		var ok bool
		if inc, ok = newGlobMatcher(req.Include); !ok {
			return GrepResult{}, fmt.Errorf("invalid include glob %q", req.Include)
		}
	}
	fi, err := os.Stat(req.Root)
	if err != nil {
		return GrepResult{}, err
	}
	g := &fileGrep{re: re, lit: newLitFinder(req.Pattern, req.IgnoreCase), context: req.Context, limit: req.Limit}
	var res GrepResult
	if !fi.IsDir() {
		if lines := g.file(req.Root); len(lines) > 0 {
			res.add(req.Root, lines)
		}
		return res, nil
	}
	var mu sync.Mutex
	var found atomic.Int64
	err = walkTree(ctx, req.Root, 0, func(abs, rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !inc.match(rel) {
			return nil
		}
		lines := g.file(abs)
		if len(lines) == 0 {
			return nil
		}
		mu.Lock()
		res.add(abs, lines)
		mu.Unlock()
		if n := found.Add(int64(countMatches(lines))); req.Limit > 0 && n >= int64(req.Limit) {
			return errStopWalk
		}
		return nil
	})
	if errors.Is(err, errStopWalk) {
		res.Truncated, err = true, nil
	}
	res.sort()
	return res, err
}

func (r *GrepResult) add(path string, lines []GrepLine) {
	r.Files = append(r.Files, GrepFile{Path: path, Lines: lines})
	r.Matches += countMatches(lines)
}

func (r *GrepResult) sort() {
	slices.SortFunc(r.Files, func(a, b GrepFile) int { return strings.Compare(a.Path, b.Path) })
}

func countMatches(lines []GrepLine) int {
	n := 0
	for _, l := range lines {
		if l.Match {
			n++
		}
	}
	return n
}

// fileGrep searches files for one request; safe for concurrent use.
type fileGrep struct {
	re      *regexp.Regexp
	lit     *litFinder // nil: no prefilter
	context int
	limit   int       // matching lines collected per file at most (0: all)
	bufs    sync.Pool // *[]byte read buffers, reused across files
}

// maxPooledBuf is the largest read buffer (bytes) kept for reuse.
const maxPooledBuf = 1 << 20

// file searches one file; binary, unreadable and oversized files give
// nothing.
func (g *fileGrep) file(abs string) []GrepLine {
	bp, _ := g.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer func() {
		if cap(*bp) <= maxPooledBuf {
			g.bufs.Put(bp)
		}
	}()
	data, ok := readGrepFile(abs, (*bp)[:0], MaxReadBytes)
	*bp = data[:0]
	if !ok || (g.lit != nil && g.lit.index(data) < 0) || bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	return grepDataLimit(g.re, g.lit, data, g.context, g.limit)
}

// fillBuf reads a file that fstat said holds size bytes into buf (grown
// when too small) with read, which returns 0, nil at EOF. A file of size 0
// may still have content (e.g. in /proc): it is read to EOF, up to limit
// bytes. It reports false on a read error or when the content exceeds
// limit.
func fillBuf(buf []byte, size int, limit int64, read func([]byte) (int, error)) ([]byte, bool) {
	if size > 0 {
		if cap(buf) < size {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		for n := 0; n < size; {
			m, err := read(buf[n:])
			if err != nil {
				return buf[:0], false
			}
			if m == 0 { // the file shrank
				return buf[:n], true
			}
			n += m
		}
		return buf, true
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := read(buf[len(buf):cap(buf)])
		if err != nil || int64(len(buf)+m) > limit {
			return buf[:0], false
		}
		if m == 0 {
			return buf, true
		}
		buf = buf[:len(buf)+m]
	}
}

// grepData returns the matching lines of data (and context lines around
// them) in line order. A match must lie within one line, as in ripgrep.
// lit, when set, is a literal every match contains (see requiredLiteral).
func grepData(re *regexp.Regexp, lit, data []byte, context int) []GrepLine {
	var f *litFinder
	if lit != nil {
		f = &litFinder{alts: []litAlt{{s: lit}}}
	}
	return grepDataWith(re, f, data, context)
}

// grepDataWith is grepData with a literal finder (nil: none).
func grepDataWith(re *regexp.Regexp, lit *litFinder, data []byte, context int) []GrepLine {
	return grepDataLimit(re, lit, data, context, 0)
}

// grepDataLimit is grepDataWith stopping after limit matching lines (0:
// no limit), so a file of millions of matching lines costs memory in
// proportion to limit, not to the file.
func grepDataLimit(re *regexp.Regexp, lit *litFinder, data []byte, context, limit int) []GrepLine {
	if lit == nil && !re.Match(data) {
		return nil
	}
	var starts []int // byte offset of each line start, built lazily up to need
	starts = append(starts, 0)
	lineAt := func(off int) int { // 0-based line index containing off
		for starts[len(starts)-1] <= off {
			nl := bytes.IndexByte(data[starts[len(starts)-1]:], '\n')
			if nl < 0 {
				break
			}
			starts = append(starts, starts[len(starts)-1]+nl+1)
		}
		i, found := slices.BinarySearch(starts, off)
		if !found {
			i--
		}
		return i
	}
	rawLine := func(i int) []byte { // line i without its "\n" (a "\r" stays, as in ripgrep)
		end := len(data)
		if i+1 < len(starts) {
			end = starts[i+1]
		} else if nl := bytes.IndexByte(data[starts[i]:], '\n'); nl >= 0 {
			end = starts[i] + nl + 1
		}
		return bytes.TrimSuffix(data[starts[i]:end], []byte("\n"))
	}
	lineText := func(i int) []byte { return bytes.TrimSuffix(rawLine(i), []byte("\r")) }
	var matched []int
	add := func(i int) {
		if len(matched) == 0 || matched[len(matched)-1] < i {
			matched = append(matched, i)
		}
	}
	full := func() bool { return limit > 0 && len(matched) >= limit }
	if lit != nil { // only lines holding the literal can match
		for off := 0; off < len(data) && !full(); {
			j := lit.index(data[off:])
			if j < 0 {
				break
			}
			i := lineAt(off + j)
			if re.Match(rawLine(i)) {
				add(i)
			}
			off = len(data) // lineAt indexed the next line's start, if any
			if i+1 < len(starts) {
				off = starts[i+1]
			}
		}
	}
	// One search per matching line: each starts at a line start (where
	// (?m)^ and \b behave as at the start of the text), so the matches
	// are never all listed at once.
	for off := 0; lit == nil && off <= len(data) && !full(); {
		loc := re.FindIndex(data[off:])
		if loc == nil {
			break
		}
		start, end := off+loc[0], off+loc[1]
		if start == len(data) && (len(data) == 0 || data[len(data)-1] == '\n') {
			break // empty match after the final newline: no such line
		}
		first, last := lineAt(start), lineAt(max(end-1, start))
		if bytes.IndexByte(data[start:end], '\n') < 0 {
			add(first)
		} else {
			// The match spans lines (e.g. ^\s* ate a blank line); ripgrep
			// matches line by line, so test each line it touched on its own.
			for i := first; i <= last; i++ {
				if re.Match(rawLine(i)) {
					add(i)
				}
			}
		}
		if last+1 >= len(starts) {
			break // lineAt indexed the next line's start, if any
		}
		off = starts[last+1]
	}
	if len(matched) == 0 {
		return nil
	}
	// Index the lines up to the last one context can show.
	for need := matched[len(matched)-1] + context + 1; len(starts) <= need; {
		n := len(starts)
		if lineAt(starts[n-1]); len(starts) == n {
			break
		}
	}
	total := len(starts)
	if starts[total-1] == len(data) {
		total-- // data ends with a newline: no empty last line
	}
	return withContext(matched, total, context, func(i int) string { return string(lineText(i)) })
}

// withContext merges matching line indexes with up to n context lines on
// each side.
func withContext(matched []int, total, n int, text func(int) string) []GrepLine {
	var out []GrepLine
	next := 0 // first line index not yet emitted
	for k, m := range matched {
		from := max(m-n, next)
		for i := from; i < m; i++ {
			out = append(out, GrepLine{Num: i + 1, Text: text(i)})
		}
		out = append(out, GrepLine{Num: m + 1, Text: text(m), Match: true})
		next = m + 1
		to := min(total, m+n+1)
		if k+1 < len(matched) {
			to = min(to, matched[k+1])
		}
		for i := next; i < to; i++ {
			out = append(out, GrepLine{Num: i + 1, Text: text(i)})
		}
		next = max(next, to)
	}
	return out
}

type grepArgs struct {
	Pattern      string `json:"pattern" jsonschema:"Regular expression (RE2)"`
	Path         string `json:"path,omitempty" jsonschema:"Directory or file" tool:"path" default:"\".\""`
	Include      string `json:"include,omitempty" jsonschema:"File glob, e.g. *.go"`
	IgnoreCase   bool   `json:"ignore_case,omitempty"`
	ContextLines int    `json:"context_lines,omitempty" jsonschema:"Lines around each match"`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"Max matching lines" default:"100"`

	single bool // grep_file: path must be a text file
}

type grepFileArgs struct {
	Path    string `json:"path" jsonschema:"File to search" tool:"path"`
	Pattern string `json:"pattern" jsonschema:"Regular expression (RE2)"`
}

func grepTools() []Def {
	return []Def{
		Define(Spec{Name: "grep", Kind: kind.Read, Standard: true,
			Description: "Search file contents by regex (honours .gitignore). Output: path:line: text."},
			func(ctx context.Context, env *Env, a grepArgs) Result { return grep(ctx, env, a) }),
		Define(Spec{Name: "grep_file", Kind: kind.Read, Description: "Search one file by regex; shows matching lines."},
			func(ctx context.Context, env *Env, a grepFileArgs) Result {
				return grep(ctx, env, grepArgs{Pattern: a.Pattern, Path: a.Path, MaxResults: grepFileMatches, single: true})
			}),
	}
}

func grep(ctx context.Context, env *Env, a grepArgs) Result {
	if a.Pattern == "" {
		return Failf(CategoryValidation, "grep: pattern is empty; give a regular expression")
	}
	if _, err := compilePattern(a.Pattern, a.IgnoreCase); err != nil {
		return Failf(CategoryValidation, "invalid regular expression (RE2 syntax): %v. Escape special characters "+
			"such as ( [ { . * + ? | with a backslash to search for them literally", err)
	}
	if a.Include != "" {
		if _, ok := newGlobMatcher(a.Include); !ok {
			return Failf(CategoryValidation, "invalid include glob %q: use e.g. *.go, **/*.ts or src/**", a.Include)
		}
	}
	abs, res := env.resolve("path", a.Path)
	if res != nil {
		return *res
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Failf(CategoryNotFound, "%s does not exist", env.rel(abs))
	case err != nil:
		return Failf(CategoryExecution, "cannot stat %s: %v", env.rel(abs), err)
	case a.single && fi.IsDir():
		return Failf(CategoryValidation, "%s is a directory: use grep to search a directory", env.rel(abs))
	case a.single && !fi.Mode().IsRegular():
		return Failf(CategoryValidation, "%s is not a regular file", env.rel(abs))
	}
	if a.single {
		if _, res := loadText(env, abs, ""); res != nil {
			return *res
		}
	}
	req := GrepRequest{Root: abs, Pattern: a.Pattern, IgnoreCase: a.IgnoreCase, Include: a.Include,
		Context: min(max(a.ContextLines, 0), maxContextLines), Limit: grepCollectLimit}
	out, err := backend(env, fi.IsDir()).Search(ctx, req)
	if err != nil && !errors.Is(err, context.Canceled) {
		out, err = GoGrep{}.Search(ctx, req)
	}
	if err != nil {
		return Failf(CategoryExecution, "grep failed: %v", err)
	}
	limit := a.MaxResults
	if limit <= 0 {
		limit = defaultMaxResults
	}
	return formatGrep(env, out, min(limit, maxMaxResults), a.Pattern, env.rel(abs), req.Context > 0)
}

func backend(env *Env, dir bool) GrepBackend {
	switch {
	case !dir:
		return GoGrep{} // one file: no process to start
	case env.Grep != nil:
		return env.Grep
	}
	return DefaultGrepBackend()
}

// formatGrep renders results as `path:line: text` (context lines
// `path-line- text`, "--" between separated groups), at most limit
// matching lines and grepOutputBytes.
func formatGrep(env *Env, r GrepResult, limit int, pattern, where string, groups bool) Result {
	meta := &Meta{Path: where, Matches: r.Matches}
	if r.Matches == 0 {
		return Success(fmt.Sprintf("No matches for %q in %s", pattern, where), meta)
	}
	var b strings.Builder
	shown := 0
	cut := false
outer:
	for _, f := range r.Files {
		rel := env.rel(f.Path)
		prev := -1
		for _, l := range f.Lines {
			if l.Match && shown == limit || b.Len() > grepOutputBytes {
				cut = true
				break outer
			}
			if groups && (prev >= 0 && l.Num > prev+1 || prev < 0 && b.Len() > 0) {
				b.WriteString("--\n")
			}
			text := l.Text
			if len(text) > grepLineChars {
				text = cutUTF8(text, grepLineChars) + " [...]"
			}
			sep := "-"
			if l.Match {
				sep = ":"
				shown++
			}
			fmt.Fprintf(&b, "%s%s%d%s %s\n", rel, sep, l.Num, sep, text)
			prev = l.Num
		}
	}
	total := fmt.Sprint(r.Matches)
	if r.Truncated {
		total = "at least " + total
	}
	if cut || r.Truncated {
		meta.Truncated = true
		fmt.Fprintf(&b, "... showing %d of %s matching lines; narrow the pattern, path or include, "+
			"or raise max_results (at most %d)\n", shown, total, maxMaxResults)
	} else {
		fmt.Fprintf(&b, "(%d matching lines in %d files)\n", r.Matches, len(r.Files))
	}
	return Success(b.String(), meta)
}
