// Package claudecompat translates Claude Code's names into aidex's: its
// tool names (Bash, Read, Edit, ...) as agent files, commands and skills
// list them ([Tools], [ToolGroup]), and its permission rules
// (Bash(npm run test:*), Read(./secrets/**), WebFetch(domain:x),
// mcp__server__tool) as .claude/settings.json and allowed-tools write them
// ([Rule]). It is the one table of those names; the permission policy
// parses what it returns.
package claudecompat

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// toolPair is one row of the table of Claude Code's tool names: Claude's
// name, the aidex tool that does the same, and for the row that names
// aidex's tool back in Claude's terms (Back), the renames of its argument
// fields (aidex name, Claude name). A Claude name that is only an alias
// (MultiEdit, Agent, KillBash) has Back false.
type toolPair struct {
	claude, aidex string
	back          bool
	fields        [][2]string
}

// toolTable is the one table of Claude Code's tool names, read both ways:
// Claude → aidex by [Tools] (agent files, commands, rules), aidex →
// Claude by [ClaudeTool] (hook inputs, stream-json's Claude dialect).
// Only constants: it is laid out by the linker, nothing is built at
// package init.
var toolTable = [...]toolPair{
	{claude: "Bash", aidex: "run_command", back: true, fields: [][2]string{{"command", "command"}, {"timeout", "timeout"}}},
	{claude: "BashOutput", aidex: "get_background_output"},
	{claude: "KillShell", aidex: "kill_background_process"},
	{claude: "KillBash", aidex: "kill_background_process"},
	{claude: "Read", aidex: "read_file", back: true, fields: [][2]string{{"path", "file_path"}, {"offset", "offset"}, {"limit", "limit"}}},
	{claude: "NotebookRead", aidex: "read_file"},
	{claude: "Write", aidex: "write_file", back: true, fields: [][2]string{{"path", "file_path"}, {"content", "content"}}},
	{claude: "Edit", aidex: "edit_file", back: true, fields: [][2]string{{"path", "file_path"}, {"old_string", "old_string"},
		{"new_string", "new_string"}, {"replace_all", "replace_all"}}},
	{claude: "MultiEdit", aidex: "edit_file"},
	{claude: "NotebookEdit", aidex: "edit_file"},
	{claude: "Grep", aidex: "grep", back: true, fields: [][2]string{{"pattern", "pattern"}, {"path", "path"}, {"include", "glob"}}},
	{claude: "Glob", aidex: "search_files", back: true, fields: [][2]string{{"pattern", "pattern"}, {"path", "path"}}},
	{claude: "LS", aidex: "list_directory"},
	{claude: "WebFetch", aidex: "web_fetch", back: true, fields: [][2]string{{"url", "url"}}},
	{claude: "Task", aidex: "task", back: true, fields: [][2]string{{"description", "description"}, {"prompt", "prompt"},
		{"subagent_type", "subagent_type"}}},
	{claude: "Agent", aidex: "task"},
	{claude: "TodoWrite", aidex: "todo_write", back: true, fields: [][2]string{{"todos", "todos"}}},
	{claude: "AskUserQuestion", aidex: "ask_user"},
	{claude: "Skill", aidex: "skill"},
}

// primary maps a Claude Code tool name to the aidex tool that does the
// same ("" for none).
func primary(name string) string {
	for _, p := range toolTable {
		if p.claude == name {
			return p.aidex
		}
	}
	return ""
}

// ClaudeTool returns the Claude Code tool that aidex tool name is in a
// hook's input or a Claude stream: its Claude name and the renames of its
// argument fields (pairs of aidex name, Claude name; an argument not
// listed has no Claude field). ok is false for a tool Claude Code has no
// equivalent of in those places (aidex's own tools, MCP tools): they keep
// their name and arguments.
func ClaudeTool(name string) (claude string, fields [][2]string, ok bool) {
	for _, p := range toolTable {
		if p.back && p.aidex == name {
			return p.claude, p.fields, true
		}
	}
	return "", nil, false
}

// readTools are aidex's tools that read files: what Claude's Read rules
// cover (Claude applies them to every tool that reads files: Read, Grep,
// Glob, LS).
var readTools = []string{"read_file", "read_file_lines", "head_file", "tail_file", "grep", "grep_file",
	"search_files", "list_directory", "get_file_info", "count_lines"}

