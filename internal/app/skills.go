package app

import (
	"github.com/zelvior/aidex/internal/claudecompat"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/skills"
	"github.com/zelvior/aidex/internal/slashcmd"
)

// skillPromptTokens caps the skills' section of the system prompt, in
// tokens (estimated).
const skillPromptTokens = 2000

// Skills returns the skills of the workspace and the user's folders (see
// internal/skills for the folders and their precedence), sorted by name,
// and the skills that could not be read (each error names its file).
func (rt ProjectContent) Skills() ([]skills.Skill, []error) {
	return rt.approvedSkills(rt.allSkills())
}

// SkillHonoured reports whether a skill's allowed-tools count: it comes
// from the user's own folders, an enabled plugin (whose skills with
// allowed-tools load only once approved) or a trusted project.
func (rt ProjectContent) SkillHonoured(s skills.Skill) bool {
	return s.Scope == slashcmd.ScopeUser || s.Scope == slashcmd.ScopePlugin || rt.Config.ProjectTrusted
}

// claudeOptions are what Claude rules' paths resolve against here.
func (rt ProjectContent) claudeOptions() claudecompat.Options {
	return claudecompat.Options{Home: rt.Config.Paths.Home, Workspace: rt.Workspace}
}

// skillRules returns the hook the skill tool's successful calls run: the
// loaded skill's allowed-tools become session rules of policy (when they
// count, see SkillHonoured). A bad rule is skipped.
func (rt *Runtime) skillRules(list []skills.Skill, policy *permission.Policy) func(name string) {
	return func(name string) {
		s, ok := skills.Find(list, name)
		if !ok || !rt.ProjectContent().SkillHonoured(s) {
			return
		}
		rules, _ := slashcmd.Rules(s.AllowedTools, rt.ProjectContent().claudeOptions())
		for _, r := range rules {
			_ = policy.AllowForSession(r)
		}
	}
}
