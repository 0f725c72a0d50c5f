package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// CleanJSONSchema prepares a tool's parameters, a JSON Schema object, for
// FunctionDeclaration.parametersJsonSchema
// (https://ai.google.dev/api/caching#FunctionDeclaration), which takes JSON
// Schema as is (`$ref`/`$defs`, `anyOf`, `additionalProperties`, type
// lists): it drops the `$schema` and `$id` meta keywords (at the root and in
// `$defs`/`definitions`) and checks that the root describes an object.
//
// It returns nil when the tool takes no parameters (empty schema, or an
// object schema without properties, `$ref` or combinators). The error says
// what is wrong when raw is not JSON or its root is not an object schema.
func CleanJSONSchema(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "" || trimmed == "null" {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("the parameters schema is not valid JSON: %w", err)
	}
	rm, ok := root.(map[string]any)
	if !ok {
		return nil, errors.New("the parameters schema must be a JSON object (a JSON Schema with type object)")
	}
	if types, _ := schemaTypes(rm["type"]); len(types) > 0 && (len(types) > 1 || types[0] != "OBJECT") {
		return nil, fmt.Errorf("the parameters schema must describe an object (type object), not %v", rm["type"])
	}
	dropMeta(rm)
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := rm[key].(map[string]any); ok {
			for _, d := range defs {
				if dm, ok := d.(map[string]any); ok {
					dropMeta(dm)
				}
			}
		}
	}
	if !declaresParameters(rm) {
		return nil, nil
	}
	if _, ok := rm["type"]; !ok {
		rm["type"] = "object"
	}
	return json.Marshal(rm)
}

func dropMeta(m map[string]any) {
	delete(m, "$schema")
	delete(m, "$id")
}

// declaresParameters reports whether an object schema says anything about
// its members.
func declaresParameters(m map[string]any) bool {
	if props, ok := m["properties"].(map[string]any); ok && len(props) > 0 {
		return true
	}
	for _, k := range []string{"$ref", "anyOf", "oneOf", "allOf", "additionalProperties", "patternProperties"} {
		if v, ok := m[k]; ok && v != false {
			return true
		}
	}
	return false
}

// maxSchemaDepth bounds schema nesting and $ref expansion; deeper (or
// recursive) parts become a bare OBJECT.
const maxSchemaDepth = 24

// ConvertSchema converts a tool's parameters, a JSON Schema object, into the
// OpenAPI 3.0 subset that FunctionDeclaration.parameters accepts
// (https://ai.google.dev/api/caching#Schema):
//   - local `$ref`s (`#/$defs/...`, `#/definitions/...`, `#`) are expanded in
//     place, recursive ones up to a depth limit;
//   - `type` becomes the upper-case enum name; `["x","null"]` and
//     `anyOf`/`oneOf` members of type null become `nullable: true`;
//     `oneOf` becomes `anyOf`, single-member unions and `allOf` are merged;
//   - `const` becomes a one-value `enum`; enums must be strings, others are
//     dropped and listed in the description instead;
//   - `format` is kept only where Gemini supports it (enum and date-time for
//     strings, float/double, int32/int64);
//   - `required` keeps only declared properties;
//   - everything else (`$schema`, `$id`, `additionalProperties`, `title`,
//     `examples`, `not`, `if`/`then`/`else`, `patternProperties`, ...) is
//     dropped.
//
// It returns nil when the tool takes no parameters (empty schema, or an
// object schema without properties; Gemini rejects OBJECT parameters with no
// properties). The error says what is wrong when raw is not JSON or not an
// object schema.
func ConvertSchema(raw json.RawMessage) (map[string]any, error) {
	if len(strings.TrimSpace(string(raw))) == 0 || strings.TrimSpace(string(raw)) == "null" {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("the parameters schema is not valid JSON: %w", err)
	}
	rm, ok := root.(map[string]any)
	if !ok {
		return nil, errors.New("the parameters schema must be a JSON object (a JSON Schema with type object)")
	}
	sc := &schemaConv{root: rm, defs: map[string]any{}}
	for _, key := range []string{"definitions", "$defs"} {
		if d, ok := rm[key].(map[string]any); ok {
			for k, v := range d {
				sc.defs[k] = v
			}
		}
	}
	out := sc.conv(rm, 0)
	if t, _ := out["type"].(string); t != "" && t != "OBJECT" {
		return nil, fmt.Errorf("the parameters schema must describe an object (type object), not %s", strings.ToLower(t))
	}
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil, nil
	}
	out["type"] = "OBJECT"
	return out, nil
}

