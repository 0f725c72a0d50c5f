package config

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSandboxDefaults(t *testing.T) {
	e := newEnv(t)
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, Sandbox{Mode: "workspace-write"}, cfg.Sandbox)
	require.Equal(t, SourceDefault, cfg.Sources["sandbox.mode"])
}

func TestSandboxTable(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "[sandbox]\nmode = \"read-only\"\nwritable = [\"~/cache\", \"/opt/x\"]\nnetwork = true\nauto_allow = true\n")
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, Sandbox{Mode: "read-only", Writable: []string{filepath.Join(e.home, "cache"), "/opt/x"}, Network: true, AutoAllow: true}, cfg.Sandbox)
	require.Equal(t, e.global()+":2", cfg.Sources["sandbox.mode"])

	cfg, _, err = e.load(map[string]string{"sandbox.mode": "danger-full-access"})
	require.NoError(t, err)
	require.Equal(t, "danger-full-access", cfg.Sandbox.Mode)
	require.Equal(t, SourceFlag, cfg.Sources["sandbox.mode"])
}

func TestSandboxErrors(t *testing.T) {
	tests := []struct{ content, want string }{
		{"[sandbox]\nmode = \"strict\"\n", `sandbox.mode must be one of workspace-write, read-only, off, danger-full-access, not "strict"`},
		{"[sandbox]\nnetwork = \"yes\"\n", "sandbox.network must be a boolean"},
		{"[sandbox]\nwritable = \"/tmp\"\n", "sandbox.writable must be an array of strings"},
		{"[sandbox]\nwritable = [\"\"]\n", "sandbox.writable must not contain empty strings"},
		{"[sandbox]\nnetwrok = true\n", `unknown key "sandbox.netwrok" (did you mean "sandbox.network"?)`},
		{"sandbox = \"off\"\n", `"sandbox" must be a table`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.global(), tt.content)
			_, _, err := e.load(nil)
			var fe *FileError
			require.True(t, errors.As(err, &fe), "want a *FileError, got %v", err)
			require.Contains(t, err.Error(), tt.want)
		})
	}
	e := newEnv(t)
	_, _, err := e.load(map[string]string{"sandbox.mode": "none"})
	require.ErrorContains(t, err, `flag sandbox.mode: sandbox.mode must be one of workspace-write, read-only, off, danger-full-access, not "none"`)
}

// An untrusted project file may tighten the sandbox, never loosen it.
func TestSandboxUntrustedProject(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.project(), "[sandbox]\nmode = \"off\"\nwritable = [\"/\"]\nnetwork = true\nauto_allow = true\nverify_unsandboxed = true\n")
	cfg, ws, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, Sandbox{Mode: "workspace-write"}, cfg.Sandbox)
	var keys []string
	for _, w := range ws {
		keys = append(keys, w.Key)
	}
	require.Equal(t, []string{"sandbox.mode", "sandbox.writable", "sandbox.network", "sandbox.auto_allow", "sandbox.verify_unsandboxed"}, keys)
	require.Contains(t, ws[0].String(), "aidex trust")

	writeFile(t, e.project(), "[sandbox]\nmode = \"read-only\"\n")
	cfg, ws, err = e.load(nil)
	require.NoError(t, err)
	require.Empty(t, ws)
	require.Equal(t, "read-only", cfg.Sandbox.Mode)

	e.trust(t)
	writeFile(t, e.project(), "[sandbox]\nmode = \"off\"\n")
	cfg, _, err = e.load(nil)
	require.NoError(t, err)
	require.Equal(t, "workspace-write", cfg.Sandbox.Mode, "a setting changed after trust waits for approval")
	require.Len(t, cfg.ContentItems, 1)
	e.trust(t)
	cfg, _, err = e.load(nil)
	require.NoError(t, err)
	require.Equal(t, "off", cfg.Sandbox.Mode)
}
