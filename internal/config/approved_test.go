package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// "Always allow in this project" keeps working in a folder that is not
// trusted as a whole: the rules the user approved apply, other allow rules
// of the project file are still ignored.
func TestApprovedRulesApplyInUntrustedFolder(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, AddRule(e.project(), "allow", "run_command(go test *)"))
	require.NoError(t, AddRule(e.project(), "allow", "run_command(rm *)"))

	c, warns, err := e.load(nil)
	require.NoError(t, err)
	require.Empty(t, c.Permissions.Allow, "nothing approved yet")
	require.Contains(t, warningsText(warns), "may not add allow rules")

	require.NoError(t, e.paths.ApproveRule(e.ws, "run_command(go test *)"))
	require.NoError(t, e.paths.ApproveRule(e.ws, "run_command(go test *)")) // no duplicate
	c, warns, err = e.load(nil)
	require.NoError(t, err)
	require.Len(t, c.Permissions.Allow, 1)
	require.Equal(t, "run_command(go test *)", c.Permissions.Allow[0].Text)
	require.Contains(t, c.Permissions.Allow[0].Source, e.project())
	require.Contains(t, warningsText(warns), "may not add allow rules", "rm is still refused")

	rules, err := e.paths.ApprovedRules(e.ws)
	require.NoError(t, err)
	require.Equal(t, []string{"run_command(go test *)"}, rules)
	require.Error(t, e.paths.ApproveRule(e.ws, "run_command("), "bad rule")
}
