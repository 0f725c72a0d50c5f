package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// Ralph's verify command runs in the sandbox of the model's own
// commands: a verify script the model wrote cannot write outside the
// writable set, and the failure says in one line that the sandbox stopped
// it. [sandbox] verify_unsandboxed = true (the explicit way out) runs it
// outside, where the write lands.
func TestRalphVerifyRunsSandboxed(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t, llmtest.NewScript(t))
	target := filepath.Join(w.home.Root, "verify-escaped")
	script := "touch " + target + " && echo escaped\n"
	require.NoError(t, os.WriteFile(filepath.Join(w.home.WS, "verify.sh"), []byte(script), 0o644))
	for _, tc := range []struct {
		name  string
		flags map[string]string
		out   bool
	}{
		{"sandboxed", nil, false},
		{"verify_unsandboxed", map[string]string{"sandbox.verify_unsandboxed": "true"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(target)
			rt, err := Load(context.Background(), Options{Workspace: w.home.WS, Getenv: os.Getenv, Flags: tc.flags})
			require.NoError(t, err)
			b := &ralphBackend{Runtime: func() *Runtime { return rt }}
			vr := b.Verify(context.Background(), "sh verify.sh", 0)
			if tc.out {
				require.True(t, vr.OK, "%s %s", vr.Error, vr.Output)
				require.FileExists(t, target)
				return
			}
			require.False(t, vr.OK, "the verify command escaped the sandbox: %s", vr.Output)
			require.NoFileExists(t, target)
			require.Contains(t, vr.Error, "is outside the folders commands may write", "a verify failure caused by the sandbox says so: %s", vr.Error)
			require.Contains(t, vr.Error, "verify_unsandboxed = true", "and names the way out: %s", vr.Error)
			require.NotContains(t, vr.Error, "\n", "in one line")
		})
	}
}
