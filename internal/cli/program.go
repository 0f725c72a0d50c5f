package cli

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/zelvior/aidex/internal/companion"
	"github.com/zelvior/aidex/internal/ralph/dist"
	"github.com/zelvior/aidex/internal/sandbox/helper"
	"github.com/zelvior/aidex/internal/ui/chatopts"
)

// ChatProgram is the program that runs aidex's interactive chat
// (cmd/aidex-chat; ".exe" added on Windows), installed beside aidex.
const ChatProgram = "aidex-chat"

// handoffEnv carries, from aidex to the aidex-chat it starts, aidex's
// version line: aidex-chat refuses to run for an aidex of another build
// (an older aidex-chat on PATH, one left beside a newer aidex), and a
// program without a chat that receives it was started as aidex-chat by
// mistake (a copy or link of aidex under that name) and stops instead of
// starting itself again. aidex-chat removes it from its environment.
const handoffEnv = "AIDEX_CHAT_HANDOFF"

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
	handoff, handedOver := os.LookupEnv(handoffEnv)
	switch {
	case handedOver && chat == nil:
		exe, _ := os.Executable()
		fmt.Fprintf(os.Stderr, "aidex: %s was started as %s but is aidex itself, without the interactive chat: "+
			"put the program aidex-chat of the same build there (go install ./cmd/... in the clone, or the installer)\n", exe, ChatProgram)
		return ExitUsage
	case handedOver:
		_ = os.Unsetenv(handoffEnv) // not passed on to tools and commands
		if own := p.version(); handoff != own {
			exe, _ := os.Executable()
			fmt.Fprintf(os.Stderr, "aidex: %s is aidex-chat %s, but the aidex that started it is %s: "+
				"install aidex and aidex-chat from the same build (go install ./cmd/... in the clone, or the installer)\n", exe, shortVersionOf(own), shortVersionOf(handoff))
			return ExitUsage
		}
		p.handoff = handoff
	case chat == nil:
		p.launch = func(args []string) error { return execChat(args, p.version()) }
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

// chatEnv is this process's environment with handoffEnv set to version.
func chatEnv(version string) []string {
	return append(os.Environ(), handoffEnv+"="+version)
}

// findChat returns aidex-chat beside the running executable, else the one
// on PATH (companion.Find: never aidex itself under that name; a copy of
// aidex is caught by handoffEnv), or an error naming both places and the
// fix.
func findChat() (string, error) {
	name := ChatProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	path, dir, ok := companion.Find(exe, name, exec.LookPath)
	if ok {
		return path, nil
	}
	if dir == "" {
		dir = "aidex's folder"
	}
	return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf(
		"the interactive chat is the program aidex-chat, installed beside aidex, and there is none beside %s nor on PATH: "+
			"install it as aidex was installed (go install ./cmd/... in the clone, or the installer), or run a prompt with -p",
		dir)}
}
