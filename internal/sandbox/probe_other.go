//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

func probe() Caps {
	return Caps{Reason: "sandbox: not supported on " + runtime.GOOS + " yet: commands are not sandboxed (see docs/sandbox.md)"}
}

func (s *Sandbox) confine(cmd *exec.Cmd, sp helper.Spec) error {
	return errors.New("sandbox: not supported on " + runtime.GOOS + " yet")
}

func tempDefault() string { return os.TempDir() }

func userCacheDefault(home string) string { return filepath.Join(home, "AppData", "Local") }
