package textcall

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// maxSchemaDepth bounds the anyOf/oneOf nesting followed to type a value.
const maxSchemaDepth = 8

// schemaInfo is the part of a tool's JSON Schema used to type values.
type schemaInfo struct {
	known    bool // the tool was offered with a readable object schema
	props    map[string]json.RawMessage
	order    []string // property names as declared
	required []string
	types    map[string]propType
}

// propType is the resolved type of one parameter: a normalized JSON Schema
// type name ("string", "integer", "number", "boolean", "object", "array", or
// "" when unknown) and whether null is allowed.
type propType struct {
	name     string
	nullable bool
}

// schema returns the schema of the named tool, parsed once per Parse call.
// An unknown tool or unreadable schema gives an empty, unknown schemaInfo.
func (p *parser) schema(name string) *schemaInfo {
	if si, ok := p.schemas[name]; ok {
		return si
	}
	if p.schemas == nil {
		p.schemas = make(map[string]*schemaInfo)
	}
	si := &schemaInfo{}
	t, ok := p.tool(name)
	if ok {
		var doc struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if len(t.Schema) > 0 && json.Unmarshal(t.Schema, &doc) == nil {
			si.known = true
			si.props = doc.Properties
			si.required = doc.Required
			si.order = propOrder(t.Schema)
		}
	}
	p.schemas[name] = si
	return si
}

// tool finds the offered tool called name, or else the one name stands for
// by Options.Canonical (an alias such as run_shell_command).
func (p *parser) tool(name string) (Tool, bool) {
	for _, t := range p.tools {
		if t.Name == name {
			return t, true
		}
	}
	if p.opts.Canonical == nil {
		return Tool{}, false
	}
	if c := p.opts.Canonical(name); c != "" && c != name {
		for _, t := range p.tools {
			if t.Name == c {
				return t, true
			}
		}
	}
	return Tool{}, false
}

// propOrder returns the property names of a JSON Schema in the order
// written ("properties" of the top-level object), nil when unreadable.
func propOrder(schema json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(schema))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if tok != "properties" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil
		}
		var names []string
		for dec.More() {
			tok, err := dec.Token()
			key, ok := tok.(string)
			var skip json.RawMessage
			if err != nil || !ok || dec.Decode(&skip) != nil {
				return nil
			}
			names = append(names, key)
		}
		return names
	}
	return nil
}

// singleParam returns the parameter a lone value belongs to: the only
// required parameter, or else the only parameter.
func (si *schemaInfo) singleParam() (string, bool) {
	if !si.known {
		return "", false
	}
	if len(si.required) == 1 {
		return si.required[0], true
	}
	if len(si.required) == 0 && len(si.props) == 1 {
		for k := range si.props {
			return k, true
		}
	}
	return "", false
}

// lazyParam is singleParam for the lazy <function=NAME>VALUE</function>
// form, which also infers the parameter of a tool whose parameters are all
// optional: the first one declared (list_directory's path, say), since
// tools declare their main parameter first.
func (si *schemaInfo) lazyParam() (string, bool) {
	if k, ok := si.singleParam(); ok || !si.known || len(si.required) > 0 {
		return k, ok
	}
	for _, k := range si.order {
		if _, ok := si.props[k]; ok {
			return k, true
		}
	}
	return "", false
}

// propType returns the resolved type of parameter key.
func (si *schemaInfo) propType(key string) propType {
	if pt, ok := si.types[key]; ok {
		return pt
	}
	pt := propType{nullable: true}
	if raw, ok := si.props[key]; ok {
		pt.name, pt.nullable = resolveType(raw, 0)
	}
	if si.types == nil {
		si.types = make(map[string]propType)
	}
	si.types[key] = pt
	return pt
}

