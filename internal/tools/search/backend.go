package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// DefaultBackend returns Ripgrep when `rg` is on PATH, else GoGrep.
func DefaultBackend() tools.GrepBackend {
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

// GoGrep is the pure-Go GrepBackend: a parallel walk (fastwalk) that
// finds candidate lines with a literal prefilter (bytes.Index) or a
// lazy-DFA line filter and confirms each with Go's linear-time regexp.
type GoGrep struct{}

// Name returns "go".
func (GoGrep) Name() string { return "go" }

// Search implements GrepBackend.
func (GoGrep) Search(ctx context.Context, req tools.GrepRequest) (tools.GrepResult, error) {
	if _, err := compilePattern(req.Pattern, req.IgnoreCase); err != nil {
		return tools.GrepResult{}, fmt.Errorf("invalid pattern: %w", err)
	}
	// $ matches before CRLF too; the prefilters read the same pattern.
	pattern := crlfPattern(req.Pattern)
	re, err := compilePattern(pattern, req.IgnoreCase)
	if err != nil {
		return tools.GrepResult{}, fmt.Errorf("invalid pattern: %w", err)
	}
	var inc *walk.Glob
	if req.Include != "" {
		var ok bool
		if inc, ok = walk.NewGlob(req.Include); !ok {
			return tools.GrepResult{}, fmt.Errorf("invalid include glob %q", req.Include)
		}
	}
	fi, err := os.Stat(req.Root)
	if err != nil {
		return tools.GrepResult{}, err
	}
	g := &fileGrep{re: re, lit: newLitFinder(pattern, req.IgnoreCase), dfa: newDFAProg(pattern, req.IgnoreCase),
		context: req.Context, limit: req.Limit}
	var res tools.GrepResult
	if !fi.IsDir() {
		if lines := g.file(req.Root); len(lines) > 0 {
			addFile(&res, req.Root, lines)
		}
		return res, nil
	}
	var mu sync.Mutex
	var found atomic.Int64
	err = walk.Tree(ctx, req.Root, 0, func(abs, rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !inc.Match(rel) {
			return nil
		}
		lines := g.file(abs)
		if len(lines) == 0 {
			return nil
		}
		mu.Lock()
		addFile(&res, abs, lines)
		mu.Unlock()
		if n := found.Add(int64(countMatches(lines))); req.Limit > 0 && n >= int64(req.Limit) {
			return walk.ErrStop
		}
		return nil
	})
	if errors.Is(err, walk.ErrStop) {
		res.Truncated, err = true, nil
	}
	sortFiles(&res)
	return res, err
}

func addFile(r *tools.GrepResult, path string, lines []tools.GrepLine) {
	r.Files = append(r.Files, tools.GrepFile{Path: path, Lines: lines})
	r.Matches += countMatches(lines)
}

func sortFiles(r *tools.GrepResult) {
	slices.SortFunc(r.Files, func(a, b tools.GrepFile) int { return strings.Compare(a.Path, b.Path) })
}

func countMatches(lines []tools.GrepLine) int {
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
	dfa     *dfaProg   // nil: no line filter
	context int
	limit   int       // matching lines collected per file at most (0: all)
	bufs    sync.Pool // *[]byte read buffers, reused across files
}

// maxPooledBuf is the largest read buffer (bytes) kept for reuse.
const maxPooledBuf = 1 << 20

// file searches one file; binary (a NUL byte anywhere), unreadable and
// oversized files give nothing.
func (g *fileGrep) file(abs string) []tools.GrepLine {
	bp, _ := g.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer func() {
		if cap(*bp) <= maxPooledBuf {
			g.bufs.Put(bp)
		}
	}()
	data, ok := readGrepFile(abs, (*bp)[:0], tools.MaxReadBytes)
	*bp = data[:0]
	sniff := data[:min(len(data), binarySniffBytes)]
	if !ok || bytes.IndexByte(sniff, 0) >= 0 || (g.lit != nil && g.lit.index(data) < 0) {
		return nil
	}
	lines := grepDataFilter(g.re, g.lit, g.dfa, data, g.context, g.limit)
	if len(lines) > 0 && bytes.IndexByte(data[len(sniff):], 0) >= 0 {
		return nil // a NUL past the first block: binary all the same
	}
	return lines
}

// binarySniffBytes is the first block of a file checked for a NUL byte
// before searching it; the rest is checked only when it matched, so a
// file with a NUL anywhere gives nothing without a second pass over every
// text file.
const binarySniffBytes = 8 << 10

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
