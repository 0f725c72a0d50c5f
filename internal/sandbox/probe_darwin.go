//go:build darwin

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// sandboxExec is macOS's Seatbelt front end.
const sandboxExec = "/usr/bin/sandbox-exec"

func probe() Caps {
	if _, err := os.Stat(sandboxExec); err != nil {
		return Caps{Reason: "sandbox: " + sandboxExec + " is missing: commands are not sandboxed"}
	}
	return Caps{Helper: sandboxExec, Method: "sandbox-exec", Limits: []string{
		"network off also blocks connections to servers the command starts itself on localhost",
		"sandbox-exec is deprecated by Apple; it still works on current macOS",
	}}
}

// confine makes cmd run under sandbox-exec with a generated profile.
func (s *Sandbox) confine(cmd *exec.Cmd, sp helper.Spec) error {
	for _, l := range []*[]string{&sp.Writable, &sp.Protected, &sp.MaskDirs, &sp.MaskFiles} {
		for i, p := range *l {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				(*l)[i] = r
			}
		}
	}
	args := append([]string{sandboxExec, "-p", seatbeltProfile(sp), cmd.Path}, cmd.Args[min(1, len(cmd.Args)):]...)
	cmd.Path, cmd.Args = sandboxExec, args
	return nil
}

func tempDefault() string { return os.TempDir() }

func userCacheDefault(home string) string { return filepath.Join(home, "Library", "Caches") }
