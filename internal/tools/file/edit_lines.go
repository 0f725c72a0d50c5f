package file

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// LineHash returns the short content hash of a line of the hashline edit
// format: three lower-case hex digits of the FNV-1a hash of the line
// without its terminator. Read tools show it as LINE#HASH|text when
// tools.Env.LineHashes is set; edit_lines takes LINE#HASH anchors.
func LineHash(line string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(tools.TrimEOL(line)))
	return fmt.Sprintf("%03x", h.Sum32()&0xfff)
}

type lineEdit struct {
	Path    string `json:"path" jsonschema:"File to edit" tool:"path"`
	Start   string `json:"start" jsonschema:"Anchor LINE#HASH of the first line, as read_file shows it (e.g. 12#a3f)"`
	End     string `json:"end,omitempty" jsonschema:"Anchor of the last line to replace (default: start)"`
	Content string `json:"content" jsonschema:"The new lines (empty deletes the lines)"`
	After   bool   `json:"after,omitempty" jsonschema:"Insert content after the start line instead of replacing"`
}

// editLinesDef is edit_lines: the hashline edit format's edit tool. It is
// not in the standard profile: the application offers it instead of
// edit_file when the model's edit format is hashline.
func editLinesDef() tools.Def {
	return tools.Define(tools.Spec{Name: "edit_lines", Kind: kind.Write,
		Description: "Replace lines start..end (anchors LINE#HASH from read_file) with content, or insert it after start. Stale anchors are refused.", DryRun: true}, editByAnchors)
}

// anchoredEdit is an edit with its anchors resolved: lines first..last
// (1-based, inclusive) are replaced; an insertion has last = first-1.
type anchoredEdit struct {
	first, last int
	content     string
}

func editByAnchors(ctx context.Context, env *tools.Env, a lineEdit) tools.Result {
	tf, res := loadForEdit(ctx, env, a.Path)
	if res != nil {
		return *res
	}
	content := string(tf.Content)
	lines := tools.SplitLinesKeep(content)
	e, problem := resolveEdit(lines, a)
	if problem != "" {
		return tools.Failf(tools.CategoryValidation, "%s: %s", tf.Rel, problem)
	}
	eol := eolOf(content)
	var mid []string
	if e.content != "" {
		for _, l := range strings.Split(strings.TrimSuffix(withEOL(e.content, "\n"), "\n"), "\n") {
			mid = append(mid, l+eol)
		}
	}
	out := slices.Concat(lines[:e.first-1], mid, lines[e.last:])
	updated := assemble(out, eol, content == "" || strings.HasSuffix(content, "\n"))
	summary := fmt.Sprintf("Replaced lines %d-%d of %s with %d line(s).", e.first, e.last, tf.Rel, len(mid))
	if e.last < e.first {
		summary = fmt.Sprintf("Inserted %d line(s) into %s after line %d.", len(mid), tf.Rel, e.last)
	}
	return save(ctx, env, tf, updated, summary, max(1, min(e.first, countLines(updated))), len(mid))
}

// resolveEdit checks e's anchors against lines; problem says what is
// wrong (a stale anchor shows the lines as they are now).
func resolveEdit(lines []string, e lineEdit) (anchoredEdit, string) {
	first, problem := resolveAnchor(lines, e.Start, "start")
	if problem != "" {
		return anchoredEdit{}, problem
	}
	if e.After {
		if e.End != "" {
			return anchoredEdit{}, "after inserts after start: give no end"
		}
		return anchoredEdit{first: first + 1, last: first, content: e.Content}, ""
	}
	last := first
	if e.End != "" {
		if last, problem = resolveAnchor(lines, e.End, "end"); problem != "" {
			return anchoredEdit{}, problem
		}
	}
	if last < first {
		return anchoredEdit{}, fmt.Sprintf("end %s is before start %s", e.End, e.Start)
	}
	return anchoredEdit{first: first, last: last, content: e.Content}, ""
}

// resolveAnchor returns the line number of anchor "LINE#HASH" when the
// line's hash matches.
func resolveAnchor(lines []string, anchor, name string) (int, string) {
	num, hash, ok := strings.Cut(strings.TrimSpace(anchor), "#")
	hash, _, _ = strings.Cut(hash, "|") // a pasted LINE#HASH|text
	n, err := strconv.Atoi(num)
	if !ok || err != nil || hash == "" {
		return 0, fmt.Sprintf("%s %q is not an anchor LINE#HASH as read_file shows it (e.g. 12#a3f)", name, anchor)
	}
	if n < 1 || n > len(lines) {
		return 0, fmt.Sprintf("%s %s: line %d does not exist (the file has %d lines); read the file again", name, anchor, n, len(lines))
	}
	if got := LineHash(lines[n-1]); got != hash {
		from, to := max(1, n-2), min(len(lines), n+2)
		text, _ := numbered(lines[from-1:to], from, true)
		return 0, fmt.Sprintf("%s %s is stale: line %d is now %d#%s. Nothing was changed. The lines there now:\n%s"+
			"Use the anchors as they are now (read the file again for others).", name, anchor, n, n, got, text)
	}
	return n, ""
}
