package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// seedRoute says how a tool name of the Python AIdex (the 34 seed tools)
// is served in a session that does not offer that tool itself.
//
// With rewrite set, the call becomes a call of the offered tool target
// (head_file → read_file with a line limit, git_status → run_command
// "git status"): the policy judges, and rules name, target. Without it,
// the seed tool runs as itself when the session offers cover, a tool of
// the same kind that can do all it does (append_file while edit_file is
// offered): the policy judges it by its own kind and paths, and the
// deny and ask rules of cover apply to it too (see Prepared.Cover).
type seedRoute struct {
	cover   string
	target  string
	rewrite func(args map[string]any) (map[string]any, error)
}

// seedRoutes is the table of the seed tools outside the standard profile.
func seedRoutes() map[string]seedRoute {
	self := func(cover string) seedRoute { return seedRoute{cover: cover} }
	return map[string]seedRoute{
		"read_file_lines": {cover: "read_file", target: "read_file", rewrite: readLinesArgs},
		"head_file":       {cover: "read_file", target: "read_file", rewrite: headArgs},
		"grep_file":       {cover: "grep", target: "grep", rewrite: keepArgs},

		"tail_file":       self("read_file"),
		"get_file_info":   self("read_file"),
		"count_lines":     self("read_file"),
		"disk_usage":      self("read_file"),
		"analyze_project": self("read_file"),
		"list_models":     self("read_file"),

		"append_file":           self("edit_file"),
		"patch_lines":           self("edit_file"),
		"insert_line":           self("edit_file"),
		"delete_line":           self("edit_file"),
		"find_replace_in_files": self("edit_file"),
		"create_directory":      self("write_file"),
		"delete_file":           self("write_file"),
		"move_file":             self("write_file"),
		"copy_file":             self("write_file"),
		"generate_image":        self("write_file"),

		"env_info": self("read_file"),
		"which":    self("read_file"),

		// Commands become run_command calls: the shell policy, its
		// read-only knowledge and the rules on run_command judge them.
		"run_python": shell(pythonArgs),
		"git_status": shell(gitArgs("status")),
		"git_diff":   shell(gitArgs("diff")),
		"git_log":    shell(gitArgs("log")),
		"git_add":    shell(gitArgs("add")),
		"git_commit": shell(gitArgs("commit")),
		// A repository is created by aidex's own git, outside the
		// sandbox (a sandboxed `git init` is reverted): git_init runs
		// as itself, judged as a file change.
		"git_init":     self("write_file"),
		"git_branch":   shell(gitArgs("branch")),
		"git_checkout": shell(gitArgs("checkout")),
	}
}

// shell routes a seed tool to run_command with the command line line
// builds from the seed tool's canonical arguments.
func shell(line func(m map[string]any) string) seedRoute {
	return seedRoute{cover: "run_command", target: "run_command", rewrite: func(m map[string]any) (map[string]any, error) {
		out := map[string]any{"command": line(m)}
		if t, ok := m["timeout"]; ok {
			out["timeout"] = t
		}
		return out, nil
	}}
}

// shellQuote wraps s in single quotes for a POSIX shell; a single quote in
// s is closed, escaped with a backslash and reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pythonArgs: run_python {code, timeout} → python3 -c CODE.
func pythonArgs(m map[string]any) string {
	code, _ := m["code"].(string)
	return "python3 -c " + shellQuote(code)
}

// gitArgs returns the command line of a git seed tool's arguments.
func gitArgs(sub string) func(m map[string]any) string {
	return func(m map[string]any) string {
		str := func(k string) string { v, _ := m[k].(string); return v }
		line := "git " + sub
		switch sub {
		case "diff":
			if b, _ := m["staged"].(bool); b {
				line += " --staged"
			}
		case "log":
			n, _ := m["max_count"].(float64)
			line += fmt.Sprintf(" --oneline -n %d", max(int(n), 1))
		case "add":
			line += " --"
			paths, _ := m["paths"].([]any)
			for _, p := range paths {
				ps, _ := p.(string)
				line += " " + shellQuote(ps)
			}
		case "commit":
			line += " -m " + shellQuote(str("message"))
		case "branch":
			if n := str("name"); n != "" {
				line += " " + shellQuote(n)
			}
		case "checkout":
			if b, _ := m["create"].(bool); b {
				line += " -b"
			}
			line += " " + shellQuote(str("ref"))
		}
		if p := str("path"); p != "" && (sub == "diff" || sub == "log") {
			line += " -- " + shellQuote(p)
		}
		return line
	}
}

