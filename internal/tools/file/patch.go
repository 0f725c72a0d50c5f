package file

import (
	"fmt"
	"strings"
)

// The markers of Codex's apply_patch format (the patch edit format).
const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File: "
	patchDelete = "*** Delete File: "
	patchUpdate = "*** Update File: "
	patchMove   = "*** Move to: "
	patchEOF    = "*** End of File"
)

// patchOp is one file operation of a patch: kind 'A' (add the file with
// text), 'D' (delete it) or 'U' (update it by chunks, and move it to
// moveTo when set). line is the 1-based line of its header in the patch.
type patchOp struct {
	kind   byte
	path   string
	moveTo string
	text   string
	chunks []patchChunk
	line   int
}

// patchChunk is one change of an update: the old lines (context and
// removed) are replaced with the new lines (context and added). context
// is the "@@ text" line the old lines follow ("" when none); eof says the
// old lines end the file.
type patchChunk struct {
	context  string
	old, new []string
	eof      bool
	line     int
}

// parsePatch parses a patch in Codex's apply_patch format as leniently as
// Codex does: surrounding white space, markers padded with spaces, a
// heredoc wrapper (<<'EOF' ... EOF) around the patch, CRLF line ends, a
// first chunk without "@@" and blank lines between chunks are accepted.
// The error says what is wrong and on which line of the patch.
func parsePatch(text string) ([]patchOp, error) {
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n"), "\n")
	body, err := patchBody(lines)
	if err != nil {
		return nil, err
	}
	var ops []patchOp
	for i := 0; i < len(body); {
		if strings.TrimSpace(body[i]) == "" {
			i++
			continue
		}
		op, n, err := parseOp(body[i:], i+2)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
		i += n
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("the patch changes no file: give *** Add File:, *** Update File: or *** Delete File: sections")
	}
	return ops, nil
}

// patchBody returns the lines between the begin and end markers, after
// removing a heredoc wrapper (<<EOF, <<'EOF' or <<"EOF" ... EOF).
func patchBody(lines []string) ([]string, error) {
	first := strings.TrimSpace(lines[0])
	if len(lines) >= 4 && (first == "<<EOF" || first == "<<'EOF'" || first == `<<"EOF"`) &&
		strings.HasSuffix(strings.TrimSpace(lines[len(lines)-1]), "EOF") {
		lines = lines[1 : len(lines)-1]
	}
	switch {
	case strings.TrimSpace(lines[0]) != patchBegin:
		return nil, fmt.Errorf("the first line of the patch must be %q", patchBegin)
	case len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != patchEnd:
		return nil, fmt.Errorf("the last line of the patch must be %q", patchEnd)
	}
	return lines[1 : len(lines)-1], nil
}

// parseOp parses the file operation at the start of lines (its header on
// patch line num) and returns it with the number of lines it took.
func parseOp(lines []string, num int) (patchOp, int, error) {
	head := strings.TrimSpace(lines[0])
	if path, ok := cutMarker(head, patchAdd); ok {
		var b strings.Builder
		n := 1
		for ; n < len(lines) && strings.HasPrefix(lines[n], "+"); n++ {
			b.WriteString(lines[n][1:])
			b.WriteByte('\n')
		}
		return patchOp{kind: 'A', path: path, text: b.String(), line: num}, n, nil
	}
	if path, ok := cutMarker(head, patchDelete); ok {
		return patchOp{kind: 'D', path: path, line: num}, 1, nil
	}
	path, ok := cutMarker(head, patchUpdate)
	if !ok {
		return patchOp{}, 0, fmt.Errorf("line %d: %q is not a file header: want %q, %q or %q followed by a path",
			num, head, patchAdd+"PATH", patchUpdate+"PATH", patchDelete+"PATH")
	}
	op := patchOp{kind: 'U', path: path, line: num}
	n := 1
	if n < len(lines) {
		if to, ok := cutMarker(strings.TrimSpace(lines[n]), patchMove); ok {
			op.moveTo, n = to, n+1
		}
	}
	for n < len(lines) {
		switch l := lines[n]; {
		case strings.TrimSpace(l) == "":
			n++
			continue
		case strings.HasPrefix(l, "*"):
		default:
			c, used, err := parseChunk(lines[n:], num+n, len(op.chunks) == 0)
			if err != nil {
				return patchOp{}, 0, err
			}
			op.chunks, n = append(op.chunks, c), n+used
			continue
		}
		break
	}
	if len(op.chunks) == 0 {
		return patchOp{}, 0, fmt.Errorf("line %d: the update of %s has no changes", num, path)
	}
	return op, n, nil
}

// cutMarker returns the path after marker in line (markers are matched
// ignoring the case and spaces around the path).
func cutMarker(line, marker string) (string, bool) {
	if len(line) < len(marker) || !strings.EqualFold(line[:len(marker)], marker) {
		if t := strings.TrimSpace(marker); strings.EqualFold(line, t) {
			return "", true // an empty path: refused when resolved
		}
		return "", false
	}
	return strings.TrimSpace(line[len(marker):]), true
}

// parseChunk parses one chunk of an update at the start of lines (patch
// line num): an optional "@@" or "@@ context" line, then lines starting
// with ' ' (context), '-' (removed) or '+' (added); an empty line is an
// empty context line. The first chunk of an update may omit "@@".
func parseChunk(lines []string, num int, first bool) (patchChunk, int, error) {
	c := patchChunk{line: num}
	n := 0
	switch head := strings.TrimRight(lines[0], " \t"); {
	case head == "@@":
		n = 1
	case strings.HasPrefix(head, "@@ "):
		c.context, n = head[3:], 1 // kept as given: indentation tells lines apart
	case !first:
		return c, 0, fmt.Errorf("line %d: a chunk must start with @@, not %q", num, lines[0])
	}
	body := 0
	for ; n < len(lines); n++ {
		l := lines[n]
		if strings.TrimSpace(l) == patchEOF {
			if body == 0 {
				break
			}
			c.eof = true
			n++
			break
		}
		if l == "" {
			c.old, c.new = append(c.old, ""), append(c.new, "")
		} else {
			switch l[0] {
			case ' ':
				c.old, c.new = append(c.old, l[1:]), append(c.new, l[1:])
			case '-':
				c.old = append(c.old, l[1:])
			case '+':
				c.new = append(c.new, l[1:])
			default:
				if body == 0 {
					return c, 0, fmt.Errorf("line %d: %q: every line of a chunk starts with ' ' (context), '-' (removed) or '+' (added)", num+n, l)
				}
				return c, n, nil
			}
		}
		body++
	}
	if body == 0 {
		return c, 0, fmt.Errorf("line %d: the chunk has no lines", num)
	}
	return c, n, nil
}
