package tools

import "encoding/json"

// SetTestHookBeforeOpen sets the hook run between the resolution of a
// path and each file operation on it (nil clears it).
func SetTestHookBeforeOpen(h func(abs string)) { testHookBeforeOpen = h }

// SchemaJSONBothWays returns d's schema as Schema writes it and as
// jsonschema's own MarshalJSON writes it (reflected is nil for a raw
// schema).
func SchemaJSONBothWays(d Def) (written, reflected []byte, err error) {
	ps, err := d.params()
	if err != nil || ps.schema == nil {
		return ps.schemaJSON, nil, err
	}
	reflected, err = json.Marshal(ps.schema)
	return ps.schemaJSON, reflected, err
}

// SchemaWrittenDirectly reports whether d's schema is written without
// json.Marshal (marshalSchema's fast path).
func SchemaWrittenDirectly(d Def) bool {
	ps, err := d.params()
	if err != nil || ps.schema == nil {
		return false
	}
	w := schemaWriter{ok: true}
	w.schema(ps.schema)
	return w.ok
}
