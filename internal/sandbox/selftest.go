package sandbox

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// selfTest is SelfTest: it builds a throw-away workspace, home and
// outside folder under a temp dir, confines small commands with the
// network off and checks what held.
func selfTest(ctx context.Context, p Policy, c Caps) []Check {
	if !c.Available() {
		return []Check{{Name: "sandbox available", Note: c.Reason}}
	}
	tmp, err := os.MkdirTemp("", "aidex-selftest-")
	if err != nil {
		return []Check{{Name: "temp dir", Note: err.Error()}}
	}
	defer os.RemoveAll(tmp)
	ws, home, outside := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home"), filepath.Join(tmp, "outside")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(home, ".ssh"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return []Check{{Name: "temp dir", Note: err.Error()}}
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("selftest-secret"), 0o600); err != nil {
		return []Check{{Name: "temp dir", Note: err.Error()}}
	}
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: ws, Home: home, Hidden: p.Hidden}, c)
	if err != nil {
		return []Check{{Name: "sandbox", Note: err.Error()}}
	}
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir = ws
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := sb.Confine(cmd, Options{}); err != nil {
			return "", err
		}
		err := cmd.Run()
		return out.String(), err
	}
	checks := []Check{
		fileCheck("write inside the workspace", run, filepath.Join(ws, "inside"), true),
		fileCheck("write outside is denied", run, filepath.Join(outside, "escaped"), false),
		fileCheck("git hooks stay read-only", run, filepath.Join(ws, ".git", "hooks", "pre-commit"), false),
	}
	out, err := run("/bin/sh", "-c", "cat "+filepath.Join(home, ".ssh", "id_rsa"))
	checks = append(checks, Check{Name: "credentials are masked", OK: !strings.Contains(out, "selftest-secret"), Note: noteOf(out, err)})
	checks = append(checks, netCheck(ctx, c, run))
	return checks
}

// fileCheck runs sh -c 'echo x > path' and checks whether path exists.
func fileCheck(name string, run func(...string) (string, error), path string, want bool) Check {
	out, err := run("/bin/sh", "-c", "echo x > '"+path+"'")
	_, statErr := os.Stat(path)
	return Check{Name: name, OK: (statErr == nil) == want, Note: noteOf(out, err)}
}

// netCheck opens a TCP listener here and has the helper dial it from
// inside the sandbox: with the network off the dial must fail.
func netCheck(ctx context.Context, c Caps, run func(...string) (string, error)) Check {
	name := "network is off (TCP to a host listener)"
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp4", "127.0.0.1:0")
	if err != nil {
		return Check{Name: name, Note: err.Error()}
	}
	defer ln.Close()
	args := []string{c.Helper}
	if c.HelperArg != "" {
		args = append(args, c.HelperArg)
	}
	out, err := run(append(args, helper.ConnectArg, ln.Addr().String())...)
	return Check{Name: name, OK: err != nil && !strings.Contains(out, helper.Prefix+"setup"), Note: noteOf(out, err)}
}

func noteOf(out string, err error) string {
	out = strings.TrimSpace(out)
	if err != nil && out == "" {
		return err.Error()
	}
	if i := strings.IndexByte(out, '\n'); i >= 0 {
		out = out[:i]
	}
	return out
}