// resolveType reads "type" (a name or a list), then anyOf/oneOf, then enum:
// the first non-null type wins; nullable is true when null is allowed or the
// type is unknown.
func resolveType(raw json.RawMessage, depth int) (string, bool) {
	if depth > maxSchemaDepth {
		return "", true
	}
	var d struct {
		Type  json.RawMessage   `json:"type"`
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
		Enum  []json.RawMessage `json:"enum"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return "", true
	}
	typ, nullable := "", false
	if len(d.Type) > 0 {
		var one string
		var many []string
		if json.Unmarshal(d.Type, &one) == nil {
			many = []string{one}
		} else {
			_ = json.Unmarshal(d.Type, &many) // not a list either: no type
		}
		for _, t := range many {
			if strings.EqualFold(t, "null") {
				nullable = true
			} else if typ == "" {
				typ = normalizeType(t)
			}
		}
	}
	for _, sub := range append(d.AnyOf, d.OneOf...) {
		t, n := resolveType(sub, depth+1)
		nullable = nullable || n
		if typ == "" {
			typ = t
		}
	}
	if typ == "" && len(d.Enum) > 0 {
		typ = kindOf(d.Enum[0])
	}
	if typ == "" {
		nullable = true
	}
	return typ, nullable
}

// normalizeType maps JSON Schema type names and the loose aliases models and
// tool authors use onto the six JSON types; "" for anything else.
func normalizeType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	switch {
	case t == "string" || t == "str" || t == "text" || t == "varchar" || t == "char" || t == "enum":
		return "string"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint") || t == "long" || t == "short":
		return "integer"
	case t == "number" || t == "num" || t == "float" || t == "double" || t == "decimal":
		return "number"
	case t == "boolean" || t == "bool":
		return "boolean"
	case t == "object" || t == "dict" || t == "map":
		return "object"
	case t == "array" || t == "list":
		return "array"
	}
	return ""
}

// kindOf returns the JSON type of a JSON value, for enum-only schemas.
func kindOf(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch c := v[0]; {
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	}
	return ""
}

// convert turns the raw text of a Qwen XML parameter value into JSON, typed
// by the schema. Exactly one leading and one trailing newline are removed
// (as vLLM does); strings keep the rest as-is. "null" (any case) becomes
// JSON null unless the parameter is a non-nullable string. integer, number,
// boolean ("true"/"false", any case), object and array are parsed from the
// trimmed text (object and array also as Python literals); a value that
// does not parse stays a string, for the engine's
// validation to report. Without a schema, values stay strings.
func (si *schemaInfo) convert(key, raw string) json.RawMessage {
	v := trimOneNewline(raw)
	pt := si.propType(key)
	t := strings.TrimSpace(v)
	if strings.EqualFold(t, "null") && !(pt.name == "string" && !pt.nullable) {
		return json.RawMessage("null")
	}
	switch pt.name {
	case "integer":
		if r, ok := toInteger(t); ok {
			return r
		}
	case "number":
		if r, ok := toNumber(t); ok {
			return r
		}
	case "boolean":
		if strings.EqualFold(t, "true") {
			return json.RawMessage("true")
		}
		if strings.EqualFold(t, "false") {
			return json.RawMessage("false")
		}
	case "object", "array":
		if r, ok := structured(t); ok {
			return r
		}
	}
	return jsonString(v)
}

// structured reads the text of an object or array parameter: JSON, or
// else a Python literal (single quotes, True/False/None), as vLLM's and
// SGLang's parsers do.
func structured(t string) (json.RawMessage, bool) {
	if json.Valid([]byte(t)) {
		return compact(json.RawMessage(t)), true
	}
	if t == "" || (t[0] != '{' && t[0] != '[' && t[0] != '(') {
		return nil, false
	}
	return pyLiteral(t)
}

// trimOneNewline removes one leading and one trailing "\n" (or "\r\n").
func trimOneNewline(s string) string {
	if strings.HasPrefix(s, "\r\n") {
		s = s[2:]
	} else if strings.HasPrefix(s, "\n") {
		s = s[1:]
	}
	if strings.HasSuffix(s, "\r\n") {
		s = s[:len(s)-2]
	} else if strings.HasSuffix(s, "\n") {
		s = s[:len(s)-1]
	}
	return s
}

// toInteger parses a decimal integer, or a float with no fractional part.
func toInteger(t string) (json.RawMessage, bool) {
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return json.RawMessage(strconv.FormatInt(n, 10)), true
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return nil, false
	}
	return json.RawMessage(strconv.FormatFloat(f, 'f', -1, 64)), true
}

// toNumber parses a finite number.
func toNumber(t string) (json.RawMessage, bool) {
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	if json.Valid([]byte(t)) {
		return json.RawMessage(t), true
	}
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), true
}

// objBuilder builds a JSON object keeping the order keys were first set in;
// setting a key again replaces its value.
type objBuilder struct {
	keys []string
	vals []json.RawMessage
}

func (b *objBuilder) set(k string, v json.RawMessage) {
	for i, have := range b.keys {
		if have == k {
			b.vals[i] = v
			return
		}
	}
	b.keys = append(b.keys, k)
	b.vals = append(b.vals, v)
}

func (b *objBuilder) bytes() json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range b.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(jsonString(k))
		buf.WriteByte(':')
		buf.Write(b.vals[i])
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// jsonString encodes s as a JSON string without HTML escaping (tool
// arguments often hold code with < > &). Invalid UTF-8 becomes U+FFFD.
func jsonString(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// compact removes insignificant white space from valid JSON; invalid input
// is returned unchanged.
func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}