type schemaConv struct {
	root map[string]any
	defs map[string]any
}

// conv converts one schema node; nil means "no constraint".
func (sc *schemaConv) conv(node any, depth int) map[string]any {
	m, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	if depth > maxSchemaDepth {
		return map[string]any{"type": "OBJECT"}
	}
	if ref, ok := m["$ref"].(string); ok {
		if target, ok := sc.resolve(ref); ok {
			merged := make(map[string]any, len(target)+len(m))
			for k, v := range target {
				merged[k] = v
			}
			for k, v := range m {
				if k != "$ref" {
					merged[k] = v
				}
			}
			return sc.conv(merged, depth+1)
		}
	}
	types, nullable := schemaTypes(m["type"])
	if len(types) > 1 {
		return sc.typeUnion(m, types, nullable, depth)
	}
	out := map[string]any{}
	if len(types) == 1 {
		out["type"] = types[0]
	}
	sc.copyKeywords(m, out, depth)
	if nullable {
		out["nullable"] = true
	}
	sc.applyUnions(m, out, depth)
	if _, ok := out["type"]; !ok {
		inferType(out)
	}
	return out
}

// resolve finds the schema a local $ref points to.
func (sc *schemaConv) resolve(ref string) (map[string]any, bool) {
	if ref == "#" {
		return sc.root, true
	}
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
			t, ok := sc.defs[name].(map[string]any)
			return t, ok
		}
	}
	return nil, false
}

// schemaTypes returns the Gemini type names of a `type` keyword, without
// "null", and whether "null" was among them.
func schemaTypes(t any) (types []string, nullable bool) {
	var names []string
	switch v := t.(type) {
	case string:
		names = []string{v}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	}
	for _, n := range names {
		switch strings.ToLower(n) {
		case "null":
			nullable = true
		case "string", "number", "integer", "boolean", "array", "object":
			types = append(types, strings.ToUpper(n))
		}
	}
	return types, nullable
}

// typeUnion turns `type: [a, b]` into anyOf with one member per type.
func (sc *schemaConv) typeUnion(m map[string]any, types []string, nullable bool, depth int) map[string]any {
	variants := make([]any, 0, len(types))
	for _, t := range types {
		one := make(map[string]any, len(m))
		for k, v := range m {
			one[k] = v
		}
		one["type"] = strings.ToLower(t)
		delete(one, "description")
		variants = append(variants, sc.conv(one, depth+1))
	}
	out := map[string]any{"anyOf": variants}
	if d, ok := m["description"].(string); ok && d != "" {
		out["description"] = d
	}
	if nullable {
		out["nullable"] = true
	}
	return out
}

