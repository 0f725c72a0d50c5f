package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// RemoveRule takes one rule out of a [permissions] list and keeps the
// rest of the file (comments, other keys) as it was.
func TestRemoveRule(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "# mine\nmodel = \"m\"\n\n[permissions]\nallow = [\n  \"run_command(go test *)\", # tests\n  \"read_file\",\n]\ndeny = [\"run_command(git push *)\"]\n")
	require.NoError(t, RemoveRule(e.global(), "allow", "run_command(go test *)"))
	data, err := os.ReadFile(e.global())
	require.NoError(t, err)
	require.Contains(t, string(data), "# mine\nmodel = \"m\"")
	require.Contains(t, string(data), `allow = ["read_file"]`)
	require.Contains(t, string(data), `deny = ["run_command(git push *)"]`)

	err = RemoveRule(e.global(), "allow", "nope")
	require.ErrorContains(t, err, `has no allow rule "nope" (it has: read_file)`)
	require.ErrorContains(t, RemoveRule(e.global(), "ask", "x"), "has no ask rules")
	require.ErrorContains(t, RemoveRule(e.global(), "maybe", "x"), "allow, deny or ask")
	require.NoError(t, RemoveRule(e.global(), "deny", "run_command(git push *)"))
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Empty(t, cfg.Permissions.Deny)
	require.Len(t, cfg.Permissions.Allow, 1)
}
