package permission

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ClaudeBase is what ClaudeRule needs to place the paths of Claude Code
// file rules: Root, the workspace (absolute, OS form), which aidex path
// patterns are relative to; Dir, the directory a "/path" pattern is
// relative to (the settings file's project root; "" means Root); and
// Home, the user's home directory for "~/path" ("" leaves such rules
// untranslatable).
type ClaudeBase struct {
	Root string
	Dir  string
	Home string
}

// ClaudeTranslation is the aidex form of one Claude Code rule: Rules,
// each with the requested action and source (none when nothing aidex has
// corresponds to an allow rule), and Warning, a sentence naming the rule
// when the translation is not exact ("" when it is). An untranslatable
// deny or ask rule covers the whole tool rather than nothing.
type ClaudeTranslation struct {
	Rules   []Rule
	Warning string
}

// ErrClaudeRule wraps the errors of ClaudeRule: a rule that is not
// TOOL or TOOL(PATTERN) at all.
var ErrClaudeRule = errors.New("invalid Claude Code permission rule")

// claudeTarget is what a Claude Code tool name stands for in aidex: the
// aidex tools its rules name, and how its pattern reads.
type claudeTarget struct {
	tools []string
	// form is "command" (Bash: a command prefix rule), "path" (file
	// tools: gitignore-style paths), "domain" (WebFetch: domain:HOST),
	// "" (the pattern has no aidex form: the whole tool).
	form string
}

// claudeTargetFor maps a Claude Code tool name (Bash, Read, Edit, ...) to
// aidex's tools (a switch: nothing is built at package init). Read rules
// also cover Grep, Glob and LS, and Edit rules every file-changing tool
// (edit_file and write_file are the covers of aidex's other file tools),
// as in Claude Code.
func claudeTargetFor(name string) (claudeTarget, bool) {
	switch name {
	case "Bash":
		return claudeTarget{tools: []string{CommandTool}, form: "command"}, true
	case "Read":
		return claudeTarget{tools: []string{"read_file", "list_directory", "search_files", "grep"}, form: "path"}, true
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return claudeTarget{tools: []string{"edit_file", "write_file"}, form: "path"}, true
	case "Glob":
		return claudeTarget{tools: []string{"search_files"}, form: "path"}, true
	case "Grep":
		return claudeTarget{tools: []string{"grep"}, form: "path"}, true
	case "LS":
		return claudeTarget{tools: []string{"list_directory"}, form: "path"}, true
	case "WebFetch":
		return claudeTarget{tools: []string{"web_fetch"}, form: "domain"}, true
	case "Task", "Agent":
		return claudeTarget{tools: []string{"task"}}, true
	case "TodoWrite":
		return claudeTarget{tools: []string{"todo_write"}}, true
	case "BashOutput":
		return claudeTarget{tools: []string{"get_background_output"}}, true
	case "KillShell", "KillBash":
		return claudeTarget{tools: []string{"kill_background_process"}}, true
	case "Skill":
		return claudeTarget{tools: []string{"skill"}}, true
	}
	return claudeTarget{}, false
}

