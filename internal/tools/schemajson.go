package tools

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// marshalSchema returns s as compact JSON, byte for byte what
// json.Marshal(s) returns (jsonschema's MarshalJSON). Tool parameters
// use a small part of JSON Schema (type, properties in declaration order,
// items, description, default, enum, required, additionalProperties):
// that part is written directly, at a fraction of the cost of jsonschema's
// reflection-based marshalling, which every start paid for every tool
// (issue 40). A schema using anything else, or a value that does not
// marshal, goes through json.Marshal. TestSchemaJSONMatchesJSONSchema
// holds the two equal for every built-in tool.
func marshalSchema(s *jsonschema.Schema) ([]byte, error) {
	w := schemaWriter{ok: true}
	w.schema(s)
	if w.ok {
		return w.b, nil
	}
	return json.Marshal(s)
}

// schemaWriter appends JSON to b; ok turns false at the first schema or
// value it cannot write as json.Marshal would.
type schemaWriter struct {
	b  []byte
	ok bool
}

// schema writes s, or clears ok when s uses a keyword outside the part
// marshalSchema writes.
func (w *schemaWriter) schema(s *jsonschema.Schema) {
	if s == nil {
		w.b = append(w.b, "null"...)
		return
	}
	rest := *s
	rest.Type, rest.Properties, rest.PropertyOrder, rest.Items = "", nil, nil, nil
	rest.Description, rest.Default, rest.Enum, rest.Required = "", nil, nil, nil
	rest.AdditionalProperties, rest.Not = nil, nil
	if !reflect.ValueOf(&rest).Elem().IsZero() {
		w.ok = false
		return
	}
	known := s.Type != "" || s.Properties != nil || s.PropertyOrder != nil || s.Items != nil ||
		s.Description != "" || s.Default != nil || s.Enum != nil || s.Required != nil || s.AdditionalProperties != nil
	switch {
	case s.Not == nil && !known:
		w.b = append(w.b, "true"...) // the empty schema
	case s.Not == nil:
		w.object(s)
	case !known && isTrueSchema(s.Not):
		w.b = append(w.b, "false"...) // {"not": {}}
	default:
		w.ok = false
	}
}

// object writes the keywords of s in jsonschema's order: type,
// properties, items, then the struct fields in declaration order.
func (w *schemaWriter) object(s *jsonschema.Schema) {
	w.b = append(w.b, '{')
	n := len(w.b)
	if s.Type != "" {
		w.key(n, "type")
		w.value(s.Type)
	}
	if s.Properties != nil {
		w.key(n, "properties")
		w.properties(s)
	}
	if s.Items != nil {
		w.key(n, "items")
		w.schema(s.Items)
	}
	if s.Description != "" {
		w.key(n, "description")
		w.value(s.Description)
	}
	if len(s.Default) > 0 {
		w.key(n, "default")
		w.value(s.Default)
	}
	if len(s.Enum) > 0 {
		w.key(n, "enum")
		w.value(s.Enum)
	}
	if len(s.Required) > 0 {
		w.key(n, "required")
		w.value(s.Required)
	}
	if s.AdditionalProperties != nil {
		w.key(n, "additionalProperties")
		w.schema(s.AdditionalProperties)
	}
	w.b = append(w.b, '}')
}

// properties writes s.Properties: the names of s.PropertyOrder first,
// then the others sorted, as jsonschema does.
func (w *schemaWriter) properties(s *jsonschema.Schema) {
	w.b = append(w.b, '{')
	n := len(w.b)
	seen := make(map[string]bool, len(s.Properties))
	names := make([]string, 0, len(s.Properties))
	for _, name := range s.PropertyOrder {
		if _, ok := s.Properties[name]; ok && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	var others []string
	for name := range s.Properties {
		if !seen[name] {
			others = append(others, name)
		}
	}
	slices.Sort(others)
	for _, name := range append(names, others...) {
		w.key(n, name)
		w.schema(s.Properties[name])
	}
	w.b = append(w.b, '}')
}

// key writes `"key":`, after a comma unless it is the first key of the
// object whose first key would start at b[n].
func (w *schemaWriter) key(n int, key string) {
	if len(w.b) > n {
		w.b = append(w.b, ',')
	}
	w.value(key)
	w.b = append(w.b, ':')
}

// value writes v as json.Marshal does (the same escaping of strings, raw
// messages compacted).
func (w *schemaWriter) value(v any) {
	j, err := json.Marshal(v)
	if err != nil {
		w.ok = false
		return
	}
	w.b = append(w.b, j...)
}

// isTrueSchema reports whether s is the empty schema, written as true.
func isTrueSchema(s *jsonschema.Schema) bool {
	return reflect.ValueOf(s).Elem().IsZero()
}
