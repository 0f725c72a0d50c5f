package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/zelvior/aidex/internal/kind"
)

// NoArgs is the parameter struct of tools that take no parameters (an
// empty JSON object).
type NoArgs struct{}

// Spec describes a tool to Define.
type Spec struct {
	// Name is the canonical tool name the model calls (snake_case).
	Name string
	// Description is sent to the model; keep it short (schema size counts
	// against the context window).
	Description string
	// Kind classifies the tool for the permission policy.
	Kind kind.Kind
	// Standard puts the tool in the "standard" profile.
	Standard bool
	// Aliases are extra names normalised to Name (lower case), on top of
	// the registry's built-in aliases.
	Aliases []string
	// DryRun is true for file-changing tools that write only through
	// [Env.Commit], so a run with Env.DryRun computes the change (a
	// unified diff in Meta.Diff) without writing it: approvals show that
	// diff, and --agent-writes dry-run runs them this way.
	DryRun bool
	// Shell is true for tools that run processes or manage the processes
	// a shell tool started: the web UI offers them only with
	// web_allow_shell_tools.
	Shell bool
	// Bookkeeping is true for aidex's own bookkeeping (the session's
	// background processes, memory and notes under .aidex/): the policy
	// allows it without asking by a built-in rule; confinement, protected
	// paths and deny rules still apply.
	Bookkeeping bool
	// Subject returns what the policy judges of a call besides its paths:
	// the command line of a shell tool, the URL of a network tool. args
	// are the canonical arguments (a JSON object). Nil for tools judged
	// by kind and paths only.
	Subject func(args json.RawMessage) string
	// PathsIn returns the paths a call names inside its arguments rather
	// than in path parameters (apply_patch's file headers), from the
	// canonical arguments; the policy judges them as it judges path
	// parameters. Nil for tools whose paths are all path parameters.
	PathsIn func(args json.RawMessage) []string
}

// ArgSubject returns a Spec.Subject that reads the string argument name
// from a call's arguments ("" when missing or not a string).
func ArgSubject(name string) func(json.RawMessage) string {
	return func(args json.RawMessage) string {
		var m map[string]json.RawMessage
		if json.Unmarshal(args, &m) != nil {
			return ""
		}
		var v string
		if json.Unmarshal(m[name], &v) != nil {
			return ""
		}
		return v
	}
}

// Def is a registered tool: its Spec, its parameter schema and its run
// function. Build one with Define; the zero Def is invalid.
type Def struct {
	Spec
	params func() (*params, error)
	run    func(ctx context.Context, env *Env, args json.RawMessage) Result
	// schema, when set (WithSchema), is the parameter schema sent to the
	// model, written at build time; params is then built only when a call
	// is validated.
	schema json.RawMessage
}

// Define builds a Def from a typed run function. P must be a struct type;
// its exported fields are the parameters:
//
//	type readArgs struct {
//		Path   string `json:"path" jsonschema:"File to read" tool:"path"`
//		Offset int    `json:"offset,omitempty" jsonschema:"First line (1-based)" default:"1"`
//	}
//
// `json` gives the name (omitempty/omitzero = optional, else required),
// `jsonschema` the description, `default` a JSON default applied before the
// call (and shown in the schema), and `tool:"path"` marks a path parameter
// (string or []string) that the policy must resolve. Only string, bool,
// integer, number and []string fields are supported. The schema is built on
// first use; a bad struct surfaces as an error from Registry.Register.
func Define[P any](spec Spec, fn func(ctx context.Context, env *Env, p P) Result) Def {
	return Def{
		Spec:   spec,
		params: sync.OnceValues(buildParams[P]),
		run: func(ctx context.Context, env *Env, args json.RawMessage) Result {
			var p P
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&p); err != nil {
				return Failf(CategoryValidation, "invalid arguments for %s: %v", spec.Name, err)
			}
			return fn(ctx, env, p)
		},
	}
}

// Schema returns the tool's parameter JSON Schema (compact JSON).
func (d Def) Schema() (json.RawMessage, error) {
	if d.schema != nil {
		return d.schema, nil
	}
	ps, err := d.params()
	if err != nil {
		return nil, err
	}
	return ps.schemaJSON, nil
}