// ClaudeRule translates spec, one permission rule in Claude Code's syntax
// (as in --allowedTools, --disallowedTools and the permissions lists of
// .claude/settings.json), into aidex rules with action and source:
//
//   - Bash, Bash(npm run build), Bash(git diff:*), Bash(git diff *) →
//     run_command rules (a command prefix: every simple command of a line
//     is judged);
//   - Read(PATH), Edit(PATH), Write, MultiEdit, NotebookEdit, Glob, Grep,
//     LS → the file tools with the path as a workspace-relative glob:
//     "//abs" is absolute, "~/p" under base.Home, "/p" under base.Dir,
//     "./p" and "p" under the workspace; Read also covers grep,
//     search_files and list_directory, Edit every file-changing tool;
//   - WebFetch(domain:HOST) → web_fetch of http and https URLs of HOST on
//     any port;
//   - mcp__server → mcp__server__*; mcp__server__tool stays as it is;
//   - Task, TodoWrite, BashOutput, KillShell, Skill → task, todo_write,
//     get_background_output, kill_background_process, skill;
//   - a rule in aidex's own syntax (a lower-case tool name:
//     run_command(go test *)) is parsed as such.
//
// A rule aidex cannot translate exactly gets a Warning naming it: an
// allow rule is then left out (or narrowed), a deny or ask rule covers the
// whole tool (or is widened), never nothing; a Claude tool aidex has no
// equivalent of (WebSearch, ExitPlanMode) translates to no rule. Errors
// (wrapping ErrClaudeRule): an empty rule, unbalanced parentheses, an
// action that is not Allow, Ask or Deny.
func ClaudeRule(spec string, action Decision, source string, base ClaudeBase) (ClaudeTranslation, error) {
	if action < Allow || action > Deny {
		return ClaudeTranslation{}, fmt.Errorf("%w %q: invalid action %d", ErrClaudeRule, spec, action)
	}
	name, pattern, hasPattern, err := splitClaudeRule(spec)
	if err != nil {
		return ClaudeTranslation{}, err
	}
	t := &claudeTranslation{spec: spec, action: action, source: source}
	switch {
	case strings.HasPrefix(name, "mcp__"):
		err = t.mcp(name, hasPattern)
	case name[0] >= 'a' && name[0] <= 'z':
		err = t.native()
	default:
		err = t.tool(name, pattern, hasPattern, base)
	}
	if err != nil {
		return ClaudeTranslation{}, err
	}
	return t.out, nil
}

// claudeTranslation builds the translation of one rule.
type claudeTranslation struct {
	spec   string
	action Decision
	source string
	out    ClaudeTranslation
}

func (t *claudeTranslation) add(tool, pattern string) error {
	r, err := ParseRule(ruleText(tool, pattern))
	if err != nil {
		return fmt.Errorf("%w %q: %v", ErrClaudeRule, t.spec, err)
	}
	r.Action, r.Source = t.action, t.source
	t.out.Rules = append(t.out.Rules, r)
	return nil
}

func (t *claudeTranslation) warn(format string, args ...any) {
	t.out.Warning = fmt.Sprintf("Claude Code rule %q: ", strings.TrimSpace(t.spec)) + fmt.Sprintf(format, args...)
}

// mcp translates mcp__server (a whole server) and mcp__server__tool.
func (t *claudeTranslation) mcp(name string, hasPattern bool) error {
	tool := strings.ToLower(name)
	if strings.Count(tool, "__") == 1 && !strings.HasSuffix(tool, "__") {
		tool += "__*"
	}
	if hasPattern {
		if t.action == Allow {
			t.warn("MCP tool rules take no pattern in aidex; the rule is left out")
			return nil
		}
		t.warn("MCP tool rules take no pattern in aidex; it applies to every call of %s", tool)
	}
	return t.add(tool, "")
}

// native parses a rule in aidex's own syntax.
func (t *claudeTranslation) native() error {
	r, err := ParseRule(t.spec)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrClaudeRule, err)
	}
	return t.add(r.Tool, r.Pattern)
}

