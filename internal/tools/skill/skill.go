// Package skill is the skill tool: {name} returns a skill's instructions
// (the body of its SKILL.md) and lists the files of its folder; {name,
// file} returns one of those files (text, at most 256 KB, inside the
// skill's folder). It reads the skills it was built with (see
// internal/skills): a skill folder outside the workspace is read through
// this tool only, never through read_file, so the workspace confinement
// of the other tools stays as it is. Kind read, aidex's bookkeeping (no
// approval needed).
package skill

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/skills"
	"github.com/zelvior/aidex/internal/tools"
)

// Name is the tool's name.
const Name = "skill"

type args struct {
	Name string `json:"name" jsonschema:"The skill's name, as listed under Skills in the system prompt"`
	File string `json:"file,omitempty" jsonschema:"A file of the skill's folder to read (a path the skill listed), instead of the skill itself"`
}

// Def returns the skill tool over list (the skills discovered for the
// session).
func Def(list []skills.Skill) tools.Def {
	return tools.Define(tools.Spec{Name: Name, Kind: kind.Read, Standard: true, Bookkeeping: true, Aliases: []string{"load_skill", "use_skill"},
		Description: "Load a skill (instructions for a kind of task, listed under Skills in the system prompt) by name: returns its instructions and the files of its folder; with file, returns one of those files."},
		func(_ context.Context, _ *tools.Env, a args) tools.Result {
			s, ok := skills.Find(list, strings.TrimSpace(a.Name))
			if !ok {
				names := make([]string, len(list))
				for i, s := range list {
					names[i] = s.Name
				}
				return tools.Failf(tools.CategoryNotFound, "no skill %q; the skills are: %s", a.Name, strings.Join(names, ", "))
			}
			if a.File == "" {
				return tools.Success(s.Load(), nil)
			}
			text, err := s.ReadFile(a.File)
			if err != nil {
				cat := tools.CategoryNotFound
				if strings.Contains(err.Error(), "outside") || strings.Contains(err.Error(), "relative to") {
					cat = tools.CategorySecurity
				}
				return tools.Failf(cat, "%v", err)
			}
			return tools.Success(text, nil)
		})
}
