package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/zelvior/aidex/internal/kind"
)

// Profile names: which tools the model is offered.
const (
	// ProfileStandard: tools whose Spec.Standard is set (file read/write/
	// edit, listing, search, commands, background processes).
	ProfileStandard = "standard"
	// ProfileFull: every registered tool.
	ProfileFull = "full"
	// ProfileReadonly: every tool of kind.Read.
	ProfileReadonly = "readonly"
)

// Profile selects tools: a named base set plus the config's enabled and
// disabled lists (tool names or aliases). Disabled wins over Enabled.
// The zero Profile is the standard profile.
type Profile struct {
	Name     string
	Enabled  []string
	Disabled []string
}

// ToolSchema is one tool as offered to the model: the name, description and
// JSON Schema of its parameters (provider clients wrap it in their own
// function/tool declaration shape).
type ToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// PathArg is one path-valued argument of a prepared call, as the model gave
// it (not yet resolved): the policy resolves it with the workspace.
type PathArg struct {
	Param string // parameter name, e.g. "path", "source"
	Value string
}

// Prepared is a tool call whose name and arguments were normalised and
// validated but which has not run yet.
type Prepared struct {
	// Def is the tool.
	Def Def
	// Args are the canonical arguments: aliases resolved, values coerced,
	// defaults applied (a JSON object).
	Args json.RawMessage
	// Paths are the path-valued arguments, in parameter order.
	Paths []PathArg
	// Seed is the seed tool name the model called when PrepareOffered
	// served it by another tool or under a cover ("" otherwise).
	Seed string
	// Cover is the offered tool under whose cover a seed tool the
	// session does not offer runs as itself ("" otherwise).
	Cover string
}

// Subject returns what the policy judges of the call besides its paths
// (Spec.Subject of its arguments): a command line, a URL, or "".
func (p *Prepared) Subject() string {
	if p.Def.Subject == nil {
		return ""
	}
	return p.Def.Subject(p.Args)
}

// PolicyPaths returns the paths the policy judges: the path arguments as
// the model gave them, or the workspace root (".") for a read or write
// tool that takes none (git_status, analyze_project), since it works on
// the workspace as a whole.
func (p *Prepared) PolicyPaths() []string {
	var paths []string
	for _, pa := range p.Paths {
		paths = append(paths, pa.Value)
	}
	if len(paths) == 0 && (p.Def.Kind == kind.Read || p.Def.Kind == kind.Write) {
		paths = []string{"."}
	}
	return paths
}

// Run runs the prepared call. A panic in the tool becomes an execution
// Result.
func (p *Prepared) Run(ctx context.Context, env *Env) Result {
	return p.Def.runSafe(ctx, env, p.Args)
}

// Registry holds tool definitions by canonical name. Register everything at
// start-up; afterwards it is safe for concurrent use.
type Registry struct {
	mu      sync.RWMutex
	defs    map[string]Def
	order   []string
	aliases map[string]string
}

// NewRegistry returns an empty registry with the built-in tool-name aliases
// (bash, shell, run_shell_command → run_command; read, view → read_file;
// replace_string → edit_file; list_files → list_directory; search_codebase
// → grep; glob → search_files; ...). An alias only works once its target
// is registered.
func NewRegistry() *Registry {
	r := &Registry{defs: map[string]Def{}, aliases: map[string]string{}}
	for target, names := range builtinAliases() {
		for _, n := range names {
			r.aliases[n] = target
		}
	}
	return r
}

func builtinAliases() map[string][]string {
	return map[string][]string{
		"run_command":      {"bash", "shell", "run_shell_command", "execute_command", "run_terminal_cmd", "exec", "run"},
		"read_file":        {"read", "view", "view_file", "open_file", "cat"},
		"write_file":       {"write", "create_file", "write_to_file"},
		"edit_file":        {"replace_string", "str_replace", "edit", "replace_in_file", "replace"},
		"list_directory":   {"list_files", "list_dir", "ls", "list", "get_project_structure"},
		"grep":             {"search_codebase", "search", "ripgrep", "rg", "search_text", "grep_search"},
		"search_files":     {"glob", "find_files", "file_search", "find"},
		"move_file":        {"move", "mv", "rename_file", "rename"},
		"copy_file":        {"copy", "cp"},
		"create_directory": {"mkdir", "make_directory", "create_dir"},
	}
}

