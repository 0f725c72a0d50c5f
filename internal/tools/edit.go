package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/zelvior/aidex/internal/kind"
)

type editArgs struct {
	Path       string `json:"path" jsonschema:"File to edit" tool:"path"`
	OldString  string `json:"old_string" jsonschema:"Exact text to replace (unique unless replace_all)"`
	NewString  string `json:"new_string" jsonschema:"Replacement text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence"`
}

type patchLinesArgs struct {
	Path       string `json:"path" jsonschema:"File to edit" tool:"path"`
	StartLine  int    `json:"start_line" jsonschema:"First line to replace (1-based)"`
	EndLine    int    `json:"end_line" jsonschema:"Last line to replace (inclusive)"`
	NewContent string `json:"new_content" jsonschema:"Replacement lines (empty deletes)"`
}

type insertLineArgs struct {
	Path    string `json:"path" jsonschema:"File to edit" tool:"path"`
	Line    int    `json:"line" jsonschema:"Insert after this line (0 = top)"`
	Content string `json:"content" jsonschema:"Lines to insert"`
}

type deleteLineArgs struct {
	Path    string `json:"path" jsonschema:"File to edit" tool:"path"`
	Line    int    `json:"line" jsonschema:"First line to delete (1-based)"`
	EndLine int    `json:"end_line,omitempty" jsonschema:"Last line to delete (default: line)"`
}

func editTools() []Def {
	return []Def{
		Define(Spec{Name: "edit_file", Kind: kind.Write, Standard: true,
			Description: "Replace exact text in a file. old_string must match once (add context) unless replace_all. Read the file first.", DryRun: true},
			func(ctx context.Context, env *Env, a editArgs) Result { return editFile(ctx, env, a) }),
		Define(Spec{Name: "patch_lines", Kind: kind.Write,
			Description: "Replace lines start_line..end_line (inclusive) of a file with new_content.", DryRun: true},
			func(ctx context.Context, env *Env, a patchLinesArgs) Result {
				return editLines(ctx, env, a.Path, func(lines []string) ([]string, int, int, string) {
					if msg := lineRange(a.StartLine, a.EndLine, len(lines)); msg != "" {
						return nil, 0, 0, msg
					}
					return []string{a.NewContent}, a.StartLine, a.EndLine, ""
				})
			}),
		Define(Spec{Name: "insert_line", Kind: kind.Write,
			Description: "Insert content after line `line` of a file (0 inserts at the top).", DryRun: true},
			func(ctx context.Context, env *Env, a insertLineArgs) Result {
				return editLines(ctx, env, a.Path, func(lines []string) ([]string, int, int, string) {
					if a.Line < 0 || a.Line > len(lines) {
						return nil, 0, 0, fmt.Sprintf("line %d is outside 0..%d (the file has %d lines; %d appends)",
							a.Line, len(lines), len(lines), len(lines))
					}
					if a.Content == "" {
						return nil, 0, 0, "content is empty; nothing to insert"
					}
					return []string{a.Content}, a.Line + 1, a.Line, ""
				})
			}),
		Define(Spec{Name: "delete_line", Kind: kind.Write,
			Description: "Delete line `line` (through end_line if given) of a file.", DryRun: true},
			func(ctx context.Context, env *Env, a deleteLineArgs) Result {
				end := a.EndLine
				if end == 0 {
					end = a.Line
				}
				return editLines(ctx, env, a.Path, func(lines []string) ([]string, int, int, string) {
					if msg := lineRange(a.Line, end, len(lines)); msg != "" {
						return nil, 0, 0, msg
					}
					return nil, a.Line, end, ""
				})
			}),
	}
}

func lineRange(start, end, total int) string {
	if start < 1 || end < start || end > total {
		return fmt.Sprintf("line range %d..%d is invalid: the file has %d lines (1-based, inclusive)", start, end, total)
	}
	return ""
}

// loadForEdit resolves and loads an existing file for an edit and checks
// it was read.
func loadForEdit(ctx context.Context, env *Env, path string) (*textFile, *Result) {
	abs, res := env.resolve("path", path)
	if res != nil {
		return nil, res
	}
	tf, res := loadText(env, abs, ": use write_file to create it, or search_files to find the right path")
	if res != nil {
		return nil, res
	}
	if res := env.checkFresh(ctx, abs, tf.content); res != nil {
		return nil, res
	}
	return tf, nil
}

