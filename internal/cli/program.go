package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/zelvior/aidex/internal/ralph/dist"
	"github.com/zelvior/aidex/internal/sandbox/helper"
	"github.com/zelvior/aidex/internal/ui/chatopts"
)

// ChatProgram is the program that runs aidex's interactive chat
// (cmd/aidex-chat; ".exe" added on Windows), installed beside aidex.
const ChatProgram = "aidex-chat"

// Program runs the aidex process whose build stamp is version (main.build,
// "" when unstamped) and returns its exit code. chat runs the interactive
// chat in this process (cmd/aidex-chat passes chat.Run); with nil
// (cmd/aidex), an interactive session replaces this process with
// aidex-chat, so that the chat's libraries are linked into that program
// only. With the hidden first argument of the sandbox helper or of the
// NATS helper it is that helper instead (when none is installed beside
// the executable).
func Program(version string, chat chatopts.Run) int {
	if len(os.Args) > 1 && os.Args[1] == helper.Arg {
		return helper.Main(os.Args[2:])
	}
	if len(os.Args) > 1 && os.Args[1] == dist.HelperArg {
		return dist.NoHelperMain(os.Stdout)
	}
	startupGC(os.Getenv, startupGCWindow)
	p := Process{Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Version: version, Chat: chat}
	if chat == nil {
		p.launch = execChat
	}
	return Main(p)
}

// launchChat hands this command line to aidex-chat (Program's processes),
// or says that this build has no interactive chat (a Process built by
// hand without Chat).
func (a *cliApp) launchChat() error {
	if a.proc.launch == nil {
		return usageErr("this build of aidex has no interactive chat: run a prompt with -p, or start aidex-chat")
	}
	return a.proc.launch(a.proc.Args)
}

// findChat returns aidex-chat beside the running executable, else the one
// on PATH, or an error naming both places and the fix.
func findChat() (string, error) {
	name := ChatProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe, err := os.Executable()
	if err == nil {
		if p, err := filepath.EvalSymlinks(exe); err == nil {
			exe = p
		}
		beside := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return filepath.Abs(p)
	}
	return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf(
		"the interactive chat is the program aidex-chat, installed beside aidex, and there is none beside %s nor on PATH: "+
			"install it as aidex was installed (go install ./cmd/... in the clone, or the installer), or run a prompt with -p",
		filepath.Dir(exe))}
}
