package subagent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseClaudeAgentFile(t *testing.T) {
	d, warns := Parse("/p/reviewer.md", []byte("---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob, Bash, WebSearch\nmodel: inherit\n---\nYou are a strict reviewer.\n"))
	require.Empty(t, warns)
	require.Equal(t, "reviewer", d.Name)
	require.Equal(t, "Reviews code", d.Description)
	require.Equal(t, []string{"read_file", "grep", "search_files", "run_command"}, d.Tools)
	require.Equal(t, []string{"WebSearch"}, d.Unknown)
	require.Equal(t, "", d.Model)
	require.Equal(t, "You are a strict reviewer.", d.Prompt)
}

func TestParseToolsListAndDefaults(t *testing.T) {
	d, warns := Parse("/p/fixer.md", []byte("---\ndescription: x\ntools:\n  - Edit\n  - MultiEdit\n  - read_file\nmodel: sonnet\n---\nbody"))
	require.Empty(t, warns)
	require.Equal(t, "fixer", d.Name, "the name defaults to the file name")
	require.Equal(t, []string{"edit_file", "read_file"}, d.Tools)
	require.Equal(t, "sonnet", d.Model)

	d, warns = Parse("/p/all.md", []byte("---\ndescription: x\n---\nbody"))
	require.Empty(t, warns)
	require.Nil(t, d.Tools, "no tools key: every tool of the parent")
}

// TestParseIsLiberal: what Claude Code reads loads, with one warning per
// problem naming file and line; nothing stops the file.
func TestParseIsLiberal(t *testing.T) {
	cases := []struct {
		name, in string
		check    func(t *testing.T, d Definition)
		warn     []string // one warning each, by its words
	}{
		{name: "a name that is no id: the file name", in: "---\nname: Bad Name\ndescription: d\n---\np",
			check: func(t *testing.T, d Definition) { require.Equal(t, "bad", d.Name) }, warn: []string{"/p/bad.md:2: agent name \"Bad Name\""}},
		{name: "unknown key", in: "---\ndescription: d\npermissionMode: plan\ncolor: red\nfrob: 1\n---\np",
			check: func(t *testing.T, d Definition) { require.Equal(t, "d", d.Description) }, warn: []string{"/p/bad.md:3: front matter key \"permissionMode\" of Claude Code is not supported", "/p/bad.md:5: unknown front matter key \"frob\""}},
		{name: "no description: the prompt's first line", in: "---\nname: x\n---\n# Checks things\nmore",
			check: func(t *testing.T, d Definition) { require.Equal(t, "Checks things", d.Description) }, warn: []string{"/p/bad.md: no description"}},
		{name: "never closed", in: "---\nname: x\n",
			check: func(t *testing.T, d Definition) { require.Equal(t, "bad", d.Name) }, warn: []string{"/p/bad.md:1: front matter opened", "no description"}},
		{name: "tools as a mapping", in: "---\ndescription: d\ntools: {a: 1}\n---\np",
			check: func(t *testing.T, d Definition) {
				require.Empty(t, d.Tools)
				require.Equal(t, []string{"{a: 1}"}, d.Unknown)
			}},
		{name: "disallowedTools", in: "---\ndescription: d\ntools: Read, Edit, Bash\ndisallowedTools: Write, Edit\n---\np",
			check: func(t *testing.T, d Definition) {
				require.Equal(t, []string{"read_file", "run_command"}, d.Tools)
				require.Contains(t, d.Disallowed, "write_file")
				require.Contains(t, d.Disallowed, "delete_file")
			}},
		{name: "escaped newlines in a description", in: "---\ndescription: a: b\\nc\n---\np",
			check: func(t *testing.T, d Definition) { require.Equal(t, "a: b\nc", d.Description) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, warns := Parse("/p/bad.md", []byte(c.in))
			c.check(t, d)
			require.Len(t, warns, len(c.warn), "%v", warns)
			for i, w := range c.warn {
				require.Contains(t, warns[i].Error(), w)
			}
		})
	}
}

func TestLoadHonoursTrustAndPrecedence(t *testing.T) {
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(filepath.Join(ws, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: project\n---\nP")
	write(filepath.Join(home, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: user\n---\nU")
	write(filepath.Join(home, ".claude", "agents", "broken.md"), "---\nname: x\n")
	write(filepath.Join(home, ".claude", "agents", "deep", "er", "nested.md"), "---\ndescription: nested\n---\nN")

	s := Load(Dirs{Workspace: ws, Trusted: false, Home: home})
	d, ok := s.Get("reviewer")
	require.True(t, ok)
	require.Equal(t, "user", d.Description, "an untrusted project's agents are not read")
	require.Len(t, s.Warnings, 2, "%v", s.Warnings)
	require.Contains(t, s.Warnings[0], "broken.md:1: front matter opened")
	require.Contains(t, s.Warnings[1], "broken.md: no description")
	n, ok := s.Get("nested")
	require.True(t, ok, "agents in subfolders are read")
	require.Equal(t, "nested", n.Description)

	s = Load(Dirs{Workspace: ws, Trusted: true, Home: home})
	d, _ = s.Get("reviewer")
	require.Equal(t, "project", d.Description)
	require.Equal(t, []string{"broken", "explore", "general", "nested", "reviewer"}, s.Names())
	require.True(t, strings.HasSuffix(d.Source, filepath.Join(".claude", "agents", "reviewer.md")))
	e, _ := s.Get(Explore)
	require.True(t, e.ReadOnly)
}

// FuzzParse: any agent file parses without a panic into a usable type:
// an id of lower-case letters, digits, '-' and '_', and no disallowed
// tool among its tools.
func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: d: e\ntools: Read, Edit\ndisallowedTools: Edit\n---\nbody"))
	f.Add([]byte("---\ndescription: x\n\n<example>\nuser: y\n</example>\nmodel: opus\n---\n"))
	f.Add([]byte("---\ntools:\n  - Bash\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, _ := Parse("/p/agent-x.md", data)
		if !validName(d.Name) {
			t.Fatalf("name %q", d.Name)
		}
		for _, tool := range d.Tools {
			if slices.Contains(d.Disallowed, tool) {
				t.Fatalf("%s is both allowed and disallowed", tool)
			}
		}
	})
}