// editTools are aidex's tools that change files: what Claude's Edit
// rules cover (every tool that edits files: Edit, MultiEdit, Write,
// NotebookEdit).
var editTools = []string{"write_file", "edit_file", "append_file", "create_directory", "delete_file", "move_file",
	"copy_file", "patch_lines", "insert_line", "delete_line", "find_replace_in_files"}

// Tools returns the aidex tool for a tool name of an agent's tools list
// or a command's allowed-tools: a Claude Code name maps to aidex's (Read →
// read_file), an aidex name (lower case) and an MCP tool name
// (mcp__server__tool) stay as they are. ok is false for a Claude name
// aidex has no equivalent of (WebSearch).
func Tools(name string) (aidex string, ok bool) {
	name = strings.TrimSpace(name)
	if p := primary(name); p != "" {
		return p, true
	}
	if name == "" || (name[0] >= 'A' && name[0] <= 'Z') || !validName(name) {
		return "", false
	}
	return name, true
}

// validName reports whether name is a tool name aidex's rules read:
// letters, digits, '_', '-', '.', and '*' as a wildcard.
func validName(name string) bool {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == '*') {
			return false
		}
	}
	return name != ""
}

// ToolGroup returns every aidex tool a Claude Code tool name stands for
// where a rule or a disallowedTools list takes away what Claude's does:
// Read (and Grep, Glob, LS, NotebookRead) → every file-reading tool, Edit
// (and Write, MultiEdit, NotebookEdit) → every file-changing tool, others
// → their [Tools] equivalent. ok is false for a name aidex has no
// equivalent of.
func ToolGroup(name string) ([]string, bool) {
	switch strings.TrimSpace(name) {
	case "Read", "NotebookRead":
		return append([]string(nil), readTools...), true
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return append([]string(nil), editTools...), true
	}
	t, ok := Tools(name)
	if !ok {
		return nil, false
	}
	return []string{t}, true
}

// Translation is a Claude permission rule in aidex's terms.
//
// Rules are aidex rules ("TOOL" or "TOOL(PATTERN)") that together match
// what the Claude rule matches. Exact is false when aidex cannot say the
// same; Reason then tells why, and Whole holds the rules of every use of
// the tools involved (what a deny or ask rule that cannot be translated
// covers instead of nothing; empty when aidex has no such tool).
type Translation struct {
	Rules  []string
	Exact  bool
	Reason string
	Whole  []string
	// Malformed: the rule is not in Claude's syntax at all (a missing
	// parenthesis, no tool name, a NUL byte), not merely beyond aidex.
	Malformed bool
}

// Options are what a rule's paths resolve against: Home for "~/",
// Workspace for "/path" (Claude reads it relative to the settings file's
// project).
type Options struct {
	Home      string
	Workspace string
}

// Rule translates one Claude Code permission rule (the syntax of
// permissions.allow/ask/deny in .claude/settings.json):
//
//   - Bash, Bash(npm run test:*), Bash(git diff *): run_command with the
//     same pattern (aidex reads "cmd:*" as Claude does);
//   - Read(path), Edit(path), Write(path): every file-reading or
//     file-changing tool ([ToolGroup]) with a path pattern: "./x" and "x"
//     are relative to the workspace, "/x" to the project root, "//x" is
//     the absolute path /x, "~/x" is in Home;
//   - Grep, Glob, LS with or without a path: that tool;
//   - WebFetch(domain:example.com): web_fetch of http and https URLs on
//     that host;
//   - mcp__server (every tool of a server), mcp__server__tool,
//     mcp__server__*: MCP tools, as aidex names them;
//   - other Claude tools without a pattern: their aidex tool.
//
// Anything else (WebSearch, Task(type), a gitignore negation, an unknown
// tool) is not exact.
func Rule(rule string, o Options) Translation {
	rule = strings.TrimSpace(rule)
	name, pattern, hasPattern := rule, "", false
	if i := strings.IndexByte(rule, '('); i >= 0 && strings.HasSuffix(rule, ")") {
		name, pattern, hasPattern = strings.TrimSpace(rule[:i]), strings.TrimSpace(rule[i+1:len(rule)-1]), true
	}
	switch {
	case strings.Contains(name, "("):
		return Translation{Reason: "missing closing parenthesis", Malformed: true}
	case strings.Contains(name, ")"):
		return Translation{Reason: "unbalanced parenthesis", Malformed: true}
	case name == "":
		return Translation{Reason: "it names no tool", Malformed: true}
	case strings.ContainsRune(rule, 0):
		return Translation{Reason: "it holds a NUL byte", Malformed: true}
	case strings.HasPrefix(name, "mcp__"):
		if !validName(name) {
			return Translation{Reason: "it is not a tool name"}
		}
		if hasPattern {
			return inexact(name, "aidex's rules for MCP tools take no pattern")
		}
		return Translation{Rules: []string{mcpName(name)}, Exact: true}
	case hasPattern && pattern == "":
		return inexact(name, "its parentheses are empty")
	case !hasPattern:
		tools, ok := ToolGroup(name)
		if !ok {
			return inexact(name, fmt.Sprintf("aidex has no tool like Claude's %s", name))
		}
		return Translation{Rules: tools, Exact: true}
	}
	return withPattern(name, pattern, o)
}

