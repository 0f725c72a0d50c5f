//go:build !unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// execChat runs aidex-chat with args (the command line without the program
// name), this process's streams and environment with aidex's version line
// (handoffEnv), and returns its exit code as an *ExitError (nil for 0).
// Windows cannot replace a process, so this one waits, ignoring Ctrl+C,
// which the console sends to aidex-chat too; aidex-chat runs in a Job
// Object that ends it, and what it started, when aidex ends in any way.
func execChat(args []string, version string) error {
	path, err := findChat()
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = chatEnv(version)
	group := proc.NewGroup(cmd)
	defer group.Close()
	signal.Ignore(os.Interrupt)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	if err := group.Attach(cmd.Process); err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return &ExitError{Code: ee.ExitCode()}
	default:
		return fmt.Errorf("run %s: %w", path, err)
	}
}
