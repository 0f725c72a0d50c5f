package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalize turns the model's raw arguments into canonical ones: parameter
// aliases resolved, values coerced ("5" → 5), defaults applied, validated
// against the schema. The error is an *Error (CategoryValidation).
func (ps *params) normalize(tool string, raw json.RawMessage) (map[string]any, error) {
	if ps.raw {
		return ps.normalizeRaw(tool, raw)
	}
	fields, err := parseObject(raw)
	if err != nil {
		return nil, errorf(CategoryValidation, "invalid arguments for %s: %v. Send a JSON object like %s",
			tool, err, ps.example())
	}
	out := make(map[string]any, len(fields))
	from := map[string]string{} // canonical name -> key as given
	var unknown []string
	for _, f := range fields {
		name, ok := ps.canonicalParam(f.key)
		if !ok {
			unknown = append(unknown, strconv.Quote(f.key))
			continue
		}
		if prev, dup := from[name]; dup {
			return nil, errorf(CategoryValidation, "%s: parameters %q and %q both set %q; give it once",
				tool, prev, f.key, name)
		}
		from[name] = f.key
		var v any
		if err := json.Unmarshal(f.val, &v); err != nil {
			return nil, errorf(CategoryValidation, "%s: parameter %q: %v", tool, f.key, err)
		}
		if v == nil {
			continue // null means "not given"
		}
		cv, err := coerce(ps.props[name], v)
		if err != nil {
			return nil, errorf(CategoryValidation, "%s: %v", tool, err)
		}
		out[name] = cv
	}
	if len(unknown) > 0 {
		return nil, errorf(CategoryValidation, "%s: unknown parameter(s) %s; accepted: %s",
			tool, strings.Join(unknown, ", "), ps.describe())
	}
	if err := ps.complete(tool, out); err != nil {
		return nil, err
	}
	resolved, err := ps.resolved, error(nil)
	if resolved == nil && ps.resolve != nil {
		if resolved, err = ps.resolve(); err != nil {
			return nil, errorf(CategoryExecution, "tool %s is misconfigured: %v", tool, err)
		}
	}
	if resolved != nil {
		if err := resolved.Validate(out); err != nil {
			return nil, errorf(CategoryValidation, "invalid arguments for %s: %v; accepted: %s", tool, err, ps.describe())
		}
	}
	return out, nil
}

// complete checks required parameters and path values and applies defaults.
func (ps *params) complete(tool string, out map[string]any) error {
	for _, name := range ps.order {
		p := ps.props[name]
		v, present := out[name]
		if s, isStr := v.(string); present && isStr && s == "" && !p.required && p.def != nil {
			delete(out, name) // "" for an optional parameter with a default: use the default
			present = false
		}
		if !present {
			if p.required {
				return errorf(CategoryValidation, "%s: missing required parameter %q; accepted: %s",
					tool, name, ps.describe())
			}
			if p.def != nil {
				out[name] = p.def
			}
			continue
		}
		if p.path {
			if err := checkPathValue(name, v); err != nil {
				return errorf(CategoryValidation, "%s: %v", tool, err)
			}
		}
	}
	return nil
}

