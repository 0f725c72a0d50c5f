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
	var a []string
	flag := func(on bool, f string) {
		if on {
			a = append(a, f)
		}
	}
	flag(s.Namespaces, "-n")
	flag(s.Loopback, "-l")
	flag(s.NetOff, "-o")
	if s.GoMaxProcs != "" {
		a = append(a, "-p", s.GoMaxProcs)
	}
	list := func(f string, paths []string) {
		for _, p := range paths {
			a = append(a, f, p)
		}
	}
	list("-w", s.Writable)
	list("-r", s.Protected)
	list("-d", s.MaskDirs)
	list("-f", s.MaskFiles)
	a = append(a, "--", s.Path)
	return append(a, s.Args...)
}

// Parse reads the arguments Encode wrote. Errors: an unknown flag, a flag
// without its path, or no command after "--".
func Parse(args []string) (Spec, error) {
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
				return s, errors.New("bad argument " + quote(f) + " (want a GOMAXPROCS value)")
			}
			s.GoMaxProcs = args[i+1]
			i++
		case "--":
			if i+1 >= len(args) {
				return s, errors.New("no command after --")
			}
			s.Path = args[i+1]
			s.Args = args[i+2:]
			if len(s.Args) == 0 {
				s.Args = []string{s.Path}
			}
			return s, nil
		default:
			l, ok := lists[f]
			if !ok || i+1 >= len(args) || !strings.HasPrefix(args[i+1], "/") {
				return s, errors.New("bad argument " + quote(f) + " (the helper is started by aidex, not by hand)")
			}
			*l = append(*l, args[i+1])
			i++
		}
	}
	return s, errors.New("no command after --")
}

// GoMaxProcsEnv is the environment variable aidex sets to 1 for the
// helper itself (see Spec.GoMaxProcs).
const GoMaxProcsEnv = "GOMAXPROCS"

// CommandEnv returns env (the helper's own environment) as the command
// must get it: without the helper's GOMAXPROCS and UnshareEnv, with the
// command's own GoMaxProcs when it had one.
func (s Spec) CommandEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, GoMaxProcsEnv+"=") && !strings.HasPrefix(kv, UnshareEnv+"=") {
			out = append(out, kv)
		}
	}
	if s.GoMaxProcs != "" {
		out = append(out, GoMaxProcsEnv+"="+s.GoMaxProcs)
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }
