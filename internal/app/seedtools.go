package app

import "github.com/zelvior/aidex/internal/tools"

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
