package commands

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sandbox"
)

// sandboxController is a controller whose machine has caps.
func sandboxController(t *testing.T, caps sandbox.Caps) *Controller {
	t.Helper()
	script := llmtest.NewScript(t)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, ""))
	ctx := context.Background()
	svc, err := app.Start(ctx, app.StartOptions{Options: app.Options{Workspace: home.WS, Getenv: home.Getenv,
		SandboxProbe: func() sandbox.Caps { return caps }}, Sandbox: true})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	c, err := New(ctx, Config{Service: svc, Session: sess})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func runLine(t *testing.T, c *Controller, line string) (string, error) {
	t.Helper()
	var b bytes.Buffer
	_, err := Default().Exec(context.Background(), c, line, &b)
	return b.String(), err
}

func TestSandboxCommandShowsAndSwitches(t *testing.T) {
	c := sandboxController(t, sandbox.Caps{LandlockABI: 7, Namespaces: true, Helper: "/usr/bin/aidex-sandbox"})
	out, err := runLine(t, c, "/sandbox")
	require.NoError(t, err)
	require.Equal(t, "sandbox: workspace-write · user, mount, PID, IPC and network namespaces + Landlock ABI 7 · network off\n", out)

	out, err = runLine(t, c, "/sandbox read-only")
	require.NoError(t, err)
	require.Equal(t, "sandbox: read-only · user, mount, PID, IPC and network namespaces + Landlock ABI 7 · network off\n", out)

	out, err = runLine(t, c, "/sandbox danger-full-access")
	require.NoError(t, err)
	require.Contains(t, out, "sandbox: off · none (commands run unsandboxed)\n")
	require.Contains(t, out, "warning: commands now run without the OS sandbox")
	require.Equal(t, sandbox.Off, c.Sandbox().Mode)

	_, err = runLine(t, c, "/sandbox strict")
	require.ErrorContains(t, err, `sandbox mode "strict": use read-only, workspace-write or off`)
	require.Equal(t, sandbox.Off, c.Sandbox().Mode, "a bad mode changes nothing")
}

// On a machine that cannot sandbox, /sandbox says why, and asking for a
// mode fails closed: the error names --sandbox off and nothing changes.
func TestSandboxCommandUnavailable(t *testing.T) {
	c := sandboxController(t, sandbox.Caps{Reason: "user namespaces are disabled and Landlock is missing"})
	out, err := runLine(t, c, "/sandbox")
	require.NoError(t, err)
	require.Equal(t, "sandbox: off · none (commands run unsandboxed)\n"+
		"commands are not sandboxed: user namespaces are disabled and Landlock is missing (set mode = \"off\" in [sandbox] to silence this)\n", out)
	_, err = runLine(t, c, "/sandbox workspace-write")
	require.ErrorIs(t, err, sandbox.ErrUnavailable)
	require.ErrorContains(t, err, "--sandbox off")
	require.Equal(t, "workspace-write", c.Runtime().Config.Sandbox.Mode)
	require.Equal(t, "default", c.Runtime().Config.Sources["sandbox.mode"], "the failed switch left the runtime alone")
}
