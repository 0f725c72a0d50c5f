// Package protect is the one table of the project files that aidex, or
// an agent it is compatible with, loads as configuration or runs later:
// writing one always asks the user (every permission mode, yolo
// included), and a sandboxed command can neither create nor change one,
// whether it exists or not. The permission policy and the sandbox both
// read it; the git dir's own entries are gitdir.Entries.
package protect

import "strings"

// Path is one protected name in a project folder.
type Path struct {
	// Name is the file or folder name (one path component).
	Name string
	// Dir reports a folder: everything beneath it is protected too.
	Dir bool
	// Why says in a few words who loads or runs it.
	Why string
}

// Project is the table.
var Project = [...]Path{
	{Name: ".git", Dir: true, Why: "the git dir: git runs hooks and programs its config names"},
	{Name: ".aidex", Dir: true, Why: "aidex's project config, commands and hooks"},
	{Name: ".mcp.json", Why: "the MCP servers aidex and Claude Code start"},
	{Name: ".claude", Dir: true, Why: "Claude Code's settings, commands, agents, skills and hooks"},
	{Name: ".codex", Dir: true, Why: "Codex's project config"},
	{Name: ".gemini", Dir: true, Why: "Gemini CLI's settings and commands"},
	{Name: ".cursor", Dir: true, Why: "Cursor's rules and MCP servers"},
	{Name: ".vscode", Dir: true, Why: "VS Code's tasks and launch configs, which run programs"},
	{Name: ".envrc", Why: "direnv runs it when a shell enters the folder"},
}

// Lookup returns the entry a path component names: compared without
// case, with trailing dots and spaces ignored (Windows drops them) and
// the NTFS short name GIT~1 read as .git.
func Lookup(component string) (Path, bool) {
	norm := normalize(component)
	for _, p := range Project {
		if strings.EqualFold(norm, p.Name) {
			return p, true
		}
	}
	return Path{}, false
}

func normalize(c string) string {
	if strings.EqualFold(c, "git~1") {
		return ".git"
	}
	if strings.HasPrefix(c, ".") {
		return "." + strings.TrimRight(c[1:], ". ")
	}
	return strings.TrimRight(c, ". ")
}
