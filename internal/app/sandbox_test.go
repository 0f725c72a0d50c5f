package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/app/toolcall"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/sandbox"
	"github.com/zelvior/aidex/internal/tools"
)

const noSandboxReason = "Landlock is not supported by this kernel and user namespaces are disabled"

// probeCounter is a sandbox probe that counts its calls.
type probeCounter struct {
	caps  sandbox.Caps
	calls int
}

func (p *probeCounter) probe() sandbox.Caps {
	p.calls++
	return p.caps
}

// startWith starts a service over a home with config extra, flags and a
// probe; it returns the service (nil on error), the error and the
// reports.
func startWith(t *testing.T, extra string, flags map[string]string, probe *probeCounter, runs bool) (*Service, error, []Report) {
	t.Helper()
	home := apptest.NewHome(t, apptest.FakeProvider("http://127.0.0.1:1/v1", []string{"m1"}, extra))
	var reports []Report
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv, Flags: flags,
		SandboxProbe: probe.probe}, Report: func(r Report) { reports = append(reports, r) }, Sandbox: runs})
	if svc != nil {
		t.Cleanup(func() { _ = svc.Close() })
	}
	return svc, err, reports
}

// On a machine that cannot sandbox, the default mode says so once at
// start (a warning) and commands run unsandboxed.
func TestSandboxStartNoticeWhenDefault(t *testing.T) {
	p := &probeCounter{caps: sandbox.Caps{Reason: noSandboxReason}}
	svc, err, reports := startWith(t, "", nil, p, true)
	require.NoError(t, err)
	require.Equal(t, []Report{{Text: "commands are not sandboxed: " + noSandboxReason + " (set mode = \"off\" in [sandbox] to silence this)", Warning: true}}, reports)
	sbx, err := svc.Runtime().Sandbox()
	require.NoError(t, err)
	require.Nil(t, sbx)
	info := svc.Runtime().SandboxInfo()
	require.Equal(t, sandbox.Off, info.Mode)
	require.False(t, info.Explicit)
	// Probed once, however often the runtime is asked and reloaded.
	_, err = svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	_, _ = svc.Runtime().Sandbox()
	require.Equal(t, 1, p.calls)
}

// Attack case E-200: a sandbox mode the user asked for (config file or
// --sandbox) that the machine cannot provide fails closed at start, with
// an error naming --sandbox off; never a silent unsandboxed run.
func TestSandboxFailClosedWhenExplicit(t *testing.T) {
	for _, tc := range []struct {
		name, extra, source string
		flags               map[string]string
	}{
		{"config", "[sandbox]\nmode = \"workspace-write\"\n", "config.toml:", nil},
		{"flag", "", "(--sandbox)", map[string]string{"sandbox.mode": "read-only"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &probeCounter{caps: sandbox.Caps{Reason: noSandboxReason}}
			svc, err, reports := startWithTable(t, tc.extra, tc.flags, p)
			require.Nil(t, svc)
			require.ErrorIs(t, err, sandbox.ErrUnavailable)
			require.ErrorContains(t, err, "--sandbox off")
			require.ErrorContains(t, err, noSandboxReason)
			require.ErrorContains(t, err, tc.source)
			require.Empty(t, reports)
		})
	}
}

// startWithTable is startWith with extra appended after the provider
// table (for [sandbox] tables).
func startWithTable(t *testing.T, table string, flags map[string]string, probe *probeCounter) (*Service, error, []Report) {
	t.Helper()
	home := apptest.NewHome(t, apptest.FakeProvider("http://127.0.0.1:1/v1", []string{"m1"}, "")+table)
	var reports []Report
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv, Flags: flags,
		SandboxProbe: probe.probe}, Report: func(r Report) { reports = append(reports, r) }, Sandbox: true})
	if svc != nil {
		t.Cleanup(func() { _ = svc.Close() })
	}
	return svc, err, reports
}

// Mode off never probes and never warns; a start that runs no command
// (Sandbox false) does not probe either.
func TestSandboxOffAndCheapStart(t *testing.T) {
	p := &probeCounter{caps: sandbox.Caps{Reason: noSandboxReason}}
	svc, err, reports := startWith(t, "", map[string]string{"sandbox.mode": "danger-full-access"}, p, true)
	require.NoError(t, err)
	require.Empty(t, reports)
	require.Zero(t, p.calls)
	require.Equal(t, sandbox.Off, svc.Runtime().SandboxInfo().Mode)

	p = &probeCounter{caps: sandbox.Caps{Reason: noSandboxReason}}
	_, err, reports = startWith(t, "", map[string]string{"sandbox.mode": "workspace-write"}, p, false)
	require.NoError(t, err)
	require.Empty(t, reports)
	require.Zero(t, p.calls, "a start for a command that runs nothing does not probe")
}

// An engine cannot be built around an unavailable sandbox the user asked
// for, whichever path reaches it.
func TestSandboxEngineFailsClosed(t *testing.T) {
	p := &probeCounter{caps: sandbox.Caps{Reason: noSandboxReason}}
	svc, err, _ := startWith(t, "", map[string]string{"sandbox.mode": "workspace-write"}, p, false)
	require.NoError(t, err)
	_, _, err = svc.Runtime().Engine(context.Background(), engineOptions{})
	require.ErrorIs(t, err, sandbox.ErrUnavailable)
	_, err = svc.Runtime().CallTool(context.Background(), "run_command", []byte(`{"command":"true"}`), toolcall.Options{})
	require.ErrorIs(t, err, sandbox.ErrUnavailable)
}

