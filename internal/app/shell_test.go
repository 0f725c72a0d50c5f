package app

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/cmdshell"
	"github.com/zelvior/aidex/internal/ospath"
	"github.com/zelvior/aidex/internal/permission"
)

// The system prompt names the shell commands run in (never an empty
// Shell line, as on Windows where $SHELL is unset), and the policy is
// told that shell.
func TestSystemPromptAndPolicyNameTheCommandShell(t *testing.T) {
	f := newFixture(t)
	rt := f.backend.Runtime()
	rt.Getenv = func(string) string { return "" } // no $SHELL, as on Windows
	sh, err := rt.CommandShell()
	require.NoError(t, err)
	prompt, err := rt.engineRoom().systemPrompt(context.Background(), engineOptions{})
	require.NoError(t, err)
	var line string
	for _, l := range strings.Split(prompt, "\n") {
		if strings.Contains(l, "Shell") {
			line = l
		}
	}
	require.Contains(t, line, sh.Path, "the prompt's Shell line: %q", line)
	require.Contains(t, line, "POSIX sh syntax")
	want := permission.Shell{}
	if sh.Kind == cmdshell.PowerShell {
		want.Kind = permission.ShellPowerShell
	}
	if sh.WindowsPaths {
		want.Paths = ospath.Windows
	}
	require.Equal(t, want, rt.toolRoom().policyShell())
}