// save commits new content for tf and builds the result.
func save(ctx context.Context, env *Env, tf *textFile, content, summary string, firstLine, nLines int) Result {
	if content == string(tf.content) {
		return Failf(CategoryValidation, "the edit changes nothing in %s; check old and new text", tf.rel)
	}
	diff, res := env.commit(ctx, change{abs: tf.abs, old: tf.content, existed: true,
		new: []byte(content), perm: tf.info.Mode().Perm()})
	if res != nil {
		return *res
	}
	out := summary
	if firstLine > 0 {
		out += "\n" + snippet(content, firstLine, nLines)
	}
	return Success(out, &Meta{Path: tf.rel, Diff: diff, Lines: nLines})
}

// snippet shows lines first..first+n-1 of content with two lines of
// context, numbered, at most 30 lines.
func snippet(content string, first, n int) string {
	lines := splitLinesKeep(content)
	from := max(1, first-2)
	to := min(len(lines), first+max(n, 1)-1+2, from+29)
	if from > to {
		return ""
	}
	text, _ := numbered(lines[from-1:to], from)
	return text
}

func editFile(ctx context.Context, env *Env, a editArgs) Result {
	if a.OldString == a.NewString {
		return Failf(CategoryValidation, "old_string and new_string are identical; nothing to change")
	}
	abs, res := env.resolve("path", a.Path)
	if res != nil {
		return *res
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) && a.OldString == "" {
		return writeFile(ctx, env, writeArgs{Path: a.Path, Content: a.NewString})
	}
	tf, res := loadForEdit(ctx, env, a.Path)
	if res != nil {
		return *res
	}
	content := string(tf.content)
	if a.OldString == "" {
		if strings.TrimPrefix(content, utf8BOM) != "" {
			return Failf(CategoryValidation, "old_string is empty: give the exact text to replace "+
				"(or use write_file to replace the whole file)")
		}
		return save(ctx, env, tf, content+a.NewString, "Wrote "+tf.rel, 1, countLines(a.NewString))
	}
	eol := eolOf(content)
	old, repl := a.OldString, withEOL(a.NewString, eol)
	if !strings.Contains(content, old) {
		old = withEOL(a.OldString, eol)
	}
	switch n := strings.Count(content, old); {
	case n == 1 || (n > 1 && a.ReplaceAll):
		first := lineOf(content, strings.Index(content, old))
		count := 1
		if a.ReplaceAll {
			count = -1
		}
		updated := strings.Replace(content, old, repl, count)
		summary := fmt.Sprintf("Edited %s: replaced %d occurrence(s).", tf.rel, n)
		if n > 1 {
			return save(ctx, env, tf, updated, summary, 0, 0)
		}
		return save(ctx, env, tf, updated, summary, first, countLines(repl))
	case n > 1:
		return Failf(CategoryValidation, "old_string matches %d times in %s (at lines %s): include more surrounding "+
			"lines to make it unique, or set replace_all=true", n, tf.rel, matchLines(content, old, 10))
	}
	return fuzzyEdit(ctx, env, tf, a, eol)
}

// fuzzyEdit retries a failed exact match as a whole-line match that ignores
// differences in whitespace.
func fuzzyEdit(ctx context.Context, env *Env, tf *textFile, a editArgs, eol string) Result {
	content := string(tf.content)
	lines := splitLinesKeep(content)
	want := strings.Split(strings.TrimRight(withEOL(a.OldString, "\n"), "\n"), "\n")
	hits := fuzzyLineMatches(lines, want)
	switch {
	case len(hits) == 0:
		return Failf(CategoryValidation, "old_string was not found in %s.%s\n%s", tf.rel,
			numberPrefixHint(a.OldString), nearest(lines, want))
	case len(hits) > 1:
		return Failf(CategoryValidation, "old_string is not an exact match in %s, and it matches %d places when "+
			"whitespace is ignored; copy the exact text (with more context) from read_file", tf.rel, len(hits))
	}
	i := hits[0]
	region := lines[i : i+len(want)]
	repl := reindent(withEOL(a.NewString, "\n"), indentMap(want, region))
	var b strings.Builder
	for _, l := range lines[:i] {
		b.WriteString(l)
	}
	if repl != "" {
		repl = withEOL(strings.TrimSuffix(repl, "\n"), eol)
		b.WriteString(repl)
		if last := region[len(region)-1]; strings.HasSuffix(last, "\n") {
			b.WriteString(lineEnding(last))
		}
	}
	for _, l := range lines[i+len(want):] {
		b.WriteString(l)
	}
	summary := fmt.Sprintf("Edited %s. NOTE: old_string did not match exactly; it matched lines %d-%d only after "+
		"ignoring whitespace differences. Check the result below (and with read_file) before going on:",
		tf.rel, i+1, i+len(want))
	return save(ctx, env, tf, b.String(), summary, i+1, countLines(repl))
}

