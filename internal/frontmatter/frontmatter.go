// Package frontmatter reads the front matter of the markdown files Claude
// Code's content is made of: custom slash commands
// (.claude/commands/*.md), skills (SKILL.md) and subagents
// (.claude/agents/*.md). A first line "---", YAML, a line "---", then the
// body.
//
// It is the one parser of that content, and it is liberal, as Claude Code
// is: the front matter is read as YAML when it is YAML; when it is not (an
// unquoted ": " in a value, a description running on over unindented lines
// with <example> blocks), a line-based fallback reads "key: value" lines
// and their continuation lines instead. A value is kept both as the YAML
// read it and as it is written, so a key that is a string for Claude Code
// (argument-hint: [name], which YAML reads as a list) stays the string
// that was written. Nothing in a front matter stops a file from loading:
// problems are [Warning]s with their line.
package frontmatter

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxBytes caps the front matter read (bytes); longer front matter is
// read up to the cap, with a warning.
const maxBytes = 64 << 10

// Warning is a problem of one line of a file: Line is 1-based (0: the
// file as a whole).
type Warning struct {
	Line    int
	Message string
}

// Field is one top-level key of the front matter.
//
// Key is the key as written; Line the 1-based line of the file it is on.
// Text is the value as a string: a YAML scalar's value, else the value as
// written (continuation lines joined with "\n", surrounding quotes
// removed). Items is the value as a list: a YAML sequence's items, a flow
// list written [a, b], or nil for a scalar (see [Field.List]). Node is
// the YAML node (nil when the fallback read the file).
type Field struct {
	Key   string
	Line  int
	Text  string
	Items []string
	Node  *yaml.Node
}

// List returns the value as a list of entries: Items, or Text split at
// commas outside parentheses ("Bash(git add:*), Read" is two entries);
// each entry of Items is split the same way. Empty entries are dropped.
func (f Field) List() []string {
	var out []string
	if f.Items != nil {
		for _, it := range f.Items {
			out = append(out, SplitList(it)...)
		}
		return out
	}
	return SplitList(f.Text)
}

// Doc is a parsed file: its front matter's fields in file order, the
// body after the front matter, and the 1-based line the body starts on.
type Doc struct {
	Fields   []Field
	Body     string
	BodyLine int
}

// Get returns the first field called one of keys (tried in order).
func (d Doc) Get(keys ...string) (Field, bool) {
	for _, k := range keys {
		for _, f := range d.Fields {
			if f.Key == k {
				return f, true
			}
		}
	}
	return Field{}, false
}

// String returns the Text of the first field called one of keys, trimmed
// ("" when there is none).
func (d Doc) String(keys ...string) string {
	f, _ := d.Get(keys...)
	return strings.TrimSpace(f.Text)
}

// List returns the [Field.List] of the first field called one of keys;
// ok is false when there is none.
func (d Doc) List(keys ...string) (list []string, ok bool) {
	f, ok := d.Get(keys...)
	if !ok {
		return nil, false
	}
	return f.List(), true
}

// Unknown returns a warning for each field whose key is neither in known
// (keys this reader uses) nor in quiet (keys of the format it ignores
// without a word), naming the key.
func (d Doc) Unknown(known, quiet []string) []Warning {
	var out []Warning
	for _, f := range d.Fields {
		if slices.Contains(known, f.Key) || slices.Contains(quiet, f.Key) {
			continue
		}
		msg := fmt.Sprintf("unknown front matter key %q is ignored", f.Key)
		if slices.Contains(commonKeys, f.Key) {
			msg = fmt.Sprintf("front matter key %q of Claude Code is not supported here and is ignored", f.Key)
		}
		out = append(out, Warning{Line: f.Line, Message: msg})
	}
	return out
}

// Split returns the front matter's text (nil when the file has none),
// the body after it, and the line the body starts on. A file without
// front matter is all body; so is one whose front matter is never closed
// (ok false then: Claude Code reads it the same way). Line endings may be
// LF or CRLF; a UTF-8 byte-order mark is skipped; the fences may carry
// trailing spaces.
func Split(data []byte) (meta, body []byte, bodyLine int, closed bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, _ := cutLine(data)
	if !isFence(first) {
		return nil, data, 1, true
	}
	line := 1
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = cutLine(rest)
		line++
		if isFence(l) {
			if meta == nil {
				meta = []byte{}
			}
			return meta, rest, line + 1, true
		}
		meta = append(meta, l...)
		meta = append(meta, '\n')
	}
	return nil, data, 1, false
}

func isFence(l []byte) bool { return string(bytes.TrimRight(l, " \t")) == "---" }