// SeedAlias is one line of the seed-name table, as `aidex tools` shows it:
// the seed tool Name is served by Target (a rewritten call) or, when
// Target is "", runs as itself while Cover is offered.
type SeedAlias struct {
	Name   string `json:"name"`
	Target string `json:"target,omitempty"`
	Cover  string `json:"cover,omitempty"`
}

// SeedAliases returns the seed tools outside the standard profile and how
// each is served when its session does not offer it, sorted by name.
func SeedAliases() []SeedAlias {
	var out []SeedAlias
	for name, r := range seedRoutes() {
		out = append(out, SeedAlias{Name: name, Target: r.target, Cover: r.cover})
	}
	slices.SortFunc(out, func(a, b SeedAlias) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	return out
}

// PrepareOffered is Prepare for a session that offers only some tools
// (offered reports whether it offers a canonical tool name). A call of a
// seed tool the session does not offer is served by its route: rewritten
// into a call of the offered target, or run as itself under an offered
// cover (see SeedAliases); Prepared.Seed then names the seed tool. The
// arguments are first validated as the seed tool's own, so its error
// messages and defaults apply. Whether the result is offered is the
// caller's check (Prepared.Offered).
func (r *Registry) PrepareOffered(offered func(name string) bool, name string, args json.RawMessage) (*Prepared, error) {
	d, ok := r.Lookup(name)
	if !ok || offered(d.Name) {
		return r.Prepare(name, args)
	}
	route, ok := seedRoutes()[d.Name]
	if !ok || !offered(route.cover) {
		return r.Prepare(name, args)
	}
	p, err := r.Prepare(d.Name, args)
	if err != nil {
		return nil, err
	}
	if route.target == "" || !offered(route.target) {
		p.Seed, p.Cover = d.Name, route.cover
		return p, nil
	}
	var m map[string]any
	if err := json.Unmarshal(p.Args, &m); err != nil {
		return nil, errorf(CategoryValidation, "invalid arguments for %s: %v", d.Name, err)
	}
	m, err = route.rewrite(m)
	if err != nil {
		return nil, errorf(CategoryValidation, "%s: %v", d.Name, err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, errorf(CategoryValidation, "invalid arguments for %s: %v", d.Name, err)
	}
	tp, err := r.Prepare(route.target, b)
	if err != nil {
		return nil, err
	}
	tp.Seed = d.Name
	return tp, nil
}

// Canonical returns the name of the tool that serves name in a session
// offering the tools offered accepts: the tool itself, the target an alias
// or seed route leads to, or "" when none is offered.
func (r *Registry) Canonical(offered func(name string) bool, name string) string {
	d, ok := r.Lookup(name)
	switch {
	case !ok:
		return ""
	case offered(d.Name):
		return d.Name
	}
	if route, ok := seedRoutes()[d.Name]; ok && route.target != "" && offered(route.cover) && offered(route.target) {
		return route.target
	}
	return ""
}

// Offered reports whether a session offering the tools offered accepts
// calls of p: its tool is offered, or a seed tool runs under an offered
// cover.
func (p *Prepared) Offered(offered func(name string) bool) bool {
	return offered(p.Def.Name) || (p.Cover != "" && offered(p.Cover))
}

func keepArgs(m map[string]any) (map[string]any, error) { return m, nil }

// headArgs: head_file {path, lines} → read_file {path, limit}.
func headArgs(m map[string]any) (map[string]any, error) {
	return map[string]any{"path": m["path"], "limit": m["lines"]}, nil
}

// readLinesArgs: read_file_lines {path, start_line, end_line} → read_file
// {path, offset, limit}.
func readLinesArgs(m map[string]any) (map[string]any, error) {
	start, _ := m["start_line"].(float64)
	end, _ := m["end_line"].(float64)
	if start < 1 || end < start {
		return nil, fmt.Errorf("start_line must be at least 1 and end_line at least start_line (got %v and %v)", start, end)
	}
	return map[string]any{"path": m["path"], "offset": start, "limit": end - start + 1}, nil
}
