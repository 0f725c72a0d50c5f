package protect

import "testing"

func TestLookup(t *testing.T) {
	for c, want := range map[string]bool{
		".git": true, ".GIT": true, "git~1": true, ".git.": true, ".git ": true, ".mcp.json": true, ".MCP.JSON": true,
		".envrc": true, ".vscode": true, ".claude": true, ".cursor": true, ".gemini": true, ".codex": true, ".aidex": true,
		"git": false, ".gitignore": false, "mcp.json": false, ".env": false, "vscode": false, ".": false, "..": false,
	} {
		if _, got := Lookup(c); got != want {
			t.Errorf("Lookup(%q) = %v, want %v", c, got, want)
		}
	}
}