// Parse reads data: its front matter (YAML, or the line-based fallback
// when it is not YAML Claude Code would read) and its body. It never
// fails: what it cannot read is a warning (front matter that is never
// closed, a line that is neither a key nor a continuation, a front matter
// over 64 KiB) and the rest is read.
func Parse(data []byte) (Doc, []Warning) {
	meta, body, bodyLine, closed := Split(data)
	doc := Doc{Body: string(body), BodyLine: bodyLine}
	if !closed {
		return doc, []Warning{{Line: 1, Message: `front matter opened with "---" is never closed, so the whole file is read as the body: add a line "---" after it`}}
	}
	var warns []Warning
	if len(meta) > maxBytes {
		meta = meta[:maxBytes]
		warns = append(warns, Warning{Line: 1, Message: fmt.Sprintf("front matter is over %d bytes: the rest of it is ignored", maxBytes)})
	}
	if len(bytes.TrimSpace(meta)) == 0 {
		return doc, warns
	}
	raw, rawWarns := scan(meta)
	if fields, ok := parseYAML(meta, raw); ok {
		doc.Fields = fields
		return doc, warns
	}
	doc.Fields = raw
	return doc, append(warns, rawWarns...)
}

// parseYAML reads meta as a YAML mapping. ok is false when it is not one
// (a syntax error, another kind of document): the fallback reads it then.
// raw holds the fallback's reading, whose written text a scalar key read
// as something else keeps.
func parseYAML(meta []byte, raw []Field) (fields []Field, ok bool) {
	var root yaml.Node
	if err := yaml.Unmarshal(meta, &root); err != nil {
		return nil, false
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		f := Field{Key: k.Value, Line: k.Line + 1, Node: v}
		switch v.Kind {
		case yaml.ScalarNode:
			f.Text = v.Value
			if v.Tag == "!!null" {
				f.Text = ""
			}
		case yaml.SequenceNode:
			f.Items = []string{}
			for _, it := range v.Content {
				if it.Kind == yaml.ScalarNode {
					f.Items = append(f.Items, it.Value)
				}
			}
			f.Text = writtenText(raw, k.Value, k.Line+1)
		case yaml.AliasNode:
			if v.Alias != nil && v.Alias.Kind == yaml.ScalarNode {
				f.Text = v.Alias.Value
			}
		default:
			f.Text = writtenText(raw, k.Value, k.Line+1)
		}
		fields = append(fields, f)
	}
	return fields, true
}

// writtenText is the text the fallback read for key on line.
func writtenText(raw []Field, key string, line int) string {
	for _, f := range raw {
		if f.Key == key && f.Line == line {
			return f.Text
		}
	}
	return ""
}

var keyLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$`)
})

// startsKey reports whether a "key: value" line starts a new key rather
// than continuing the current value: Claude's own descriptions run on
// over unindented lines such as "Context: ...", "user: ..." and
// "assistant: ..." inside <example> blocks. A key Claude's content uses
// always starts one; another key of the format's usual shape (starting
// with a lower-case letter) does right after a one-line value or a YAML
// block; anything else continues the value. multi is whether the current
// value already runs over unindented lines (see loose).
func startsKey(key string, multi bool) bool {
	if slices.Contains(commonKeys, key) {
		return true
	}
	return !multi && key[0] >= 'a' && key[0] <= 'z'
}

// commonKeys are the keys of Claude Code's commands, skills and agents:
// a line starting with one of them always starts a new key in the
// fallback.
var commonKeys = []string{"name", "description", "tools", "disallowedTools", "disallowed-tools", "model", "color",
	"allowed-tools", "argument-hint", "license", "version", "metadata", "permissionMode", "skills", "hooks",
	"mcpServers", "memory", "maxTurns", "disable-model-invocation", "user-invocable", "context", "agent", "when_to_use"}

// scan is the line-based fallback: a line "key: value" at the start of a
// line starts a key (unless it reads as more of the current value, see
// startsKey); indented, blank and other
// lines continue the current value. Values are unquoted; [a, b] is a
// list; "key:" followed by "- item" lines is a list; "|" and ">" block
// scalars keep or fold their lines.
func scan(meta []byte) ([]Field, []Warning) {
	var fields []Field
	var warns []Warning
	var cont []string // continuation lines of the current field
	flush := func() {
		if len(fields) == 0 {
			return
		}
		finish(&fields[len(fields)-1], cont)
		cont = nil
	}
	lines := strings.Split(strings.TrimSuffix(string(meta), "\n"), "\n")
	for i, l := range lines {
		lineNo := i + 2
		if m := keyLine().FindStringSubmatch(l); m != nil && (len(fields) == 0 || startsKey(m[1], loose(cont))) {
			flush()
			fields = append(fields, Field{Key: m[1], Line: lineNo, Text: m[2]})
			continue
		}
		switch {
		case len(fields) > 0:
			cont = append(cont, l)
		case strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "#"):
			warns = append(warns, Warning{Line: lineNo, Message: fmt.Sprintf("front matter line %q is not \"key: value\" and is ignored", clip(l))})
		}
	}
	flush()
	return fields, warns
}

// loose reports whether a value's continuation lines so far hold an
// unindented line: running text rather than a YAML block.
func loose(cont []string) bool {
	for _, l := range cont {
		if strings.TrimSpace(l) != "" && l[0] != ' ' && l[0] != '\t' {
			return true
		}
	}
	return false
}

// finish sets f's Text and Items from its first line's value (f.Text as
// read) and its continuation lines.
func finish(f *Field, cont []string) {
	first := strings.TrimSpace(stripComment(f.Text))
	for len(cont) > 0 && strings.TrimSpace(cont[len(cont)-1]) == "" {
		cont = cont[:len(cont)-1]
	}
	switch {
	case first == "" && isDashList(cont):
		f.Items = []string{}
		for _, l := range cont {
			if it, ok := strings.CutPrefix(strings.TrimSpace(l), "-"); ok {
				f.Items = append(f.Items, unquote(strings.TrimSpace(it)))
			}
		}
		f.Text = strings.Join(f.Items, ", ")
		return
	case first == "|" || first == "|-" || first == ">" || first == ">-":
		f.Text = block(cont, first[0] == '>')
		return
	}
	text := f.Text
	if len(cont) > 0 {
		text = strings.Join(append([]string{strings.TrimRight(text, " \t")}, cont...), "\n")
	}
	text = strings.TrimSpace(text)
	if len(cont) == 0 {
		text = strings.TrimSpace(stripComment(text))
	}
	if strings.HasPrefix(text, "[") && strings.HasSuffix(text, "]") {
		f.Items = flowList(text)
	}
	f.Text = unquote(text)
}

// isDashList reports whether the non-blank lines of cont are "- item".
func isDashList(cont []string) bool {
	n := 0
	for _, l := range cont {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, "-") {
			return false
		}
		n++
	}
	return n > 0
}

// block is a "|" (keep lines) or ">" (fold lines) block scalar's text:
// its lines without their common indentation.
func block(cont []string, fold bool) string {
	indent := -1
	for _, l := range cont {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(cont))
	for i, l := range cont {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	if fold {
		return strings.TrimSpace(strings.Join(strings.Fields(strings.Join(out, " ")), " "))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// flowList reads "[a, "b", 'c']" as its items.
func flowList(text string) []string {
	var list []string
	if err := yaml.Unmarshal([]byte(text), &list); err == nil {
		return list
	}
	out := []string{}
	for _, it := range SplitList(strings.TrimSuffix(strings.TrimPrefix(text, "["), "]")) {
		out = append(out, unquote(it))
	}
	return out
}

// unquote removes the quotes of a value written in single or double
// quotes (YAML's escapes apply when the value reads as YAML).
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		return s
	}
	q := s[0]
	if (q != '"' && q != '\'') || s[len(s)-1] != q {
		return s
	}
	var v string
	if err := yaml.Unmarshal([]byte(s), &v); err == nil {
		return v
	}
	return s[1 : len(s)-1]
}

// stripComment removes a " #" comment from a single-line unquoted value.
func stripComment(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "\"") || strings.HasPrefix(t, "'") {
		return s
	}
	if i := strings.Index(s, " #"); i >= 0 {
		return s[:i]
	}
	if strings.HasPrefix(t, "#") {
		return ""
	}
	return s
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}

// SplitList splits s at commas outside parentheses, trimming each entry
// and dropping empty ones: "Bash(git add:*), Read" is ["Bash(git
// add:*)", "Read"].
func SplitList(s string) []string {
	var out []string
	depth, start := 0, 0
	add := func(end int) {
		if r := strings.TrimSpace(s[start:end]); r != "" {
			out = append(out, r)
		}
	}
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				add(i)
				start = i + 1
			}
		}
	}
	add(len(s))
	return out
}

// cutLine returns the first line of b without its line ending, the rest,
// and whether a line ending was found.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.TrimSuffix(b, []byte("\r")), nil, false
	}
	return bytes.TrimSuffix(b[:i], []byte("\r")), b[i+1:], true
}

// Problem is a problem of one content file (a command, skill or agent):
// Path is the file, Line its 1-based line (0: the file as a whole), Name
// what the file defines ("/review", a skill's or agent's name; "" when
// not known), Message the problem and its fix. Skipped is true when the
// file was left out; otherwise it loaded and the problem is a warning.
type Problem struct {
	Path    string
	Line    int
	Name    string
	Message string
	Skipped bool
}

// Error gives "PATH:LINE: MESSAGE", with "; the file is skipped" when it
// was left out.
func (p *Problem) Error() string {
	s := p.Path
	if p.Line > 0 {
		s += fmt.Sprintf(":%d", p.Line)
	}
	s += ": " + p.Message
	if p.Skipped {
		s += "; the file is skipped"
	}
	return s
}

// Problems turns warnings of the file at path into problems (not
// skipped).
func Problems(path string, warns []Warning) []error {
	out := make([]error, 0, len(warns))
	for _, w := range warns {
		out = append(out, &Problem{Path: path, Line: w.Line, Message: w.Message})
	}
	return out
}

// FirstLine is a description made of body's first non-empty line (a
// heading's "#" dropped), cut to 80 bytes: what a command or skill
// without a description is described by.
func FirstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			if len(l) > 80 {
				i := 77
				for i > 0 && !utf8.RuneStart(l[i]) {
					i--
				}
				l = l[:i] + "..."
			}
			return l
		}
	}
	return ""
}
