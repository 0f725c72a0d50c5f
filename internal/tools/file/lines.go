package file

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/tools"
)

// Output limits of the read tools.
const (
	// MaxOutputBytes caps the output of read tools (256 KiB).
	MaxOutputBytes = 256 << 10
	// MaxLineChars: read tools cut longer lines (bytes, at a rune
	// boundary) and say so.
	MaxLineChars = 2000
)

const utf8BOM = "\uFEFF"

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

// numbered formats lines (terminators dropped, long lines cut) in `cat -n`
// style starting at line number first, or, with hashes, as LINE#HASH|text
// (the hashline edit format, see LineHash), stopping before the output
// would pass MaxOutputBytes. It returns the text and how many lines it
// holds.
func numbered(lines []string, first int, hashes bool) (string, int) {
	var b strings.Builder
	for i, l := range lines {
		l = tools.TrimEOL(l)
		hash := ""
		if hashes {
			hash = LineHash(l)
		}
		if i == 0 && first == 1 {
			l = strings.TrimPrefix(l, utf8BOM)
		}
		if len(l) > MaxLineChars {
			l = fmt.Sprintf("%s... [line cut: %d bytes in all]", tools.CutUTF8(l, MaxLineChars), len(l))
		}
		entry := fmt.Sprintf("%6d\t%s\n", first+i, l)
		if hashes {
			entry = fmt.Sprintf("%d#%s|%s\n", first+i, hash, l)
		}
		if b.Len()+len(entry) > MaxOutputBytes && i > 0 {
			return b.String(), i
		}
		b.WriteString(entry)
	}
	return b.String(), len(lines)
}

// Defaults of the read tools.
const (
	defaultReadLimit = 2000 // lines read_file returns by default
	defaultHeadLines = 10   // lines head_file / tail_file return by default
)

// showLines reads the text file at path, marks it read and returns the
// lines chosen by pick (1-based, inclusive; a non-empty problem string
// refuses the call) in cat -n format with a note when more lines remain.
func showLines(ctx context.Context, env *tools.Env, path string, pick func(total int) (int, int, string)) tools.Result {
	abs, res := env.Resolve("path", path)
	if res != nil {
		return *res
	}
	tf, res := tools.LoadText(env, abs, ": use list_directory or search_files to find the right path")
	if res != nil {
		return *res
	}
	if err := env.MarkRead(ctx, abs, tf.Content, tf.Info.ModTime()); err != nil {
		return tools.Failf(tools.CategoryExecution, "%v", err)
	}
	meta := &tools.Meta{Path: tf.Rel}
	lines := tools.SplitLinesKeep(string(tf.Content))
	total := len(lines)
	if total == 0 {
		return tools.Success(fmt.Sprintf("(%s is empty)", tf.Rel), meta)
	}
	start, end, problem := pick(total)
	if problem != "" {
		return tools.Failf(tools.CategoryValidation, "%s: %s", tf.Rel, problem)
	}
	text, n := numbered(lines[start-1:end], start, env.LineHashes)
	meta.Lines = n
	last := start + n - 1
	switch {
	case last < end:
		meta.Truncated = true
		text += fmt.Sprintf("... output capped at %d KiB; %d more lines; call read_file with offset=%d\n",
			MaxOutputBytes>>10, total-last, last+1)
	case last < total:
		text += fmt.Sprintf("... %d more lines; call read_file with offset=%d\n", total-last, last+1)
	}
	return tools.Success(text, meta)
}
