package config

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// [[hooks.EVENT]] tables belong to internal/hooks: the config loader
// leaves them alone (no "unknown key"), and editing the file keeps them.
func TestHooksTablesAreLeftToTheHooksPackage(t *testing.T) {
	e := newEnv(t)
	const hooks = "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./check.sh\"\ntimeout = 30\n"
	writeFile(t, e.global(), "model = \"m\"\n"+hooks)
	writeFile(t, e.project(), hooks)
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, "m", cfg.Model)

	require.NoError(t, Set(e.global(), "model", "other"))
	require.NoError(t, AddRule(e.project(), "allow", "run_command(go test *)"))
	for _, f := range []string{e.global(), e.project()} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.True(t, strings.Contains(string(data), "command = \"./check.sh\""), "%s lost its hooks:\n%s", f, data)
	}
	cfg, _, err = e.load(nil)
	require.NoError(t, err)
	require.Equal(t, "other", cfg.Model)
}
