//go:build !unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// execChat runs aidex-chat with args (the command line without the program
// name), this process's streams and environment with aidex's version line
// (handoffEnv), and returns its exit code
// as an *ExitError (nil for 0). Windows cannot replace a process, so this
// one waits, ignoring Ctrl+C, which the console sends to aidex-chat too.
func execChat(args []string, version string) error {
	path, err := findChat()
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = chatEnv(version)
	signal.Ignore(os.Interrupt)
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return &ExitError{Code: ee.ExitCode()}
	default:
		return fmt.Errorf("start %s: %w", path, err)
	}
}
