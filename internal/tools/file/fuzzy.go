package file

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/zelvior/aidex/internal/tools"
)

// fuzzyEdit retries a failed exact match as a whole-line match that ignores
// differences in whitespace.
func fuzzyEdit(ctx context.Context, env *tools.Env, tf *tools.TextFile, a editArgs, eol string) tools.Result {
	content := string(tf.Content)
	lines := tools.SplitLinesKeep(content)
	want := strings.Split(strings.TrimRight(withEOL(a.OldString, "\n"), "\n"), "\n")
	hits := fuzzyLineMatches(lines, want)
	switch {
	case len(hits) == 0:
		return tools.Failf(tools.CategoryValidation, "old_string was not found in %s.%s\n%s", tf.Rel,
			numberPrefixHint(a.OldString), nearest(lines, want))
	case len(hits) > 1:
		return tools.Failf(tools.CategoryValidation, "old_string is not an exact match in %s, and it matches %d places when "+
			"whitespace is ignored; copy the exact text (with more context) from read_file", tf.Rel, len(hits))
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
		tf.Rel, i+1, i+len(want))
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
			out[leadingSpace(w)] = leadingSpace(tools.TrimEOL(region[j]))
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
	text, _ := numbered(lines[from:to], from+1, false)
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
