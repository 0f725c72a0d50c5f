package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Set writes `key = value` into the TOML file at path (created, with its folders, when
// missing), for `aidex config set KEY VALUE`. key is dotted ("model", "tools.profile",
// "providers.groq.api_key"); value is typed by the key's schema ("true", "5", "0.2"; lists as
// `["a", "b"]` or comma-separated). An existing line of the key is edited in place, keeping
// comments and layout; a new key goes under its table, which is created when missing. The
// file is written atomically with mode 0600 (folders 0700).
//
// Errors: unknown key (with a suggestion), a value of the wrong type or out of range, a file
// that does not parse, an edit the file's layout does not allow (the key inside an inline
// table), a result that would not load, and I/O failures. A secret (a key ending in
// api_key) makes the file private, mode 0600, even when it existed with a wider mode; when
// that fails the key is written all the same and the error wraps ErrNotPrivate: show it as
// a warning.
//
// formats are the wire formats providers.NAME.type may name (wire.ConfigFormats(): config
// sits below the table of them); without them that key is refused.
func Set(path, key, value string, formats ...WireFormat) error {
	ss := specsFor(formats)
	if _, _, err := resolveKey(ss, key); err != nil {
		if nk, ok := OldName(key); ok {
			key = nk // the caller shows DeprecationNotice
		}
	}
	s, provider, err := resolveKey(ss, key)
	if err != nil {
		return fmt.Errorf("config set: %w", err)
	}
	if s.name == "providers.*.type" && len(formats) == 0 {
		return fmt.Errorf("config set: %s: the wire formats to check it against were not given", key)
	}
	v, err := fromString(s.kind, value)
	if err == nil {
		err = validate(s, v)
	}
	if err != nil {
		return fmt.Errorf("config set: %s %w", key, err)
	}
	data, err := readForEdit(path)
	if err != nil {
		return err
	}
	out, err := setInDoc(data, specPath(s, provider), tomlLiteral(v))
	if err != nil {
		return fmt.Errorf("config set: %s: %w", path, err)
	}
	if err := writeChecked(path, out); err != nil {
		return err
	}
	if s.secret() {
		return makePrivate(path)
	}
	return nil
}

// ErrNotPrivate is wrapped by Set's error when a secret was written but the file could not
// be made private (mode 0600). The file holds the new value: callers warn, not fail.
var ErrNotPrivate = errors.New("the file could not be made private (mode 0600)")

// chmod is os.Chmod; tests replace it to simulate a file system that refuses.
var chmod = os.Chmod

// makePrivate sets path's mode to 0600 and checks that no one else may read it. An
// existing config file keeps its mode through an atomic replace, so a key written into a
// 0644 file would be readable by every user of the machine. On Windows, where access is
// governed by ACLs rather than modes, it does nothing.
func makePrivate(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	err := chmod(path, 0o600)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			err = fmt.Errorf("its mode is still %v", fi.Mode().Perm())
		}
	}
	if err != nil {
		return fmt.Errorf("config: the key was written to %s, but %w: %v; run chmod 600 %s", path, ErrNotPrivate, err, path)
	}
	return nil
}

// AddRule appends a permission rule ("TOOL" or "TOOL(PATTERN)") to permissions.<kind>
// (kind: allow, deny or ask) of the TOML file at path, keeping comments and layout; used by
// "always allow in this project" on <workspace>/.aidex/config.toml. A rule already in the
// list is not added twice. The file is written atomically with mode 0600 (folders 0700).
//
// Errors: an unknown kind, a malformed rule, a file that does not parse or would not load
// after the edit, and I/O failures.
func AddRule(path, kind, rule string) error {
	if kind != "allow" && kind != "deny" && kind != "ask" {
		return fmt.Errorf("config: rule kind must be allow, deny or ask, not %q", kind)
	}
	if _, _, err := ParseRule(rule); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	data, err := readForEdit(path)
	if err != nil {
		return err
	}
	out, err := addRuleInDoc(data, []string{"permissions", kind}, rule)
	if err != nil {
		return fmt.Errorf("config: add rule to %s: %w", path, err)
	}
	if bytes.Equal(out, data) && len(data) > 0 {
		return nil
	}
	return writeChecked(path, out)
}

func readForEdit(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("config: %s is larger than %d bytes", path, maxFileSize)
	}
	return data, nil
}

// writeChecked writes out to path after checking that it still loads.
func writeChecked(path string, out []byte) error {
	if _, err := parseFile(path, out); err != nil {
		return fmt.Errorf("config: not written, the edit would leave %s invalid: %w", path, err)
	}
	return writeFileAtomic(path, out)
}

// specPath is the key path of spec s for a provider: ["providers", provider, "api_key"].
func specPath(s keySpec, provider string) []string {
	p := strings.Split(s.name, ".")
	if s.provider {
		p[1] = provider
	}
	return p
}

