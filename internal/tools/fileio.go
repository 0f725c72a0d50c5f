package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/zelvior/aidex/internal/atomicfile"
)

// Size limits of the file tools.
const (
	// MaxReadBytes: read and edit tools refuse files larger than this
	// (32 MiB); grep skips them.
	MaxReadBytes = 32 << 20
	// MaxWriteBytes: write tools refuse to write more than this (16 MiB)
	// in one call.
	MaxWriteBytes = 16 << 20
	// MaxOutputBytes caps the output of read tools (256 KiB).
	MaxOutputBytes = 256 << 10
	// MaxLineChars: read tools cut longer lines (bytes, at a rune
	// boundary) and say so.
	MaxLineChars = 2000
	// MaxDiffBytes caps Meta.Diff (256 KiB).
	MaxDiffBytes = 256 << 10
	// binarySniffBytes: a NUL byte within the first 8000 bytes marks a file
	// binary (git's heuristic).
	binarySniffBytes = 8000
)

const utf8BOM = "\uFEFF"

// textFile is a regular text file loaded for reading or editing.
type textFile struct {
	abs, rel string
	content  []byte
	info     fs.FileInfo
}

// loadText reads the regular text file abs for a tool. On failure the
// Result says what to do instead (notFoundHint completes "does not exist").
func loadText(env *Env, abs, notFoundHint string) (*textFile, *Result) {
	rel := env.rel(abs)
	fail := func(cat Category, format string, args ...any) (*textFile, *Result) {
		r := Failf(cat, format, args...)
		return nil, &r
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(CategoryNotFound, "%s does not exist%s", rel, notFoundHint)
	case err != nil:
		return fail(CategoryExecution, "cannot stat %s: %v", rel, err)
	case fi.IsDir():
		return fail(CategoryValidation, "%s is a directory, not a file: use list_directory to see its contents", rel)
	case !fi.Mode().IsRegular():
		return fail(CategoryValidation, "%s is not a regular file (%s): only regular files can be read or edited",
			rel, fi.Mode().Type())
	case fi.Size() > MaxReadBytes:
		return fail(CategoryValidation, "%s is %d bytes, over the %d MiB limit of the file tools: "+
			"use run_command (e.g. grep -n, sed -n '100,200p') to look into it", rel, fi.Size(), MaxReadBytes>>20)
	}
	content, fi, err := readRegular(abs)
	if err != nil {
		return fail(CategoryExecution, "cannot read %s: %v", rel, err)
	}
	if isBinary(content) {
		return fail(CategoryValidation, "%s looks like a binary file (it contains NUL bytes; %d bytes): "+
			"the file tools handle text only", rel, len(content))
	}
	return &textFile{abs: abs, rel: rel, content: content, info: fi}, nil
}

// readRegular opens abs, checks again that it is a regular file (it could
// have been swapped for a FIFO since the Stat) and reads at most
// MaxReadBytes.
func readRegular(abs string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxReadBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(b) > MaxReadBytes {
		return nil, nil, fmt.Errorf("file grew past %d MiB while reading", MaxReadBytes>>20)
	}
	return b, fi, nil
}

func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), binarySniffBytes)], 0) >= 0
}

// change is one file change for commit.
type change struct {
	abs     string
	old     []byte // current content (nil when !existed)
	existed bool
	new     []byte
	perm    fs.FileMode // for new files; existing files keep their mode
}

// commit writes a change: size cap, checkpoint, atomic write (parents
// created, mode kept), read stamp updated. It returns the unified diff.
func (env *Env) commit(ctx context.Context, c change) (string, *Result) {
	rel := env.rel(c.abs)
	if len(c.new) > MaxWriteBytes {
		r := Failf(CategoryValidation, "refusing to write %d bytes to %s: the limit is %d MiB per call",
			len(c.new), rel, MaxWriteBytes>>20)
		return "", &r
	}
	if env.DryRun {
		return makeDiff(rel, string(c.old), string(c.new)), nil
	}
	if r := env.checkpoint(ctx, c.abs, c.old, c.existed); r != nil {
		return "", r
	}
	if err := os.MkdirAll(filepath.Dir(c.abs), 0o755); err != nil {
		r := Failf(CategoryExecution, "cannot create the parent directory of %s: %v", rel, err)
		return "", &r
	}
	perm := c.perm
	if perm == 0 {
		perm = 0o644
	}
	if err := atomicfile.WriteFile(c.abs, c.new, perm); err != nil {
		r := Failf(CategoryExecution, "cannot write %s (the old content is intact): %v", rel, err)
		return "", &r
	}
	if fi, err := os.Stat(c.abs); err == nil {
		if err := env.markRead(ctx, c.abs, c.new, fi.ModTime()); err != nil {
			r := Failf(CategoryExecution, "wrote %s but could not record it: %v", rel, err)
			return "", &r
		}
	}
	return makeDiff(rel, string(c.old), string(c.new)), nil
}

// makeDiff returns a unified diff of a change to rel, capped at
// MaxDiffBytes.
func makeDiff(rel, old, new string) string {
	d := udiff.Unified("a/"+rel, "b/"+rel, old, new)
	if len(d) > MaxDiffBytes {
		d = cutUTF8(d, MaxDiffBytes) + "\n... diff truncated\n"
	}
	return d
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a rune.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// eolOf returns the dominant line ending of s: "\r\n" when most lines end
// in CRLF, else "\n".
func eolOf(s string) string {
	crlf := strings.Count(s, "\r\n")
	if crlf > 0 && crlf*2 >= strings.Count(s, "\n") {
		return "\r\n"
	}
	return "\n"
}

// withEOL converts the line endings of s to eol.
func withEOL(s, eol string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\r\n" {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// splitLinesKeep splits s into lines that keep their terminators; the last
// line has none when s does not end in a newline. "" has no lines.
func splitLinesKeep(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// trimEOL drops one trailing "\n" or "\r\n".
func trimEOL(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// numbered formats lines (terminators dropped, long lines cut) in `cat -n`
// style starting at line number first, stopping before the output would
// pass MaxOutputBytes. It returns the text and how many lines it holds.
func numbered(lines []string, first int) (string, int) {
	var b strings.Builder
	for i, l := range lines {
		l = trimEOL(l)
		if i == 0 && first == 1 {
			l = strings.TrimPrefix(l, utf8BOM)
		}
		if len(l) > MaxLineChars {
			l = fmt.Sprintf("%s... [line cut: %d bytes in all]", cutUTF8(l, MaxLineChars), len(l))
		}
		entry := fmt.Sprintf("%6d\t%s\n", first+i, l)
		if b.Len()+len(entry) > MaxOutputBytes && i > 0 {
			return b.String(), i
		}
		b.WriteString(entry)
	}
	return b.String(), len(lines)
}