func lineEnding(l string) string {
	if strings.HasSuffix(l, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// fuzzyLineMatches returns the 0-based indexes where want matches
// consecutive lines when runs of whitespace are treated as equal.
func fuzzyLineMatches(lines, want []string) []int {
	nw := make([]string, len(want))
	blank := true
	for i, w := range want {
		nw[i] = normSpace(w)
		blank = blank && nw[i] == ""
	}
	if blank || len(want) > len(lines) {
		return nil
	}
	var hits []int
	for i := 0; i+len(want) <= len(lines); i++ {
		ok := true
		for j := range want {
			if normSpace(lines[i+j]) != nw[j] {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, i)
		}
	}
	return hits
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeftFunc(s, unicode.IsSpace))]
}

// indentMap maps the indentation of each non-blank line of want to the
// indentation of the file line it matched.
func indentMap(want, region []string) map[string]string {
	out := map[string]string{}
	for j, w := range want {
		if strings.TrimSpace(w) != "" {
			out[leadingSpace(w)] = leadingSpace(trimEOL(region[j]))
		}
	}
	return out
}

// reindent gives every line of s the file's indentation: the longest
// indentation of old_string that prefixes the line's is swapped for the
// file's.
func reindent(s string, m map[string]string) string {
	keys := make([]string, 0, len(m))
	same := true
	for k, v := range m {
		keys = append(keys, k)
		same = same && k == v
	}
	if same {
		return s
	}
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lead := leadingSpace(l)
		for _, k := range keys {
			if strings.HasPrefix(lead, k) {
				lines[i] = m[k] + l[len(k):]
				break
			}
		}
	}
	return strings.Join(lines, "")
}

func countLines(s string) int { return len(splitLinesKeep(s)) }

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

// numberPrefixHint notices old_string copied with read_file's line-number
// prefixes.
func numberPrefixHint(old string) string {
	re := regexp.MustCompile(`(?m)^\s*\d+\t`)
	if re.MatchString(old) {
		return " It seems to include the line-number prefixes read_file shows (\"    12\\t\"); leave them out."
	}
	return ""
}

// nearest shows the lines most similar to want (by the first non-blank
// line), with line numbers, to help the model copy the exact text.
func nearest(lines, want []string) string {
	first := ""
	for _, w := range want {
		if first = strings.TrimSpace(w); first != "" {
			break
		}
	}
	best, bestScore := -1, 0.0
	for i, l := range lines {
		if s := similarity(strings.TrimSpace(l), first); s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 || bestScore < 0.3 {
		return "No similar lines found: read the file again with read_file and copy the exact text."
	}
	from := max(0, best-2)
	to := min(len(lines), best+len(want)+2, from+15)
	text, _ := numbered(lines[from:to], from+1)
	return "The most similar lines are:\n" + text +
		"Copy the exact text from the file (without the line-number prefix) and retry."
}

// similarity is the Dice coefficient of the character bigrams of a and b
// (0..1), cheap enough to run over every line of a file.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	if len(a) < 2 || len(b) < 2 {
		return 0
	}
	if len(a) > 400 {
		a = a[:400]
	}
	if len(b) > 400 {
		b = b[:400]
	}
	grams := make(map[string]int, len(a))
	for i := 0; i+2 <= len(a); i++ {
		grams[a[i:i+2]]++
	}
	common := 0
	for i := 0; i+2 <= len(b); i++ {
		if grams[b[i:i+2]] > 0 {
			grams[b[i:i+2]]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b)-2)
}

// editLines applies a line-based edit: plan returns the replacement text
// (nil = delete), the 1-based first line replaced and the last (last <
// first inserts before first), or a problem. Line endings follow the file
// and a missing final newline stays missing.
func editLines(ctx context.Context, env *Env, path string, plan func(lines []string) ([]string, int, int, string)) Result {
	tf, res := loadForEdit(ctx, env, path)
	if res != nil {
		return *res
	}
	content := string(tf.content)
	lines := splitLinesKeep(content)
	repl, first, last, problem := plan(lines)
	if problem != "" {
		return Failf(CategoryValidation, "%s: %s", tf.rel, problem)
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
		summary = fmt.Sprintf("Inserted %d line(s) into %s after line %d.", len(mid), tf.rel, first-1)
	case len(mid) == 0:
		summary = fmt.Sprintf("Deleted lines %d-%d of %s.", first, last, tf.rel)
	default:
		summary = fmt.Sprintf("Replaced lines %d-%d of %s with %d line(s).", first, last, tf.rel, len(mid))
	}
	return save(ctx, env, tf, updated, summary, max(1, min(first, len(splitLinesKeep(updated)))), len(mid))
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
			l = trimEOL(l)
		}
		b.WriteString(l)
	}
	return b.String()
}