// tomlDoc is the layout of a TOML document: where its keys and table headers are.
type tomlDoc struct {
	data    []byte
	kvs     []kvInfo
	headers []headerInfo
	nl      string // "\n" or "\r\n", as the file uses
}

type kvInfo struct {
	path        []string // full key path
	table       []string // path of the table the key is written in (header or inline table)
	inline      bool     // written inside an inline table
	valueInline bool     // the value is an inline table
	line        int
	valStart    int // byte offset of the value
	end         int // byte offset just after the value
	isArray     bool
	elems       []elemInfo
}

type elemInfo struct {
	start, end int
	text       string
	isString   bool
}

type headerInfo struct {
	path      []string
	array     bool
	lineStart int // offset of the header's line
	lineEnd   int // offset just after the header's line
}

func scanDoc(data []byte) (*tomlDoc, error) {
	d := &tomlDoc{data: data, nl: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e.Key())
			it := e.Key()
			it.Next()
			off := int(it.Node().Raw.Offset)
			d.headers = append(d.headers, headerInfo{path: table, array: e.Kind == unstable.ArrayTable,
				lineStart: lineStart(data, off), lineEnd: lineEnd(data, off)})
		case unstable.KeyValue:
			if err := d.addKV(&p, table, false, e); err != nil {
				return nil, err
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, decodeErrFromParser(data, err)
	}
	return d, nil
}