// inexact is the Translation of a rule of tool name that aidex cannot
// say the same as, for why.
func inexact(name, why string) Translation {
	whole, _ := ToolGroup(name)
	if strings.HasPrefix(name, "mcp__") {
		whole = []string{mcpName(name)}
	}
	return Translation{Reason: why, Whole: whole}
}

// withPattern translates the rule name(pattern).
func withPattern(name, pattern string, o Options) Translation {
	switch name {
	case "Bash":
		if strings.ContainsAny(pattern, "()") {
			return inexact(name, "aidex's command patterns cannot hold parentheses")
		}
		return Translation{Rules: []string{"run_command(" + pattern + ")"}, Exact: true}
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "NotebookRead", "Grep", "Glob", "LS":
		p, why := pathPattern(pattern, o)
		if why != "" {
			return inexact(name, why)
		}
		tools, _ := ToolGroup(name)
		if name == "Grep" || name == "Glob" || name == "LS" {
			tools = []string{primary(name)}
		}
		out := make([]string, len(tools))
		for i, t := range tools {
			out[i] = t + "(" + p + ")"
		}
		return Translation{Rules: out, Exact: true}
	case "WebFetch":
		host, ok := strings.CutPrefix(pattern, "domain:")
		host = strings.ToLower(strings.TrimSpace(host))
		if !ok || !validHost(host) {
			return inexact(name, "aidex reads only WebFetch(domain:HOST) patterns")
		}
		return Translation{Rules: []string{"web_fetch(https://" + host + "/*)", "web_fetch(http://" + host + "/*)"}, Exact: true}
	}
	return inexact(name, fmt.Sprintf("aidex cannot match Claude's %s patterns", name))
}

// validHost reports whether host is an ASCII host name (letters,
// digits, '.', '-', and a ":PORT").
func validHost(host string) bool {
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':') {
			return false
		}
	}
	return host != "" && host[0] != '.' && host[0] != ':'
}

// mcpName is Claude's MCP rule name as aidex names it: mcp__server (all
// of a server's tools) → mcp__server__*.
func mcpName(name string) string {
	if strings.Count(name, "__") == 1 {
		return strings.TrimSuffix(name, "__") + "__*"
	}
	return name
}

// pathPattern turns a Claude path pattern (gitignore style) into aidex's
// (a doublestar glob of the workspace-relative path, or an absolute
// path). why is not "" when it cannot.
func pathPattern(p string, o Options) (out, why string) {
	switch {
	case strings.HasPrefix(p, "!"):
		return "", "aidex's path patterns have no negation"
	case strings.ContainsAny(p, "\\\x00"):
		return "", "the pattern holds a backslash or a NUL byte"
	case strings.HasPrefix(p, "//"):
		out = "/" + strings.TrimLeft(p, "/")
	case p == "~" || strings.HasPrefix(p, "~/"):
		if o.Home == "" {
			return "", "the home folder is not known"
		}
		out = filepath.ToSlash(o.Home) + strings.TrimPrefix(p, "~")
	case strings.HasPrefix(p, "~"):
		return "", "aidex cannot read another user's home folder (~user)"
	default:
		out = strings.TrimPrefix(p, "/") // "/x": from the project root
		for strings.HasPrefix(out, "./") {
			out = strings.TrimPrefix(out, "./")
		}
		if out == ".." || strings.HasPrefix(out, "../") {
			return "", "the pattern leaves the project folder"
		}
	}
	if out == "" || out == "." {
		out = "**"
	}
	if strings.HasSuffix(out, "/") {
		out += "**" // a folder: everything in it
	}
	if !doublestar.ValidatePattern(out) {
		return "", fmt.Sprintf("%q is not a glob aidex reads", p)
	}
	return out, ""
}
