package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestCustomCommandsInTableAndRun(t *testing.T) {
	f := newFixture(t, "", llmtest.Turn{Text: "ok"})
	writeFile(t, filepath.Join(f.ws, ".claude/commands/frontend/test.md"), "---\ndescription: Run the frontend tests\nargument-hint: <pattern>\n---\nTest $1 with @a.txt\n")
	writeFile(t, filepath.Join(f.ws, ".claude/commands/model.md"), "a custom /model\n")
	writeFile(t, filepath.Join(f.ws, "a.txt"), "@b.txt INCLUDED\n")
	writeFile(t, filepath.Join(f.ws, "b.txt"), "NOT-TWICE\n")
	writeFile(t, filepath.Join(f.ws, ".claude/commands/tools/help.md"), "custom help in a folder\n")
	tab := Default().WithCustom(context.Background(), f.c)
	var b bytes.Buffer
	tab.Help(&b)
	require.Contains(t, b.String(), "/test <pattern>", "a command is called by its file name")
	require.Contains(t, b.String(), "Run the frontend tests (project:frontend)", "its folder is a label")
	require.Contains(t, b.String(), "(hides the custom /model of ")
	require.Contains(t, b.String(), "/tools:help", "a built-in keeps the short name; the folder form calls the custom one")
	names := []string{}
	for _, s := range tab.Complete("/te") {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"/test"}, names)

	for _, line := range []string{"/test login", "/frontend:test login"} {
		o, err := tab.Exec(context.Background(), f.c, line, &b)
		require.NoError(t, err, line)
		require.True(t, o.Expanded, line)
		parts := o.PromptOf(context.Background(), f.c).Parts
		require.Contains(t, parts[0].Text, "Test login with @a.txt")
		require.Contains(t, parts[0].Text, "@b.txt INCLUDED")
		require.NotContains(t, parts[0].Text, "NOT-TWICE", "an expanded command's text is not scanned for @files again")
	}
	o, err := tab.Exec(context.Background(), f.c, "/tools:help", &b)
	require.NoError(t, err)
	require.Equal(t, "custom help in a folder", o.Prompt)
	o, err = tab.Exec(context.Background(), f.c, "/help", &b)
	require.NoError(t, err)
	require.False(t, o.Expanded, "the built-in /help wins")

	// The built-in keeps its name.
	o, err = tab.Exec(context.Background(), f.c, "/model", &b)
	require.NoError(t, err)
	require.False(t, o.Expanded)
}

func TestCustomCommandAddedAfterStart(t *testing.T) {
	f := newFixture(t, "")
	tab := Default().WithCustom(context.Background(), f.c)
	writeFile(t, filepath.Join(f.ws, ".aidex/commands/late.md"), "Late $ARGUMENTS\n")
	o, err := tab.Exec(context.Background(), f.c, "/late one", &bytes.Buffer{})
	require.NoError(t, err)
	require.Equal(t, "Late one", o.Prompt)
}

func TestSkillsCommand(t *testing.T) {
	f := newFixture(t, "")
	writeFile(t, filepath.Join(f.ws, ".claude/skills/pdf/SKILL.md"), "---\ndescription: Fill PDF forms\nallowed-tools: Bash(python3 *)\n---\nbody\n")
	writeFile(t, filepath.Join(f.ws, ".claude/skills/bad/SKILL.md"), "---\nname: bad\n---\nno description\n")
	out, _ := f.mustExec(t, "/skills")
	require.Contains(t, out, "pdf")
	require.Contains(t, out, "Fill PDF forms")
	require.Contains(t, out, "ignored: untrusted project")
	require.True(t, strings.Contains(out, "problem: ") && strings.Contains(out, "bad/SKILL.md: no description"), out)
}
