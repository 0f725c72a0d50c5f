package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
)

// ExternalPrefix starts the names of tools defined outside aidex (MCP servers' tools,
// mcp__SERVER__TOOL). Such names may hold upper-case letters and '-' (lookups fold case
// and read '-' as '_', as for every tool) and are at most MaxExternalName bytes.
const ExternalPrefix = "mcp__"

// MaxExternalName is the longest external tool name, in bytes (the shortest limit of the
// providers' tool-name rules).
const MaxExternalName = 64

// DefineRaw builds a Def whose parameters are described by a JSON Schema given as data
// (the input schema of an MCP server's tool) instead of a Go struct. Prepare parses the
// arguments as a JSON object, checks the schema's required properties and validates the
// object against the schema (a schema that cannot be resolved is offered as is and not
// validated: the server validates). run gets the canonical arguments (a JSON object).
func DefineRaw(spec Spec, schema json.RawMessage, run func(ctx context.Context, env *Env, args json.RawMessage) Result) Def {
	return Def{
		Spec:   spec,
		params: func() (*params, error) { return rawParams(schema) },
		run:    run,
	}
}

func rawParams(schema json.RawMessage) (*params, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, schema); err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	ps := &params{raw: true, schemaJSON: buf.Bytes(), props: map[string]*prop{}}
	var s jsonschema.Schema
	if err := json.Unmarshal(buf.Bytes(), &s); err == nil {
		if r, err := s.Resolve(nil); err == nil {
			ps.resolved = r
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			typ := s.Properties[n].Type
			if typ == "" {
				typ = strings.Join(s.Properties[n].Types, "|")
			}
			ps.props[n] = &prop{name: n, typ: typ}
			ps.order = append(ps.order, n)
		}
		for _, n := range s.Required {
			if p := ps.props[n]; p != nil {
				p.required = true
			}
		}
	}
	return ps, nil
}

// normalizeRaw checks the arguments of a DefineRaw tool: a JSON object, the required
// properties present, valid against the schema.
func (ps *params) normalizeRaw(tool string, raw json.RawMessage) (map[string]any, error) {
	fields, err := parseObject(raw)
	if err != nil {
		return nil, errorf(CategoryValidation, "invalid arguments for %s: %v. Send a JSON object like %s", tool, err, ps.example())
	}
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		if _, dup := out[f.key]; dup {
			return nil, errorf(CategoryValidation, "%s: parameter %q given twice; give it once", tool, f.key)
		}
		var v any
		if err := json.Unmarshal(f.val, &v); err != nil {
			return nil, errorf(CategoryValidation, "%s: parameter %q: %v", tool, f.key, err)
		}
		out[f.key] = v
	}
	for _, name := range ps.order {
		if _, ok := out[name]; !ok && ps.props[name].required {
			return nil, errorf(CategoryValidation, "%s: missing required parameter %q; accepted: %s", tool, name, ps.describe())
		}
	}
	if ps.resolved != nil {
		if err := ps.resolved.Validate(out); err != nil {
			return nil, errorf(CategoryValidation, "invalid arguments for %s: %v; accepted: %s", tool, err, ps.describe())
		}
	}
	return out, nil
}

// checkName checks a tool name: lower snake_case, or an external name (ExternalPrefix,
// letters, digits, '_' and '-', at most MaxExternalName bytes).
func checkName(name string) error {
	if strings.HasPrefix(name, ExternalPrefix) {
		if len(name) > MaxExternalName || strings.ContainsFunc(name, func(r rune) bool {
			return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			return fmt.Errorf("tool name %q must be letters, digits, '_' or '-' and at most %d bytes", name, MaxExternalName)
		}
		return nil
	}
	if name == "" || name != strings.ToLower(name) || strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '_' || unicode.IsLower(r) || unicode.IsDigit(r))
	}) {
		return fmt.Errorf("tool name %q must be lower snake_case", name)
	}
	return nil
}