func checkPathValue(name string, v any) error {
	check := func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("parameter %q is empty; give a path relative to the workspace root", name)
		}
		if strings.ContainsRune(s, 0) {
			return fmt.Errorf("parameter %q contains a NUL byte; file names cannot contain NUL", name)
		}
		return nil
	}
	switch t := v.(type) {
	case string:
		return check(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				if err := check(s); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// describe lists the parameters for error messages: "path (string,
// required), offset (integer)".
func (ps *params) describe() string {
	parts := make([]string, 0, len(ps.order))
	for _, name := range ps.order {
		p := ps.props[name]
		req := ""
		if p.required {
			req = ", required"
		}
		parts = append(parts, fmt.Sprintf("%s (%s%s)", name, p.typ, req))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// example is a minimal JSON object with the required parameters.
func (ps *params) example() string {
	var parts []string
	for _, name := range ps.order {
		if p := ps.props[name]; p.required {
			val := `"..."`
			switch p.typ {
			case "integer", "number":
				val = "1"
			case "boolean":
				val = "true"
			case "array":
				val = `["..."]`
			}
			parts = append(parts, strconv.Quote(name)+": "+val)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// canonicalParam maps a key as the model wrote it to a parameter name.
func (ps *params) canonicalParam(key string) (string, bool) {
	if _, ok := ps.props[key]; ok {
		return key, true
	}
	k := canonicalKey(key)
	if _, ok := ps.props[k]; ok {
		return k, true
	}
	for _, cand := range paramAliases(k) {
		if _, ok := ps.props[cand]; ok {
			return cand, true
		}
	}
	return "", false
}

// canonicalKey lower-cases a key and turns camelCase, kebab-case and
// spaces into snake_case ("filePath" → "file_path", "-C" → "c").
func canonicalKey(k string) string {
	k = strings.TrimLeft(strings.TrimSpace(k), "-")
	var b strings.Builder
	prevLower := false
	for _, r := range k {
		switch {
		case r == '-' || r == ' ' || r == '.':
			b.WriteByte('_')
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	return b.String()
}

// paramAliasGroups maps keys the model may write (canonicalised, see
// canonicalKey) to the parameter names they may stand for, most likely
// first; the first one the tool has wins. A key appears in one group only.
var paramAliasGroups = []struct {
	keys    []string
	targets []string
}{
	{[]string{
		"file_path", "filepath", "filename", "file", "file_name", "target_file", "absolute_path",
		"relative_path", "dir", "directory", "dir_path", "directory_path", "folder", "target_directory",
		"root",
	}, []string{"path"}},
	{[]string{"contents", "text", "file_content", "file_contents", "data", "body"}, []string{"content", "new_content"}},
	{[]string{"content"}, []string{"new_content"}},
	{[]string{"new_content"}, []string{"content"}},
	{[]string{
		"old_str", "old", "old_text", "original", "original_text", "search", "find", "old_content",
	}, []string{"old_string", "pattern"}},
	{[]string{
		"new_str", "new", "new_text", "replace", "replacement_text", "updated", "replace_with", "with",
	}, []string{"new_string", "replacement", "new_content"}},
	{[]string{"replacement"}, []string{"new_string", "new_content"}},
	{[]string{"new_string"}, []string{"replacement", "new_content"}},
	{[]string{"replaceall", "all", "global", "replace_all_occurrences"}, []string{"replace_all"}},
	{[]string{"start_line"}, []string{"offset", "line"}},
	{[]string{"offset"}, []string{"start_line"}},
	{[]string{"start", "line_start", "from_line", "first_line", "begin", "line_offset"}, []string{"start_line", "offset", "line"}},
	{[]string{"from"}, []string{"source", "start_line", "offset"}},
	{[]string{"end", "line_end", "to_line", "last_line", "stop"}, []string{"end_line"}},
	{[]string{"to"}, []string{"destination", "end_line"}},
	{[]string{
		"line_number", "lineno", "line_num", "line_no", "insert_line", "after_line", "at_line",
		"insert_after",
	}, []string{"line", "start_line"}},
	{[]string{"limit"}, []string{"lines", "max_results"}},
	{[]string{
		"lines", "max_lines", "num_lines", "number_of_lines", "count", "n", "num", "length",
	}, []string{"limit", "lines", "max_results"}},
	{[]string{"max_count", "max_matches", "head_limit", "max", "results", "max_result"}, []string{"max_results", "limit"}},
	{[]string{
		"query", "search_pattern", "regexp", "expression", "search_term", "term", "regex_pattern", "regex",
	}, []string{"pattern"}},
	{[]string{
		"glob", "file_pattern", "include_pattern", "files", "file_glob", "filter", "includes",
		"glob_pattern",
	}, []string{"include", "pattern"}},
	{[]string{"case_insensitive", "i", "insensitive", "nocase", "ignorecase"}, []string{"ignore_case"}},
	{[]string{"context", "c", "surrounding_lines", "context_line"}, []string{"context_lines"}},
	{[]string{"src", "source_path", "from_path", "old_path", "source_file"}, []string{"source"}},
	{[]string{
		"dest", "dst", "target", "to_path", "destination_path", "new_path", "target_path",
		"destination_file",
	}, []string{"destination", "path"}},
	{[]string{"max_depth", "level", "levels", "recursion_depth"}, []string{"depth"}},
	{[]string{"dryrun", "preview", "dry"}, []string{"dry_run"}},
	{[]string{"patch", "diff"}, []string{"input"}},
}

// paramAliasTable indexes paramAliasGroups by key.
var paramAliasTable = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range paramAliasGroups {
		for _, k := range g.keys {
			if _, dup := m[k]; dup {
				panic("tools: parameter alias " + k + " is listed twice")
			}
			m[k] = g.targets
		}
	}
	return m
}()

// paramAliases returns, for a canonicalised key that is not a parameter of
// the tool, the parameter names it may stand for, most likely first (nil
// when none). The first one the tool has wins.
func paramAliases(k string) []string { return paramAliasTable[k] }

// coerce converts v (decoded JSON) to the parameter's type where the
// intent is unambiguous: "5" → 5, 5.0 → 5, "true" → true, "x" → ["x"] for
// arrays, 1 → "1" for strings (a number's decimal text; a boolean is
// never made a string, nor a path parameter from a number).
func coerce(p *prop, v any) (any, error) {
	switch p.typ {
	case "integer":
		return toInt(p.name, v)
	case "number":
		switch t := v.(type) {
		case float64:
			return t, nil
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(t), 64); err == nil {
				return f, nil
			}
		}
	case "boolean":
		return toBool(p.name, v)
	case "string":
		switch t := v.(type) {
		case string:
			return t, nil
		case float64: // {"id": 1}: models often send an id as a number
			if p.path {
				break // a path is never made from a number (attack case E-155)
			}
			if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
				return strconv.FormatInt(int64(t), 10), nil
			}
			return strconv.FormatFloat(t, 'f', -1, 64), nil
		}
	case "array":
		return toStrings(p.name, v)
	}
	return nil, fmt.Errorf("parameter %q must be %s, got %s", p.name, article(p.typ), describeValue(v))
}

func toInt(name string, v any) (any, error) {
	switch t := v.(type) {
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int64(t), nil
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64); err == nil {
			return n, nil
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(t), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
	}
	return nil, fmt.Errorf("parameter %q must be an integer, got %s", name, describeValue(v))
}

func toBool(name string, v any) (any, error) {
	switch t := v.(type) {
	case bool:
		return t, nil
	case float64:
		if t == 0 || t == 1 {
			return t == 1, nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "true", "yes", "1", "on":
			return true, nil
		case "false", "no", "0", "off", "":
			return false, nil
		}
	}
	return nil, fmt.Errorf("parameter %q must be a boolean (true or false), got %s", name, describeValue(v))
}

func toStrings(name string, v any) (any, error) {
	switch t := v.(type) {
	case string:
		return []any{t}, nil
	case []any:
		for i, e := range t {
			if _, ok := e.(string); !ok {
				return nil, fmt.Errorf("parameter %q must be an array of strings; element %d is %s", name, i, describeValue(e))
			}
		}
		return t, nil
	}
	return nil, fmt.Errorf("parameter %q must be an array of strings, got %s", name, describeValue(v))
}

func article(typ string) string {
	switch typ {
	case "integer", "array":
		return "an " + typ
	}
	return "a " + typ
}

func describeValue(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	switch v.(type) {
	case string:
		return "the string " + s
	case float64:
		return "the number " + s
	case bool:
		return "the boolean " + s
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return s
}

type field struct {
	key string
	val json.RawMessage
}

// parseObject parses a JSON object keeping key order and refusing
// duplicate keys, invalid UTF-8 and lone UTF-16 surrogate escapes (which
// encoding/json would silently turn into U+FFFD). Empty input and null are
// the empty object; a JSON string holding an object (double-encoded
// arguments) is unwrapped once.
func parseObject(raw json.RawMessage) ([]field, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if !utf8.Valid(raw) {
		return nil, errors.New("the arguments are not valid UTF-8")
	}
	if raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, fmt.Errorf("malformed JSON: %v", err)
		}
		raw = bytes.TrimSpace([]byte(inner))
		if len(raw) == 0 || raw[0] != '{' {
			return nil, errors.New("the arguments must be a JSON object, got a string")
		}
	}
	if err := checkSurrogates(raw); err != nil {
		return nil, err
	}
	return decodeFields(raw)
}

func decodeFields(raw []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("malformed JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("the arguments must be a JSON object, got %s", describeToken(tok))
	}
	var out []field
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("malformed JSON: %v", err)
		}
		key, _ := kt.(string)
		if seen[key] {
			return nil, fmt.Errorf("parameter %q is given twice; give each parameter once", key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("malformed JSON in %q: %v", key, err)
		}
		out = append(out, field{key: key, val: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("malformed JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("malformed JSON: unexpected data after the object")
	}
	return out, nil
}

func describeToken(t json.Token) string {
	switch t.(type) {
	case json.Delim:
		return "an array"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "something else"
}

// checkSurrogates rejects \uD800-\uDFFF escapes that do not form a valid
// high+low pair.
func checkSurrogates(raw []byte) error {
	pendingHigh := false
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			if pendingHigh {
				return errLoneSurrogate
			}
			continue
		}
		i++ // the escaped character
		if raw[i] != 'u' || i+4 >= len(raw) {
			if pendingHigh {
				return errLoneSurrogate
			}
			continue
		}
		n, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 16)
		if err != nil {
			return fmt.Errorf("malformed JSON: bad \\u escape %q", raw[i-1:i+5])
		}
		i += 4
		switch {
		case n >= 0xD800 && n <= 0xDBFF:
			if pendingHigh {
				return errLoneSurrogate
			}
			pendingHigh = true
		case n >= 0xDC00 && n <= 0xDFFF:
			if !pendingHigh {
				return errLoneSurrogate
			}
			pendingHigh = false
		default:
			if pendingHigh {
				return errLoneSurrogate
			}
		}
	}
	if pendingHigh {
		return errLoneSurrogate
	}
	return nil
}

var errLoneSurrogate = errors.New(`the arguments contain an unpaired UTF-16 surrogate escape (e.g. "\ud800"), ` +
	"which is not valid Unicode; send the text as valid UTF-8")
