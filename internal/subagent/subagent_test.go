package subagent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseClaudeAgentFile(t *testing.T) {
	d, err := Parse("/p/reviewer.md", []byte("---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob, Bash, WebSearch\nmodel: inherit\n---\nYou are a strict reviewer.\n"))
	require.NoError(t, err)
	require.Equal(t, "reviewer", d.Name)
	require.Equal(t, "Reviews code", d.Description)
	require.Equal(t, []string{"read_file", "grep", "search_files", "run_command"}, d.Tools)
	require.Equal(t, []string{"WebSearch"}, d.Unknown)
	require.Equal(t, "", d.Model)
	require.Equal(t, "You are a strict reviewer.", d.Prompt)
}

func TestParseToolsListAndDefaults(t *testing.T) {
	d, err := Parse("/p/fixer.md", []byte("---\ndescription: x\ntools:\n  - Edit\n  - MultiEdit\n  - read_file\nmodel: sonnet\n---\nbody"))
	require.NoError(t, err)
	require.Equal(t, "fixer", d.Name, "the name defaults to the file name")
	require.Equal(t, []string{"edit_file", "read_file"}, d.Tools)
	require.Equal(t, "sonnet", d.Model)

	d, err = Parse("/p/all.md", []byte("---\ndescription: x\n---\nbody"))
	require.NoError(t, err)
	require.Nil(t, d.Tools, "no tools key: every tool of the parent")

	_, err = Parse("/p/bad.md", []byte("---\nname: Bad Name\n---\n"))
	require.ErrorContains(t, err, "lower-case")
	_, err = Parse("/p/bad.md", []byte("---\ntools: {a: 1}\n---\n"))
	require.ErrorContains(t, err, "tools")
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

	s := Load(Dirs{Workspace: ws, Trusted: false, Home: home})
	d, ok := s.Get("reviewer")
	require.True(t, ok)
	require.Equal(t, "user", d.Description, "an untrusted project's agents are not read")
	require.Len(t, s.Warnings, 1)
	require.Contains(t, s.Warnings[0], "broken.md")

	s = Load(Dirs{Workspace: ws, Trusted: true, Home: home})
	d, _ = s.Get("reviewer")
	require.Equal(t, "project", d.Description)
	require.Equal(t, []string{"explore", "general", "reviewer"}, s.Names())
	require.True(t, strings.HasSuffix(d.Source, filepath.Join(".claude", "agents", "reviewer.md")))
	e, _ := s.Get(Explore)
	require.True(t, e.ReadOnly)
}
