package gitdir

import (
	"bufio"
	"bytes"
	"os"
	"strings"
)

// maxConfigSize bounds the repository config files read, in bytes.
const maxConfigSize = 1 << 20

// configValues reads the git config file at path and returns the values
// of the keys wanted names ("section.key" in lower case; a subsection
// matches "section.*.key"), in file order. It follows git's syntax where
// it matters for these keys (sections, quotes, escapes, comments and
// continuation lines); an unreadable or oversized file gives nothing.
func configValues(path string, wanted ...string) map[string][]string {
	out := map[string][]string{}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxConfigSize {
		return out
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	want := map[string]bool{}
	for _, w := range wanted {
		want[w] = true
	}
	section, sub := "", false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxConfigSize)
	var pending string
	for sc.Scan() {
		line := sc.Text()
		if pending != "" {
			line = pending + line
			pending = ""
		}
		if strings.HasSuffix(line, "\\") && !strings.HasSuffix(line, "\\\\") {
			pending = strings.TrimSuffix(line, "\\")
			continue
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			var ok bool
			if section, sub, t, ok = sectionHeader(t); !ok || t == "" {
				continue
			}
		}
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		key, val, hasVal := strings.Cut(t, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		full := section + "." + key
		if sub {
			full = section + ".*." + key
		}
		if !want[full] {
			continue
		}
		if !hasVal {
			out[full] = append(out[full], "true")
			continue
		}
		out[full] = append(out[full], unquoteValue(val))
	}
	return out
}

// unquoteValue is a git config value as git reads it: leading and
// trailing blanks dropped outside quotes, quotes removed, escapes
// (\" \\ \n \t \b) applied, a comment (# or ;) outside quotes ending it.
func unquoteValue(v string) string {
	var b strings.Builder
	quoted := false
	spaces := ""
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
			b.WriteString(spaces)
			spaces = ""
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimLeft(b.String(), " \t")
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteString(spaces)
			spaces = ""
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(v[i])
			}
		case !quoted && (c == ' ' || c == '\t'):
			spaces += string(c)
		default:
			b.WriteString(spaces)
			spaces = ""
			b.WriteByte(c)
		}
	}
	return strings.TrimLeft(b.String(), " \t")
}

// sectionHeader reads a "[section]", `[section "sub"]` or
// "[section.sub]" line: the section in lower case, whether it has a
// subsection, and what follows the header on the line; ok false when
// the header is not closed.
func sectionHeader(t string) (section string, sub bool, rest string, ok bool) {
	end := strings.IndexByte(t, ']')
	if end < 0 {
		return "", false, "", false
	}
	head := t[1:end]
	name, _, hasSub := strings.Cut(head, " ")
	if !hasSub {
		name, _, hasSub = strings.Cut(head, ".")
	}
	return strings.ToLower(strings.TrimSpace(name)), hasSub, strings.TrimSpace(t[end+1:]), true
}