// tool translates a rule of a Claude Code tool (Bash, Read, Edit, ...).
func (t *claudeTranslation) tool(name, pattern string, hasPattern bool, base ClaudeBase) error {
	target, ok := claudeTargetFor(name)
	if !ok {
		t.warn("aidex has no tool like %s; the rule has no effect", name)
		return nil
	}
	pats := []string{""}
	if hasPattern && pattern != "*" {
		var why string
		pats, why = claudePatterns(target.form, pattern, base)
		switch {
		case why != "" && t.action == Allow:
			t.warn("%s; the rule is left out", why)
			return nil
		case why != "":
			t.warn("%s; it applies to every call of %s", why, strings.Join(target.tools, ", "))
			pats = []string{""}
		case target.form == "path" && rootOnly(pattern):
			t.warn("a pattern without a \"/\" inside matches %s at any depth in aidex, not only at the top of the workspace", strings.TrimPrefix(pattern, "./"))
		}
	}
	for _, tool := range target.tools {
		for _, p := range pats {
			if err := t.add(tool, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// rootOnly reports whether a Claude path pattern names a file or
// directory at the top of the workspace only ("./name"), which aidex's
// slash-less patterns cannot say.
func rootOnly(pattern string) bool {
	rest, ok := strings.CutPrefix(pattern, "./")
	return ok && !strings.Contains(strings.TrimSuffix(rest, "/"), "/")
}

func ruleText(tool, pattern string) string {
	if pattern == "" {
		return tool
	}
	return tool + "(" + pattern + ")"
}

// splitClaudeRule splits "Tool" or "Tool(pattern)".
func splitClaudeRule(spec string) (name, pattern string, hasPattern bool, err error) {
	s := strings.TrimSpace(spec)
	bad := func(why string) (string, string, bool, error) {
		return "", "", false, fmt.Errorf("%w %q: %s; write Tool or Tool(pattern), e.g. Bash(git diff:*), Edit(src/**) or mcp__github__get_issue", ErrClaudeRule, spec, why)
	}
	if s == "" {
		return bad("empty rule")
	}
	if strings.ContainsRune(s, 0) {
		return bad("contains a NUL byte")
	}
	i := strings.IndexByte(s, '(')
	if i < 0 {
		if strings.ContainsAny(s, ") \t") {
			return bad("unbalanced parenthesis or space in the tool name")
		}
		return s, "", false, nil
	}
	if !strings.HasSuffix(s, ")") {
		return bad("missing closing parenthesis")
	}
	name, pattern = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:len(s)-1])
	if name == "" || strings.ContainsAny(name, " \t") {
		return bad("missing tool name")
	}
	if pattern == "" {
		return name, "", false, nil // Claude reads Tool() as Tool
	}
	return name, pattern, true, nil
}

// claudePatterns returns the aidex patterns of a Claude pattern of form,
// or why it has none.
func claudePatterns(form, pattern string, base ClaudeBase) ([]string, string) {
	switch form {
	case "command":
		return []string{pattern}, "" // ParseRule maps the ":*" prefix form
	case "domain":
		host, ok := strings.CutPrefix(pattern, "domain:")
		host = strings.ToLower(strings.TrimSpace(host))
		if !ok || host == "" || strings.ContainsAny(host, "/:?#@ ") {
			return nil, "aidex reads WebFetch patterns only as domain:HOST"
		}
		return []string{"https://" + host + "/*", "http://" + host + "/*", "https://" + host + ":*/*", "http://" + host + ":*/*"}, ""
	case "path":
		p, why := claudePath(pattern, base)
		if why != "" {
			return nil, why
		}
		if strings.HasSuffix(p, "/") {
			p += "**" // a directory: everything in it, as in gitignore
		}
		return []string{p}, ""
	}
	return nil, "aidex has no pattern for this tool"
}

// claudePath turns a gitignore-style path pattern of Claude Code into an
// aidex path pattern: workspace-relative with "/" separators, or absolute
// outside the workspace.
func claudePath(p string, base ClaudeBase) (string, string) {
	var abs string
	switch {
	case strings.HasPrefix(p, "//"):
		abs = p[1:]
	case p == "~" || strings.HasPrefix(p, "~/"):
		if base.Home == "" {
			return "", "the home directory is not known"
		}
		abs = filepath.ToSlash(base.Home) + strings.TrimPrefix(p, "~")
	case strings.HasPrefix(p, "/"):
		dir := base.Dir
		if dir == "" {
			dir = base.Root
		}
		if dir == "" {
			return "", "the directory it is relative to is not known"
		}
		abs = strings.TrimSuffix(filepath.ToSlash(dir), "/") + p
	default:
		rel := strings.TrimPrefix(p, "./")
		if rel == "" || rel == "." {
			return "**", ""
		}
		return rel, ""
	}
	if strings.Contains(abs, "$") {
		return "", "aidex does not expand variables in paths"
	}
	root := strings.TrimSuffix(filepath.ToSlash(base.Root), "/")
	switch {
	case root != "" && abs == root:
		return "**", ""
	case root != "" && strings.HasPrefix(abs, root+"/"):
		return strings.TrimPrefix(abs, root+"/"), ""
	}
	return abs, ""
}