// Register adds tools. It fails (adding none) when a name or alias is
// taken, a name is not lower snake_case or the kind is unknown. Schemas are
// built lazily (start-up stays cheap); Check builds them all.
func (r *Registry) Register(defs ...Def) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, d := range defs {
		if err := r.check(d, seen); err != nil {
			return err
		}
	}
	for _, d := range defs {
		key, _ := normalizeToolName(d.Name)
		r.defs[key] = d
		r.order = append(r.order, key)
		for _, a := range d.Aliases {
			r.aliases[strings.ToLower(a)] = d.Name
		}
	}
	return nil
}

func (r *Registry) check(d Def, seen map[string]bool) error {
	if d.run == nil || d.params == nil {
		return fmt.Errorf("tool %q: build the Def with tools.Define", d.Name)
	}
	if err := checkName(d.Name); err != nil {
		return err
	}
	key, _ := normalizeToolName(d.Name)
	if _, dup := r.defs[key]; dup || seen[key] {
		return fmt.Errorf("tool %q registered twice", d.Name)
	}
	seen[key] = true
	switch d.Kind {
	case kind.Read, kind.Write, kind.Exec, kind.Network, kind.Other:
	default:
		return fmt.Errorf("tool %q: unknown kind %q", d.Name, d.Kind)
	}
	for _, a := range d.Aliases {
		if t, ok := r.aliases[strings.ToLower(a)]; ok && t != d.Name {
			return fmt.Errorf("tool %q: alias %q already names %q", d.Name, a, t)
		}
	}
	return nil
}

// Check builds every registered tool's schema and reports the first
// parameter struct that cannot be turned into one (a programming error;
// the package tests run it over the built-in tools).
func (r *Registry) Check() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, n := range r.order {
		if _, err := r.defs[n].params(); err != nil {
			return fmt.Errorf("tool %q: %w", n, err)
		}
	}
	return nil
}

// Lookup returns the tool for name after normalisation: surrounding space
// and a "functions." prefix dropped, case folded ("Write_File"), '-' read
// as '_', aliases applied. Names with control characters never match.
func (r *Registry) Lookup(name string) (Def, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n, ok := normalizeToolName(name)
	if !ok {
		return Def{}, false
	}
	if d, ok := r.defs[n]; ok {
		return d, true
	}
	if t, ok := r.aliases[n]; ok {
		d, ok := r.defs[t]
		return d, ok
	}
	return Def{}, false
}

func normalizeToolName(name string) (string, bool) {
	if strings.ContainsFunc(name, unicode.IsControl) {
		return "", false
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 128 {
		return "", false
	}
	name = strings.TrimPrefix(name, "functions.")
	name = strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	return name, true
}

// Names returns the canonical names of all registered tools in
// registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, len(r.order))
	for i, k := range r.order {
		out[i] = r.defs[k].Name
	}
	return out
}

// Unregister removes the tools whose canonical names start with prefix (an MCP
// server's tools, "mcp__github__", before its refreshed list is registered). It
// returns how many it removed.
func (r *Registry) Unregister(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, _ := normalizeToolName(prefix)
	n := 0
	r.order = slices.DeleteFunc(r.order, func(k string) bool {
		if !strings.HasPrefix(k, p) {
			return false
		}
		for a, t := range r.aliases {
			if t == k {
				delete(r.aliases, a)
			}
		}
		delete(r.defs, k)
		n++
		return true
	})
	return n
}

// Tools returns the tools selected by p in registration order. It fails
// on an unknown profile name or an unknown tool in Enabled/Disabled (a
// config error, named in the message).
func (r *Registry) Tools(p Profile) ([]Def, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	in, err := r.selection(p)
	if err != nil {
		return nil, err
	}
	var out []Def
	for _, n := range r.order {
		if in[n] {
			out = append(out, r.defs[n])
		}
	}
	return out, nil
}

