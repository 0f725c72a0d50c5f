// Package helper is the inside of the sandbox: the program that aidex
// starts in new namespaces (the aidex-sandbox binary, or aidex itself with
// the hidden first argument Arg) to set up the mounts, Landlock and the
// loopback, drop its capabilities and exec the command. It imports only
// the standard library and golang.org/x/sys so that it starts
// in about a millisecond.
package helper

import (
	"errors"
	"strings"
)

// Arg is the hidden first argument that makes aidex itself run Main (the
// fallback when no aidex-sandbox binary is installed).
const Arg = "__sandbox"

// SpawnArg makes Main start the helper whose path and argv follow (after
// a mode, SpawnNetOff or SpawnNetOn) in new namespaces, wait for it and
// exit with its status: the first stage aidex uses when its own memory
// makes a fork into the namespaces costly (see spawn).
const SpawnArg = "--spawn"

// UnshareEnv is the environment variable with which aidex asks the helper
// binary to create its namespaces itself ("net-off": user, mount, PID, IPC
// and network namespaces; "net-on": all but the network one) before its Go
// runtime starts, as NamespaceAttr would have aidex create them. Only the
// helper built with cgo on Linux can (cmd/aidex-sandbox's C part); the
// command never sees the variable (CommandEnv drops it).
const UnshareEnv = "AIDEX_SANDBOX_UNSHARE"

// SpareArg makes Main run as a spare (spare_linux.go): a helper aidex
// starts ahead of the next command, which sets the namespaces' mounts up
// and then waits for one command to be handed to it. It is followed by
// the identities of the spec's paths as aidex saw them (Identities) and
// the spec's flags (EncodeConfig).
const SpareArg = "--spare"

// AttachEnv is the environment variable with which aidex asks the helper
// binary's C part to hand its command to a spare instead of setting the
// sandbox up itself: its value is the number of the file descriptor that
// connects it to the spare. When the spare cannot take the command, the
// helper sets the sandbox up itself as without it (cold). The command
// never sees the variable (CommandEnv drops it).
const AttachEnv = "AIDEX_SANDBOX_ATTACH"

// SpareFD is the file descriptor on which a spare waits for its command
// (aidex starts it with one end of a socket pair there).
const SpareFD = 3

// ConnectArg makes Main dial the TCP address that follows and exit 0 when
// it connects (the self-test's network probe).
const ConnectArg = "--connect"

// DialUnixArg makes Main wait (up to 3 s) for the Unix socket path that
// follows to appear, dial it as a stream socket and exit 0 when it
// connects ("@name" is an abstract socket, dialled at once): the escape
// suite's probe of host sockets made after the command started.
const DialUnixArg = "--dial-unix"

// ExitSetup is the exit status of the helper when the sandbox could not
// be set up; its message on stderr starts with Prefix.
const ExitSetup = 125

// Prefix starts every message the helper writes on stderr.
const Prefix = "aidex-sandbox: "

// Spec is what the helper does before it execs the command. Paths are
// absolute; missing paths are skipped.
type Spec struct {
	// Namespaces: the helper runs in new user and mount namespaces and
	// applies the mount plan (read-only root, writable binds, protected
	// and masked paths). Without it only Landlock applies.
	Namespaces bool
	// Loopback: the helper is in a new network namespace and brings its
	// loopback interface up.
	Loopback bool
	// NetOff: the network is off (Landlock also scopes abstract Unix
	// sockets, and without namespaces denies TCP bind and connect).
	NetOff bool
	// Writable are the folders the command may write.
	Writable []string
	// Protected are paths inside writable folders kept read-only.
	Protected []string
	// MaskDirs are folders replaced by an empty read-only folder.
	MaskDirs []string
	// MaskFiles are files (or sockets) replaced by an empty device.
	MaskFiles []string
	// GoMaxProcs is the command's own GOMAXPROCS setting (""= none): aidex
	// starts the helper with GOMAXPROCS=1 (the Go runtime then starts fewer
	// threads) and the helper gives the command this value back.
	GoMaxProcs string
	// Path is the program to exec; Args its argv (Args[0] its name).
	Path string
	Args []string
}