// copyKeywords copies the keywords Gemini supports for the node's type.
func (sc *schemaConv) copyKeywords(m, out map[string]any, depth int) {
	if d, ok := m["description"].(string); ok && d != "" {
		out["description"] = d
	}
	if n, ok := m["nullable"].(bool); ok && n {
		out["nullable"] = true
	}
	for _, k := range []string{"default", "example", "minimum", "maximum", "minLength", "maxLength", "pattern",
		"minItems", "maxItems", "minProperties", "maxProperties"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	if f, ok := m["format"].(string); ok && formatSupported(f) {
		out["format"] = f
	}
	copyEnum(m, out)
	if items, ok := m["items"]; ok {
		if list, ok := items.([]any); ok && len(list) > 0 {
			items = list[0] // tuple form: Gemini has no tuples
		}
		if it := sc.conv(items, depth+1); it != nil {
			out["items"] = it
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		sc.copyProperties(m, props, out, depth)
	}
}

// copyProperties converts properties, required and propertyOrdering.
func (sc *schemaConv) copyProperties(m, props, out map[string]any, depth int) {
	conv := make(map[string]any, len(props))
	for name, p := range props {
		c := sc.conv(p, depth+1)
		if c == nil {
			c = map[string]any{}
		}
		conv[name] = c
	}
	out["properties"] = conv
	if req, ok := m["required"].([]any); ok {
		var keep []any
		for _, r := range req {
			if s, ok := r.(string); ok {
				if _, declared := conv[s]; declared {
					keep = append(keep, s)
				}
			}
		}
		if len(keep) > 0 {
			out["required"] = keep
		}
	}
	if po, ok := m["propertyOrdering"].([]any); ok {
		out["propertyOrdering"] = po
	}
}

// copyEnum keeps string enums (and a string const) and describes the others.
func copyEnum(m, out map[string]any) {
	var values []any
	if c, ok := m["const"]; ok {
		values = []any{c}
	}
	if e, ok := m["enum"].([]any); ok {
		values = e
	}
	if len(values) == 0 {
		return
	}
	allStrings := true
	for _, v := range values {
		if _, ok := v.(string); !ok {
			allStrings = false
			break
		}
	}
	if allStrings {
		if t, ok := out["type"]; !ok || t == "STRING" {
			out["enum"] = values
			out["type"] = "STRING"
			return
		}
	}
	parts := make([]string, 0, len(values))
	for _, v := range values {
		b, _ := json.Marshal(v)
		parts = append(parts, string(b))
	}
	note := "Allowed values: " + strings.Join(parts, ", ") + "."
	if d, ok := out["description"].(string); ok && d != "" {
		note = d + " " + note
	}
	out["description"] = note
}

// applyUnions handles allOf (merged), anyOf and oneOf (anyOf; null members
// become nullable; a single remaining member is merged).
func (sc *schemaConv) applyUnions(m, out map[string]any, depth int) {
	if all, ok := m["allOf"].([]any); ok {
		for _, s := range all {
			mergeSchema(out, sc.conv(s, depth+1))
		}
	}
	var members []any
	for _, key := range []string{"anyOf", "oneOf"} {
		if list, ok := m[key].([]any); ok {
			members = append(members, list...)
		}
	}
	if len(members) == 0 {
		return
	}
	var conv []any
	for _, s := range members {
		if sm, ok := s.(map[string]any); ok {
			if t, _ := sm["type"].(string); t == "null" && len(sm) == 1 {
				out["nullable"] = true
				continue
			}
		}
		if c := sc.conv(s, depth+1); c != nil {
			conv = append(conv, c)
		}
	}
	switch len(conv) {
	case 0:
	case 1:
		mergeSchema(out, conv[0].(map[string]any))
	default:
		out["anyOf"] = conv
	}
}

// mergeSchema merges src into dst: properties and required are united, other
// keywords are kept from dst when both have them.
func mergeSchema(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			dp, _ := dst["properties"].(map[string]any)
			if dp == nil {
				dp = map[string]any{}
			}
			for name, p := range v.(map[string]any) {
				if _, ok := dp[name]; !ok {
					dp[name] = p
				}
			}
			dst["properties"] = dp
		case "required":
			dst["required"] = unionStrings(dst["required"], v)
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

func unionStrings(a, b any) []any {
	seen := map[string]bool{}
	var out []string
	for _, list := range []any{a, b} {
		l, _ := list.([]any)
		for _, x := range l {
			if s, ok := x.(string); ok && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	res := make([]any, len(out))
	for i, s := range out {
		res[i] = s
	}
	return res
}

// inferType sets the type of a node that has none from its keywords.
func inferType(out map[string]any) {
	switch {
	case out["properties"] != nil:
		out["type"] = "OBJECT"
	case out["items"] != nil:
		out["type"] = "ARRAY"
	case out["enum"] != nil:
		out["type"] = "STRING"
	}
}

// formatSupported reports whether Gemini accepts format f.
func formatSupported(f string) bool {
	switch f {
	case "enum", "date-time", "float", "double", "int32", "int64":
		return true
	}
	return false
}