func (r *Registry) selection(p Profile) (map[string]bool, error) {
	in := map[string]bool{}
	for _, n := range r.order {
		d := r.defs[n]
		switch p.Name {
		case "", ProfileStandard:
			in[n] = d.Standard
		case ProfileFull:
			in[n] = true
		case ProfileReadonly:
			in[n] = d.Kind == kind.Read
		default:
			return nil, fmt.Errorf("unknown tool profile %q: use %q, %q or %q",
				p.Name, ProfileStandard, ProfileFull, ProfileReadonly)
		}
	}
	for _, list := range []struct {
		names []string
		val   bool
	}{{p.Enabled, true}, {p.Disabled, false}} {
		for _, name := range list.names {
			canon := r.canonicalLocked(name)
			if canon == "" {
				return nil, fmt.Errorf("unknown tool %q in the enabled/disabled tool list: known tools are %s",
					name, strings.Join(r.order, ", "))
			}
			in[canon] = list.val
		}
	}
	return in, nil
}

func (r *Registry) canonicalLocked(name string) string {
	n, ok := normalizeToolName(name)
	if !ok {
		return ""
	}
	if _, ok := r.defs[n]; ok {
		return n
	}
	if t, ok := r.aliases[n]; ok {
		if _, ok := r.defs[t]; ok {
			return t
		}
	}
	return ""
}

// Allowed reports whether the tool name (after normalisation) is in the
// profile. An invalid profile allows nothing.
func (r *Registry) Allowed(p Profile, name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	in, err := r.selection(p)
	if err != nil {
		return false
	}
	return in[r.canonicalLocked(name)]
}

// Schemas returns the schemas of the tools selected by p, in registration
// order; errors as for Tools.
func (r *Registry) Schemas(p Profile) ([]ToolSchema, error) {
	defs, err := r.Tools(p)
	if err != nil {
		return nil, err
	}
	out := make([]ToolSchema, 0, len(defs))
	for _, d := range defs {
		s, err := d.Schema()
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", d.Name, err)
		}
		out = append(out, ToolSchema{Name: d.Name, Description: d.Description, Parameters: s})
	}
	return out, nil
}

// Prepare normalises and validates a call without running it: the tool
// name is looked up (aliases, case), the arguments are parsed (malformed
// JSON, duplicate keys, unknown parameters, wrong types and missing
// required parameters are refused), aliased parameter names and "5"-style
// values normalised and defaults applied. The error is an *Error
// (CategoryValidation; turn it into a Result with ErrorResult). It does not
// check the profile (see Allowed) nor resolve paths.
func (r *Registry) Prepare(name string, args json.RawMessage) (*Prepared, error) {
	d, ok := r.Lookup(name)
	if !ok {
		return nil, errorf(CategoryValidation, "unknown tool %q: available tools are %s",
			TruncateName(name), strings.Join(r.Names(), ", "))
	}
	ps, err := d.params()
	if err != nil {
		return nil, errorf(CategoryExecution, "tool %s is misconfigured: %v", d.Name, err)
	}
	canon, err := ps.normalize(d.Name, args)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(canon)
	if err != nil {
		return nil, errorf(CategoryValidation, "invalid arguments for %s: %v", d.Name, err)
	}
	p := &Prepared{Def: d, Args: b}
	for _, pname := range ps.order {
		if !ps.props[pname].path {
			continue
		}
		switch v := canon[pname].(type) {
		case string:
			p.Paths = append(p.Paths, PathArg{Param: pname, Value: v})
		case []any:
			for _, e := range v {
				p.Paths = append(p.Paths, PathArg{Param: pname, Value: e.(string)})
			}
		}
	}
	if d.PathsIn != nil {
		for _, v := range d.PathsIn(b) {
			p.Paths = append(p.Paths, PathArg{Param: "path", Value: v})
		}
	}
	return p, nil
}

// TruncateName makes a name the model gave safe to quote in a message:
// control characters become '?' and it is cut to 64 bytes (at a rune
// boundary) followed by "...".
func TruncateName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
	if len(s) > 64 {
		s = CutUTF8(s, 64) + "..."
	}
	return s
}

// Call prepares and runs a tool call in one step (no permission check in
// between: for `aidex tool`, tests, and engines that checked already).
func (r *Registry) Call(ctx context.Context, env *Env, name string, args json.RawMessage) Result {
	p, err := r.Prepare(name, args)
	if err != nil {
		return ErrorResult(err)
	}
	return p.Run(ctx, env)
}