// Encode returns the helper's arguments for s (without the program name
// or Arg).
func (s Spec) Encode() []string {
	a := s.EncodeConfig()
	if s.GoMaxProcs != "" {
		a = append(a, "-p", s.GoMaxProcs)
	}
	a = append(a, "--", s.Path)
	return append(a, s.Args...)
}

// EncodeConfig returns the flags of Encode alone: s without its command
// (Path, Args) and without the command's own GoMaxProcs, which is all a
// spare is set up from (two commands with equal EncodeConfig run in the
// same sandbox).
func (s Spec) EncodeConfig() []string {
	var a []string
	flag := func(on bool, f string) {
		if on {
			a = append(a, f)
		}
	}
	flag(s.Namespaces, "-n")
	flag(s.Loopback, "-l")
	flag(s.NetOff, "-o")
	list := func(f string, paths []string) {
		for _, p := range paths {
			a = append(a, f, p)
		}
	}
	list("-w", s.Writable)
	list("-r", s.Protected)
	list("-d", s.MaskDirs)
	list("-f", s.MaskFiles)
	return a
}

// Parse reads the arguments Encode wrote. Errors: an unknown flag, a flag
// without its path, or no command after "--".
func Parse(args []string) (Spec, error) {
	s, rest, err := parseFlags(args)
	if err != nil {
		return s, err
	}
	if len(rest) == 0 {
		return s, errors.New("no command after --")
	}
	s.Path, s.Args = rest[0], rest[1:]
	if len(s.Args) == 0 {
		s.Args = []string{s.Path}
	}
	return s, nil
}

// ParseConfig reads the arguments EncodeConfig wrote (no "--" and no
// command). Errors: those of Parse, or a command.
func ParseConfig(args []string) (Spec, error) {
	s, rest, err := parseFlags(args)
	if err == nil && rest != nil {
		err = errors.New("a command in a spare's arguments")
	}
	return s, err
}

// parseFlags reads Encode's flags up to "--" and returns what follows it
// (nil: no "--").
func parseFlags(args []string) (Spec, []string, error) {
	var s Spec
	lists := map[string]*[]string{"-w": &s.Writable, "-r": &s.Protected, "-d": &s.MaskDirs, "-f": &s.MaskFiles}
	for i := 0; i < len(args); i++ {
		switch f := args[i]; f {
		case "-n":
			s.Namespaces = true
		case "-l":
			s.Loopback = true
		case "-o":
			s.NetOff = true
		case "-p":
			if i+1 >= len(args) || args[i+1] == "" {
				return s, nil, errors.New("bad argument " + quote(f) + " (want a GOMAXPROCS value)")
			}
			s.GoMaxProcs = args[i+1]
			i++
		case "--":
			return s, args[i+1:], nil
		default:
			l, ok := lists[f]
			if !ok || i+1 >= len(args) || !strings.HasPrefix(args[i+1], "/") {
				return s, nil, errors.New("bad argument " + quote(f) + " (the helper is started by aidex, not by hand)")
			}
			*l = append(*l, args[i+1])
			i++
		}
	}
	return s, nil, nil
}

// GoMaxProcsEnv is the environment variable aidex sets to 1 for the
// helper itself (see Spec.GoMaxProcs).
const GoMaxProcsEnv = "GOMAXPROCS"

// CommandEnv returns env (the helper's own environment) as the command
// must get it: without the helper's GOMAXPROCS, UnshareEnv and AttachEnv, with the
// command's own GoMaxProcs when it had one.
func (s Spec) CommandEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, GoMaxProcsEnv+"=") && !strings.HasPrefix(kv, UnshareEnv+"=") && !strings.HasPrefix(kv, AttachEnv+"=") {
			out = append(out, kv)
		}
	}
	if s.GoMaxProcs != "" {
		out = append(out, GoMaxProcsEnv+"="+s.GoMaxProcs)
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }
