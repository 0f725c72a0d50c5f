package streamjson

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// EventReference returns the Markdown reference of the output events,
// generated from their JSON Schema (the Go type agent.Event): the fields
// any event may carry besides its payload, then a table with one row per
// event type, in the order of the type enum: the field that holds the
// payload (named after the type; text for text and reasoning) and every
// field of the payload with its JSON type, one level of nested objects
// spelled out, required fields in bold. It is the generated part of
// docs/headless.md (go generate ./internal/docgen). Errors: as Schemas.
func EventReference() (string, error) {
	out, err := outputSchema()
	if err != nil {
		return "", err
	}
	payload := map[string]bool{}
	var rows []string
	for _, t := range out.Properties["type"].Enum {
		typ := fmt.Sprint(t)
		field := typ
		if _, ok := out.Properties[typ]; !ok {
			field = "text"
		}
		payload[field] = true
		rows = append(rows, fmt.Sprintf("| `%s` | `%s` | %s |", typ, field, fieldList(out.Properties[field], true)))
	}
	var common []string
	for _, name := range propertyNames(out) {
		if !payload[name] || name == "text" {
			common = append(common, fmt.Sprintf("`%s` (%s)", name, typeName(out.Properties[name])))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Every event may carry %s; `type` and `session_id` are always set. ", strings.Join(common, ", "))
	b.WriteString("Fields in **bold** are always set in their payload.\n\n")
	b.WriteString("| type | payload field | its fields |\n|---|---|---|\n")
	b.WriteString(strings.Join(rows, "\n"))
	b.WriteString("\n")
	return b.String(), nil
}

// InputReference returns the Markdown reference of the input messages of
// --input-format stream-json, generated from their JSON Schema: one row
// per message type (in name order) with every field and its JSON type,
// one level of nested objects spelled out, required fields in bold. It
// is a generated part of docs/headless.md. Errors: as Schemas.
func InputReference() (string, error) {
	in, err := inputSchema()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| type | its fields |\n|---|---|\n")
	for _, m := range in.OneOf {
		fmt.Fprintf(&b, "| `%s` | %s |\n", m.Title, fieldList(m, true))
	}
	return b.String(), nil
}

// fieldList lists the properties of s as `name` (type), nested objects'
// own properties in parentheses when nest is set.
func fieldList(s *jsonschema.Schema, nest bool) string {
	if s != nil && len(s.Properties) == 0 && s.Items != nil && len(s.Items.Properties) > 0 && nest {
		return "array of objects: " + fieldList(s.Items, false)
	}
	if s == nil || len(s.Properties) == 0 {
		return typeName(s)
	}
	var parts []string
	for _, name := range propertyNames(s) {
		p := s.Properties[name]
		label := "`" + name + "`"
		if slices.Contains(s.Required, name) {
			label = "**" + label + "**"
		}
		inner := typeName(p)
		if len(p.Enum) > 0 {
			inner += ": " + enumList(p.Enum)
		} else if p.Const != nil {
			inner += fmt.Sprintf(": `%v`", *p.Const)
		}
		if elem := p.Items; elem != nil && len(elem.Properties) > 0 && nest {
			inner = "array of objects: " + fieldList(elem, false)
		} else if len(p.Properties) > 0 && nest {
			inner = "object: " + fieldList(p, false)
		}
		parts = append(parts, label+" ("+inner+")")
	}
	return strings.Join(parts, ", ")
}

// propertyNames returns the property names of s in their declaration
// order (PropertyOrder), then any others in name order.
func propertyNames(s *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(names, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// typeName is a schema's JSON type in words: "string", "array of
// string", "object", or "any" when the schema does not say.
func typeName(s *jsonschema.Schema) string {
	if s == nil {
		return "any"
	}
	types := slices.DeleteFunc(append([]string{s.Type}, s.Types...), func(t string) bool { return t == "" || t == "null" })
	if len(types) == 0 {
		return "any"
	}
	if types[0] == "array" && s.Items != nil {
		return "array of " + typeName(s.Items)
	}
	return strings.Join(types, " or ")
}

// enumList writes an enum's values as `a`, `b` or `c`.
func enumList(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = fmt.Sprintf("`%v`", v)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
