package file

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/tools"
)

func lineRange(start, end, total int) string {
	if start < 1 || end < start || end > total {
		return fmt.Sprintf("line range %d..%d is invalid: the file has %d lines (1-based, inclusive)", start, end, total)
	}
	return ""
}

// loadForEdit resolves and loads an existing file for an edit and checks
// it was read.
func loadForEdit(ctx context.Context, env *tools.Env, path string) (*tools.TextFile, *tools.Result) {
	abs, res := env.Resolve("path", path)
	if res != nil {
		return nil, res
	}
	tf, res := tools.LoadText(env, abs, ": use write_file to create it, or search_files to find the right path")
	if res != nil {
		return nil, res
	}
	if res := env.CheckFresh(ctx, abs, tf.Content); res != nil {
		return nil, res
	}
	return tf, nil
}

// save commits new content for tf and builds the result.
func save(ctx context.Context, env *tools.Env, tf *tools.TextFile, content, summary string, firstLine, nLines int) tools.Result {
	if content == string(tf.Content) {
		return tools.Failf(tools.CategoryValidation, "the edit changes nothing in %s; check old and new text", tf.Rel)
	}
	diff, res := env.Commit(ctx, tools.Change{Abs: tf.Abs, Old: tf.Content, Existed: true,
		New: []byte(content), Perm: tf.Info.Mode().Perm()})
	if res != nil {
		return *res
	}
	out := summary
	if firstLine > 0 {
		out += "\n" + snippet(content, firstLine, nLines, env.LineHashes)
	}
	return tools.Success(out, &tools.Meta{Path: tf.Rel, Diff: diff, Lines: nLines})
}

// snippet shows lines first..first+n-1 of content with two lines of
// context, numbered (with hashes: as LINE#HASH|text), at most 30 lines.
func snippet(content string, first, n int, hashes bool) string {
	lines := tools.SplitLinesKeep(content)
	from := max(1, first-2)
	to := min(len(lines), first+max(n, 1)-1+2, from+29)
	if from > to {
		return ""
	}
	text, _ := numbered(lines[from-1:to], from, hashes)
	return text
}

func countLines(s string) int { return len(tools.SplitLinesKeep(s)) }

// lineOf returns the 1-based line number of byte offset off.
func lineOf(s string, off int) int { return strings.Count(s[:off], "\n") + 1 }

// matchLines lists the line numbers of up to max matches of sub.
func matchLines(s, sub string, limit int) string {
	var out []string
	for off := 0; len(out) < limit; {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			break
		}
		out = append(out, fmt.Sprint(lineOf(s, off+i)))
		off += i + len(sub)
	}
	return strings.Join(out, ", ")
}

// editLines applies a line-based edit: plan returns the replacement text
// (nil = delete), the 1-based first line replaced and the last (last <
// first inserts before first), or a problem. Line endings follow the file
// and a missing final newline stays missing.
func editLines(ctx context.Context, env *tools.Env, path string, plan func(lines []string) ([]string, int, int, string)) tools.Result {
	tf, res := loadForEdit(ctx, env, path)
	if res != nil {
		return *res
	}
	content := string(tf.Content)
	lines := tools.SplitLinesKeep(content)
	repl, first, last, problem := plan(lines)
	if problem != "" {
		return tools.Failf(tools.CategoryValidation, "%s: %s", tf.Rel, problem)
	}
	eol := eolOf(content)
	var mid []string
	for _, r := range repl {
		if r == "" {
			continue
		}
		r = strings.TrimSuffix(withEOL(r, "\n"), "\n")
		for _, l := range strings.Split(r, "\n") {
			mid = append(mid, l+eol)
		}
	}
	out := append(append(append([]string{}, lines[:first-1]...), mid...), lines[last:]...)
	updated := assemble(out, eol, content == "" || strings.HasSuffix(content, "\n"))
	var summary string
	switch {
	case last < first:
		summary = fmt.Sprintf("Inserted %d line(s) into %s after line %d.", len(mid), tf.Rel, first-1)
	case len(mid) == 0:
		summary = fmt.Sprintf("Deleted lines %d-%d of %s.", first, last, tf.Rel)
	default:
		summary = fmt.Sprintf("Replaced lines %d-%d of %s with %d line(s).", first, last, tf.Rel, len(mid))
	}
	return save(ctx, env, tf, updated, summary, max(1, min(first, len(tools.SplitLinesKeep(updated)))), len(mid))
}

// assemble joins lines, giving every line but the last a terminator and
// the last one a terminator exactly when finalNL.
func assemble(lines []string, eol string, finalNL bool) string {
	var b strings.Builder
	for i, l := range lines {
		if i < len(lines)-1 {
			if !strings.HasSuffix(l, "\n") {
				l += eol
			}
		} else if finalNL && !strings.HasSuffix(l, "\n") {
			l += eol
		} else if !finalNL {
			l = tools.TrimEOL(l)
		}
		b.WriteString(l)
	}
	return b.String()
}