// WithSchema returns d with schema (compact JSON) as the parameter schema
// Schema returns, instead of one built from the parameter struct by
// reflection on first use (~30 µs and ~25 KB a tool, at every start):
// for schemas generated at build time, as internal/tools/builtin's are,
// whose tests compare them with the built ones. A call's arguments are
// still checked against the struct (Registry.Prepare), built on the
// first call.
func (d Def) WithSchema(schema json.RawMessage) Def {
	d.schema = schema
	return d
}

// PathParams returns the names of the parameters that hold paths, in
// declaration order.
func (d Def) PathParams() []string {
	ps, err := d.params()
	if err != nil {
		return nil
	}
	var out []string
	for _, name := range ps.order {
		if ps.props[name].path {
			out = append(out, name)
		}
	}
	return out
}

// Params returns the accepted parameter names in declaration order.
func (d Def) Params() []string {
	ps, err := d.params()
	if err != nil {
		return nil
	}
	return slices.Clone(ps.order)
}

// runSafe calls the tool, turning a panic into a CategoryInternal Result
// (a bug in aidex: the engine aborts the turn with it).
func (d Def) runSafe(ctx context.Context, env *Env, args json.RawMessage) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Failf(CategoryInternal, "internal error in tool %s: %v (this is a bug in aidex)\n%s",
				d.Name, v, FirstLines(string(debug.Stack()), 12))
		}
	}()
	if ctx.Err() != nil {
		return Failf(CategoryExecution, "%s cancelled: %v", d.Name, ctx.Err())
	}
	return d.run(ctx, env, args)
}

// params is the parameter description derived from a struct type.
type params struct {
	// raw: the schema was given as data (DefineRaw), props only describe it.
	raw        bool
	schemaJSON json.RawMessage
	// schema is what schemaJSON was written from (nil for raw schemas).
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	// resolve resolves the schema of a Define'd tool on its first
	// validation (raw schemas set resolved at once): every start builds the
	// schemas sent to the model, few calls need them resolved (issue 21).
	resolve func() (*jsonschema.Resolved, error)
	props   map[string]*prop
	order   []string
}

type prop struct {
	name     string
	typ      string // JSON Schema type: string, integer, number, boolean, array
	path     bool
	required bool
	def      any // decoded default, nil when none
}

func buildParams[P any]() (*params, error) {
	t := reflect.TypeFor[P]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("tool parameters must be a struct, got %s", t)
	}
	s, err := jsonschema.For[P](nil)
	if err != nil {
		return nil, fmt.Errorf("schema for %s: %w", t, err)
	}
	ps := &params{props: map[string]*prop{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if err := ps.addField(f, s); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	ps.schema = s
	if ps.schemaJSON, err = marshalSchema(s); err != nil {
		return nil, fmt.Errorf("marshal schema for %s: %w", t, err)
	}
	ps.resolve = sync.OnceValues(func() (*jsonschema.Resolved, error) {
		r, err := s.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("resolve schema for %s: %w", t, err)
		}
		return r, nil
	})
	return ps, nil
}

func (ps *params) addField(f reflect.StructField, s *jsonschema.Schema) error {
	name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return nil
	}
	if name == "" {
		name = f.Name
	}
	ps2 := s.Properties[name]
	if ps2 == nil {
		return fmt.Errorf("no schema property %q", name)
	}
	if len(ps2.Types) == 2 && ps2.Types[0] == "null" { // pointers and slices
		ps2.Type, ps2.Types = ps2.Types[1], nil
	}
	p := &prop{name: name, typ: ps2.Type, path: f.Tag.Get("tool") == "path"}
	switch p.typ {
	case "string", "integer", "number", "boolean":
	case "array":
		if ps2.Items == nil || ps2.Items.Type != "string" {
			return fmt.Errorf("only []string arrays are supported")
		}
	default:
		return fmt.Errorf("unsupported parameter type %q", p.typ)
	}
	if p.path && p.typ != "string" && p.typ != "array" {
		return fmt.Errorf("path parameter must be string or []string")
	}
	p.required = !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero")
	if d, ok := f.Tag.Lookup("default"); ok {
		if err := json.Unmarshal([]byte(d), &p.def); err != nil {
			return fmt.Errorf("default tag %q is not JSON: %w", d, err)
		}
		ps2.Default = json.RawMessage(d)
	}
	ps.props[name] = p
	ps.order = append(ps.order, name)
	return nil
}