func (d *tomlDoc) addKV(p *unstable.Parser, table []string, inline bool, kv *unstable.Node) error {
	parts, keyEnd := []string{}, 0
	it := kv.Key()
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
		keyEnd = int(it.Node().Raw.Offset + it.Node().Raw.Length)
	}
	i := skipBlanks(d.data, keyEnd)
	if i >= len(d.data) || d.data[i] != '=' {
		return errors.New("unexpected layout after a key")
	}
	info := kvInfo{
		path:     append(slices.Clone(table), parts...),
		table:    table,
		inline:   inline,
		line:     p.Shape(kv.Raw).Start.Line,
		valStart: skipBlanks(d.data, i+1),
		end:      int(kv.Raw.Offset + kv.Raw.Length),
	}
	v := kv.Value()
	switch v.Kind {
	case unstable.Array:
		info.isArray = true
		c := v.Children()
		for c.Next() {
			n := c.Node()
			if n.Kind == unstable.Comment {
				continue
			}
			info.elems = append(info.elems, elemInfo{start: int(n.Raw.Offset), end: int(n.Raw.Offset + n.Raw.Length),
				text: string(n.Data), isString: n.Kind == unstable.String})
		}
	case unstable.InlineTable:
		info.valueInline = true
	}
	d.kvs = append(d.kvs, info)
	if info.valueInline {
		c := v.Children()
		for c.Next() {
			if n := c.Node(); n.Kind == unstable.KeyValue {
				if err := d.addKV(p, info.path, true, n); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func decodeErrFromParser(data []byte, err error) error {
	var m map[string]any
	if derr := toml.Unmarshal(data, &m); derr != nil {
		return fmt.Errorf("fix the file first: %w", decodeErr("", derr))
	}
	return fmt.Errorf("fix the file first: %w", err)
}

// setInDoc returns data with path set to the TOML literal.
func setInDoc(data []byte, path []string, literal string) ([]byte, error) {
	d, err := scanDoc(data)
	if err != nil {
		return nil, err
	}
	for _, kv := range d.kvs {
		if slices.Equal(kv.path, path) {
			return splice(data, kv.valStart, kv.end, literal), nil
		}
	}
	if err := d.checkConflicts(path); err != nil {
		return nil, err
	}
	return d.insert(path, literal), nil
}

// checkConflicts refuses to add path under a key written as a value or an inline table, or
// under an array of tables.
func (d *tomlDoc) checkConflicts(path []string) error {
	for _, kv := range d.kvs {
		if len(kv.path) < len(path) && slices.Equal(kv.path, path[:len(kv.path)]) {
			if kv.valueInline {
				return fmt.Errorf("%s is an inline table (line %d); add %s there by hand", displayPath(kv.path), kv.line, displayPath(path))
			}
			return fmt.Errorf("%s (line %d) is a value, not a table", displayPath(kv.path), kv.line)
		}
	}
	for _, h := range d.headers {
		if h.array && len(h.path) <= len(path) && slices.Equal(h.path, path[:len(h.path)]) {
			return fmt.Errorf("%s is an array of tables; edit it by hand", displayPath(h.path))
		}
	}
	return nil
}

// insert adds `key = literal` for a path that the document does not have yet.
func (d *tomlDoc) insert(path []string, literal string) []byte {
	parent := path[:len(path)-1]
	line := func(rel []string) string { return displayPath(rel) + " = " + literal + d.nl }
	if len(parent) == 0 {
		return d.insertTopLevel(line(path))
	}
	// After the last key of the parent table, written in a section that is a prefix of it.
	best := -1
	for i, kv := range d.kvs {
		if !kv.inline && len(kv.path) > len(parent) && slices.Equal(kv.path[:len(parent)], parent) &&
			len(kv.table) <= len(parent) && slices.Equal(kv.table, parent[:len(kv.table)]) {
			best = i
		}
	}
	if best >= 0 {
		kv := d.kvs[best]
		return insertAt(d.data, lineEnd(d.data, kv.end), line(path[len(kv.table):]), d.nl)
	}
	for _, h := range d.headers {
		if !h.array && slices.Equal(h.path, parent) {
			return insertAt(d.data, h.lineEnd, line(path[len(parent):]), d.nl)
		}
	}
	var b bytes.Buffer
	b.Write(d.data)
	if len(d.data) > 0 {
		if !bytes.HasSuffix(d.data, []byte("\n")) {
			b.WriteString(d.nl)
		}
		b.WriteString(d.nl)
	}
	b.WriteString("[" + displayPath(parent) + "]" + d.nl + line(path[len(parent):]))
	return b.Bytes()
}

// insertTopLevel adds a line after the last top-level key, else before the first table
// (and the comments just above it), else at the end.
func (d *tomlDoc) insertTopLevel(text string) []byte {
	pos := -1
	for _, kv := range d.kvs {
		if !kv.inline && len(kv.table) == 0 {
			pos = lineEnd(d.data, kv.end)
		}
	}
	if pos >= 0 {
		return insertAt(d.data, pos, text, d.nl)
	}
	if len(d.headers) > 0 {
		pos = d.headers[0].lineStart
		for pos > 0 {
			prev := lineStart(d.data, pos-1)
			if !bytes.HasPrefix(bytes.TrimSpace(d.data[prev:pos]), []byte("#")) {
				break
			}
			pos = prev
		}
		return insertAt(d.data, pos, text+d.nl, d.nl)
	}
	return insertAt(d.data, len(d.data), text, d.nl)
}

// addRuleInDoc appends rule to the array at path, creating the key when missing.
func addRuleInDoc(data []byte, path []string, rule string) ([]byte, error) {
	d, err := scanDoc(data)
	if err != nil {
		return nil, err
	}
	for _, kv := range d.kvs {
		if !slices.Equal(kv.path, path) {
			continue
		}
		if !kv.isArray {
			return nil, fmt.Errorf("%s (line %d) is not an array", displayPath(path), kv.line)
		}
		for _, e := range kv.elems {
			if e.isString && e.text == rule {
				return data, nil
			}
		}
		return d.appendElem(kv, tomlString(rule))
	}
	return setInDoc(data, path, tomlArray([]string{rule}))
}

// appendElem adds literal as the last element of the array kv, keeping the array's layout:
// on the same line for one-line arrays, on a line of its own (with the indentation of the
// last element) for multi-line ones.
func (d *tomlDoc) appendElem(kv kvInfo, literal string) ([]byte, error) {
	data := d.data
	if len(kv.elems) == 0 {
		return splice(data, kv.valStart, kv.end, "["+literal+"]"), nil
	}
	closeIdx := kv.end - 1
	if closeIdx < 0 || data[closeIdx] != ']' {
		return nil, errors.New("unexpected array layout")
	}
	last := kv.elems[len(kv.elems)-1]
	between := data[last.end:closeIdx]
	if !bytes.Contains(between, []byte("\n")) {
		return splice(data, last.end, last.end, ", "+literal), nil
	}
	ls := lineStart(data, closeIdx)
	var out []byte
	if len(bytes.TrimSpace(data[ls:closeIdx])) == 0 {
		out = splice(data, ls, ls, lineIndent(data, last.start)+literal+","+d.nl)
	} else {
		out = splice(data, closeIdx, closeIdx, literal+", ")
	}
	if !commaOutsideComments(between) {
		out = splice(out, last.end, last.end, ",")
	}
	return out, nil
}

// commaOutsideComments reports whether b has a ',' that is not inside a # comment.
func commaOutsideComments(b []byte) bool {
	inComment := false
	for _, c := range b {
		switch {
		case c == '\n':
			inComment = false
		case inComment:
		case c == '#':
			inComment = true
		case c == ',':
			return true
		}
	}
	return false
}

func lineIndent(data []byte, off int) string {
	ls := lineStart(data, off)
	i := ls
	for i < off && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	if i < off {
		return "  "
	}
	return string(data[ls:i])
}

func splice(data []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(data)+len(text))
	out = append(out, data[:from]...)
	out = append(out, text...)
	return append(out, data[to:]...)
}

// insertAt inserts text (a full line) at pos, first ending an unterminated last line.
func insertAt(data []byte, pos int, text, nl string) []byte {
	if pos == len(data) && len(data) > 0 && data[len(data)-1] != '\n' {
		text = nl + text
	}
	return splice(data, pos, pos, text)
}

func skipBlanks(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return i
}

// lineStart is the offset of the start of the line containing off.
func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

// lineEnd is the offset just after the newline ending the line containing off (len(data)
// on the last line).
func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(data)
}
