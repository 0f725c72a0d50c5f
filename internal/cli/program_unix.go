//go:build unix

package cli

import (
	"fmt"
	"syscall"
)

// execChat replaces this process with aidex-chat, given args (the command
// line without the program name) and this process's environment with
// aidex's version line (handoffEnv): same pid, terminal, streams and
// signals. It returns only on failure.
func execChat(args []string, version string) error {
	path, err := findChat()
	if err != nil {
		return err
	}
	if err := syscall.Exec(path, append([]string{path}, args...), chatEnv(version)); err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	return nil
}