// The policy: the workspace, the writable set (config writable,
// allowed_dirs and --add-dir, the linked worktree's git dirs), the
// network switch, and aidex's own config dir hidden.
func TestSandboxPolicy(t *testing.T) {
	main := t.TempDir()
	gitdir := filepath.Join(main, ".git", "worktrees", "wt")
	require.NoError(t, os.MkdirAll(gitdir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644))
	extra, added := t.TempDir(), t.TempDir()
	home := apptest.NewHome(t, apptest.FakeProvider("http://127.0.0.1:1/v1", []string{"m1"}, "allowed_dirs = [\""+extra+"\"]")+
		"[sandbox]\nwritable = [\"~/cache-x\"]\nnetwork = true\n")
	require.NoError(t, os.WriteFile(filepath.Join(home.WS, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(gitdir, "gitdir"), []byte(filepath.Join(home.WS, ".git")+"\n"), 0o644))
	rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv, Flags: map[string]string{"allowed_dirs": `["` + added + `"]`}})
	require.NoError(t, err)
	pol := rt.SandboxPolicy(sandbox.WorkspaceWrite)
	require.Equal(t, sandbox.WorkspaceWrite, pol.Mode)
	require.Equal(t, home.WS, pol.Workspace)
	require.True(t, pol.Network)
	require.Equal(t, home.Root, pol.Home)
	for _, w := range []string{filepath.Join(home.Root, "cache-x"), added, gitdir,
		filepath.Join(main, ".git", "objects"), filepath.Join(main, ".git", "refs"), filepath.Join(main, ".git", "logs")} {
		require.Contains(t, pol.Writable, w)
	}
	require.NotContains(t, pol.Writable, filepath.Join(main, ".git"), "the main repository's hooks and config stay read-only")
	require.Contains(t, pol.Hidden, rt.Config.Paths.ConfigDir)
	require.Contains(t, pol.Hidden, rt.Config.Paths.DataDir)
	require.Contains(t, pol.Hidden, rt.Config.Paths.StateDir, "trusted folders, approved rules and checkpoints")
}

// [sandbox] auto_allow lets auto-edit mode run commands unasked only
// while they really run in the sandbox.
func TestSandboxAutoAllowWiring(t *testing.T) {
	cmd := permission.Request{Tool: "run_command", Kind: kind.Exec, Command: "go test ./..."}
	for _, tc := range []struct {
		name  string
		caps  sandbox.Caps
		table string
		want  permission.Decision
	}{
		{"sandboxed with auto_allow", sandbox.Caps{LandlockABI: 7, Namespaces: true}, "[sandbox]\nauto_allow = true\n", permission.Allow},
		{"sandboxed without auto_allow", sandbox.Caps{LandlockABI: 7, Namespaces: true}, "", permission.Ask},
		{"not sandboxed", sandbox.Caps{Reason: noSandboxReason}, "[sandbox]\nauto_allow = true\n", permission.Ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &probeCounter{caps: tc.caps}
			svc, err, _ := startWithTable(t, tc.table, map[string]string{"permission_mode": "auto-edit"}, p)
			require.NoError(t, err)
			rt := svc.Runtime()
			ws, err := rt.NewWorkspace(false)
			require.NoError(t, err)
			pol, err := rt.engineRoom().policy(ws, true, tools.NewRegistry())
			require.NoError(t, err)
			v := pol.Check(cmd)
			require.Equal(t, tc.want, v.Decision, "%s: %s", v.Rule, v.Reason)
		})
	}
}

// Where only one layer works (Landlock without namespaces), the start
// warning states its limits.
func TestSandboxStartStatesLimits(t *testing.T) {
	p := &probeCounter{caps: sandbox.Caps{LandlockABI: 7, Method: "landlock", Helper: "/bin/true",
		Limits: []string{"credential files (~/.ssh, cloud keys) are readable", "network off blocks TCP only"}}}
	svc, err, reports := startWith(t, "", nil, p, true)
	require.NoError(t, err)
	require.Equal(t, []Report{{Text: "commands are sandboxed with Landlock ABI 7 only, so: credential files (~/.ssh, cloud keys) are readable; network off blocks TCP only", Warning: true}}, reports)
	sbx, err := svc.Runtime().Sandbox()
	require.NoError(t, err)
	require.NotNil(t, sbx)
	require.Equal(t, sandbox.WorkspaceWrite, svc.Runtime().SandboxInfo().Mode)
}

// A ".git" pointer file a command plants in the workspace (it can write
// the workspace) does not make the folder it names writable: only a
// target that points back is the workspace's repository (issue 42).
func TestSandboxPolicyRefusesPlantedGitPointer(t *testing.T) {
	outside := t.TempDir()
	target := filepath.Join(outside, "victim")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "objects"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(target, "commondir"), []byte("..\n"), 0o644))
	home := apptest.NewHome(t, apptest.FakeProvider("http://127.0.0.1:1/v1", []string{"m1"}, ""))
	require.NoError(t, os.WriteFile(filepath.Join(home.WS, ".git"), []byte("gitdir: "+target+"\n"), 0o644))
	rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
	require.NoError(t, err)
	for _, w := range rt.SandboxPolicy(sandbox.WorkspaceWrite).Writable {
		require.False(t, w == outside || strings.HasPrefix(w, outside+string(filepath.Separator)),
			"%s became writable through a planted .git pointer", w)
	}
}
