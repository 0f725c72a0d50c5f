//go:build linux

package helper

import (
	"errors"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Main sets up the sandbox described by args (see Spec.Encode) and execs
// the command; it returns only on failure, with ExitSetup (or 126/127 when
// the command cannot be executed) after writing one line on stderr.
func Main(args []string) int { return Run(args, false) }

// Run is Main for a helper binary whose C part may have created the
// namespaces before the Go runtime started: unshared reports that it did
// (aidex asked for it with UnshareEnv). Asked to when it has no C part,
// it fails with ExitSetup rather than run outside the namespaces.
func Run(args []string, unshared bool) int {
	if !unshared && os.Getenv(UnshareEnv) != "" {
		return fail(ExitSetup, "setup", errors.New(UnshareEnv+" is set, but this helper was built without its C part (cgo)"))
	}
	if len(args) > 0 && args[0] == GoCacheProgArg {
		return GoCacheProg(args[1:])
	}
	// Capabilities are per thread: the thread that drops them must be the
	// one that execs.
	runtime.LockOSThread()
	if len(args) == 2 && args[0] == ConnectArg {
		return connect(args[1])
	}
	if len(args) == 2 && args[0] == DialUnixArg {
		return dialUnix(args[1])
	}
	sigs := catchSignals()
	if len(args) > 0 && args[0] == SpareArg {
		return spare(args[1:], unshared, sigs)
	}
	if len(args) > 0 && args[0] == SpawnArg {
		return spawn(args[1:], sigs)
	}
	s, err := Parse(args)
	if err != nil {
		return fail(ExitSetup, "usage", err)
	}
	if s.Namespaces {
		return runInit(s, sigs)
	}
	if err := Enter(s); err != nil {
		return fail(ExitSetup, "setup", err)
	}
	if code := caught(sigs); code != 0 {
		return code
	}
	err = unix.Exec(s.Path, s.Args, s.CommandEnv(os.Environ()))
	code := 126
	if errors.Is(err, unix.ENOENT) {
		code = 127
	}
	return fail(code, "exec "+s.Path, err)
}

// catchable returns the signals aidex sends a command's process group to
// end it (a cancel, a timeout: SIGTERM first) or the user's keys send it.
func catchable() []os.Signal {
	return []os.Signal{unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2}
}

// catchSignals makes the helper catch the catchable signals from now on,
// so that none ends it while it sets the sandbox up and starts the command
// (the Go runtime's default would end it with status 2). Unlike an ignored
// signal, a caught one is not inherited across exec: the command gets
// them with their default action. The helper keeps catching them while
// the command runs and drops them (they reach the command through the
// process group); one caught before the command started ends the helper
// instead of starting it (caught).
func catchSignals() chan os.Signal {
	c := make(chan os.Signal, 1)
	signal.Notify(c, catchable()...)
	return c
}

// caught returns the status to end with (128+N) when signal N was caught
// before the command started, else 0.
func caught(c chan os.Signal) int {
	select {
	case sig := <-c:
		if n, ok := sig.(unix.Signal); ok {
			return 128 + int(n)
		}
		return 128
	default:
		return 0
	}
}

func fail(code int, what string, err error) int {
	os.Stderr.WriteString(Prefix + what + ": " + err.Error() + "\n")
	return code
}

// Enter confines the calling process as s says when it runs without
// namespaces (Landlock alone): it gives up the controlling terminal,
// applies Landlock, then drops every capability and sets no_new_privs.
// The caller must have locked its goroutine to the thread that will exec.
// With s.Namespaces, Main runs the helper as the init of its own PID
// namespace instead (see runInit).
func Enter(s Spec) error {
	if s.Namespaces {
		if err := enterNamespaces(s, nil); err != nil {
			return err
		}
	}
	detachTerminal()
	if err := restrictLandlock(s); err != nil {
		return err
	}
	return dropCaps()
}

// detachTerminal gives up the controlling terminal the command would
// otherwise share with aidex (and the user's shell): with it, a command
// could push keystrokes into the terminal with TIOCSTI and run them
// outside the sandbox once aidex exits. A helper that leads its own
// session keeps its terminal: that is a pseudo-terminal aidex made for
// this command alone.
func detachTerminal() {
	if sid, err := unix.Getsid(0); err != nil || sid == unix.Getpid() {
		return
	}
	fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return // no controlling terminal
	}
	_ = unix.IoctlSetInt(fd, unix.TIOCNOTTY, 0)
	unix.Close(fd)
}

// dropCaps empties the bounding, ambient, inheritable, permitted and
// effective sets of this thread and sets no_new_privs, so that the
// command holds no capability even as root of the user namespace (it
// cannot unmount the read-only binds or masks).
func dropCaps() error {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break
			}
			if !errors.Is(err, unix.EPERM) {
				return errors.New("drop capabilities: " + err.Error())
			}
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return errors.New("drop capabilities: " + err.Error())
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("no_new_privs: " + err.Error())
	}
	return nil
}

// loopbackUp brings the new network namespace's lo interface up, so that
// servers and clients inside the sandbox reach each other.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errors.New("loopback: " + err.Error())
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return errors.New("loopback: " + err.Error())
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return errors.New("loopback: " + err.Error())
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return errors.New("loopback up: " + err.Error())
	}
	return nil
}

// connect dials the TCP address "a.b.c.d:port" and returns 0 when the
// connection is made, 1 otherwise (the self-test's network probe; no
// net package, to keep the helper small).
func connect(addr string) int {
	host, port, ok := strings.Cut(addr, ":")
	n, err := strconv.Atoi(port)
	ip := net4(host)
	if !ok || err != nil || ip == nil {
		return fail(2, "connect", errors.New("want a.b.c.d:port, got "+addr))
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(1, "connect", err)
	}
	defer unix.Close(fd)
	sa := &unix.SockaddrInet4{Port: n}
	copy(sa.Addr[:], ip)
	if err := unix.Connect(fd, sa); err != nil {
		return fail(1, "connect "+addr, err)
	}
	return 0
}

// dialUnix waits up to 3 s for the Unix socket path to exist (an
// abstract "@name" is dialled at once), dials it and returns 0 when the
// connection is made, 1 otherwise.
func dialUnix(path string) int {
	if !strings.HasPrefix(path, "@") {
		var st unix.Stat_t
		for i := 0; i < 150 && unix.Lstat(path, &st) != nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(1, "dial-unix", err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return fail(1, "dial-unix "+path, err)
	}
	return 0
}

func net4(s string) []byte {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return nil
	}
	out := make([]byte, 4)
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v > 255 {
			return nil
		}
		out[i] = byte(v)
	}
	return out
}
