package app

import (
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// ToolAlias is a tool name of the Python AIdex that a profile does not
// offer but serves: by another tool (Runs, with the arguments rewritten),
// or as itself while the profile offers Cover, a tool that can do all it
// does. Permission rules name the tool that runs.
type ToolAlias struct {
	Name  string `json:"name"`
	Runs  string `json:"runs"`
	Cover string `json:"cover,omitempty"`
}

// ProfileAliases lists the seed tool names a profile ("" for the
// configured tools.profile with its enabled and disabled lists) serves
// without offering them, sorted by name. Errors: an unknown profile
// (wrapping ErrInvalidCall), a tool definition that does not build.
func (rt *Runtime) ProfileAliases(profile string) ([]ToolAlias, error) {
	prof := rt.Profile()
	if profile != "" {
		prof = tools.Profile{Name: profile}
	}
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		return nil, err
	}
	defer closeTools()
	if _, err := reg.Tools(prof); err != nil {
		return nil, invalidCall{err}
	}
	offered := func(n string) bool { return reg.Allowed(prof, n) }
	var out []ToolAlias
	for _, a := range tools.SeedAliases() {
		if _, ok := reg.Lookup(a.Name); !ok || offered(a.Name) {
			continue
		}
		switch {
		case a.Target != "" && offered(a.Target) && offered(a.Cover):
			out = append(out, ToolAlias{Name: a.Name, Runs: a.Target})
		case offered(a.Cover):
			out = append(out, ToolAlias{Name: a.Name, Runs: a.Name, Cover: a.Cover})
		}
	}
	return out, nil
}

// checkCovered is the policy's verdict on req, for a seed tool that runs
// under the cover of another tool (tools.Prepared.Cover, "" for none)
// also held against the rules of that tool: a deny or ask rule naming the
// cover (edit_file(secrets/*)) applies to what it covers (append_file),
// so a rule cannot be bypassed by calling a tool of another name. The
// mode's own default is the same for both (same kind and paths) and is
// not counted twice.
func checkCovered(p *permission.Policy, req permission.Request, cover string) permission.Verdict {
	v := p.Check(req)
	if cover == "" || v.Decision == permission.Deny {
		return v
	}
	creq := req
	creq.Tool = cover
	cv := p.Check(creq)
	if decisionRank(cv.Decision) > decisionRank(v.Decision) && !modeOnly(cv) {
		return cv
	}
	return v
}

// decisionRank orders decisions by strictness: allow < ask < deny.
func decisionRank(d permission.Decision) int {
	switch d {
	case permission.Allow:
		return 0
	case permission.Ask:
		return 1
	}
	return 2
}
