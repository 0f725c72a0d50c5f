//go:build linux

package helper

import (
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// SpareIdle is how long a spare waits for its command before it exits
// without running one.
const SpareIdle = 60 * time.Second

// The wire format between the helper's C part (attach mode,
// cmd/aidex-sandbox/unshare_linux.go) and a spare, on the stream socket
// pair aidex made (SpareFD in the spare, AttachEnv in the helper). It is
// aidex's own and both ends are built from one source tree.
//
// The helper sends one request: three little-endian uint32 (the length of
// what follows them in bytes, the number of argv strings, the number of
// environment strings), then argv (its own, starting with its path), its
// environment and its working directory, each string ending in a NUL
// byte; the first bytes carry (SCM_RIGHTS) its descriptors 0, 1 and 2 and
// a pidfd of itself. The spare answers one byte: replyAttached when the
// command runs, replyCold when it will not run it (the helper then sets
// the sandbox up itself); after replyAttached, a little-endian int32, the
// command's exit status (128+N for signal N), once the command ended.
// Meanwhile each byte the helper sends is a signal number for the
// command's process group.
const (
	replyAttached = 'A'
	replyCold     = 'N'
	// maxRequest bounds a request's length (bytes): argv and environment
	// are bounded by the kernel far below it.
	maxRequest = 64 << 20
)

// Identities returns what s's paths are now (Writable, Protected,
// MaskDirs, MaskFiles, in that order): for each, the device and inode
// numbers of what it names (symbolic links followed, as mounts follow
// them) as "dev:ino" in hexadecimal, or "-" when it cannot be stat'ed,
// joined by commas. A spare set up from s holds the mounts of that
// moment: aidex hands it a command only while Identities(s) is unchanged.
func Identities(s Spec) string {
	var b []byte
	for _, list := range [...][]string{s.Writable, s.Protected, s.MaskDirs, s.MaskFiles} {
		for _, p := range list {
			if len(b) > 0 {
				b = append(b, ',')
			}
			var st unix.Stat_t
			if unix.Stat(p, &st) != nil {
				b = append(b, '-')
				continue
			}
			b = strconv.AppendUint(b, st.Dev, 16)
			b = append(b, ':')
			b = strconv.AppendUint(b, st.Ino, 16)
		}
	}
	return string(b)
}

// spare is Main for SpareArg: args are the identities aidex saw
// (Identities) and the spec's flags. In the namespaces the C part created,
// it applies the mount plan and brings the loopback up as for a command,
// then waits up to SpareIdle for one request on SpareFD and runs that
// command as runInit would, with the requesting helper's descriptors,
// environment and working directory. It ends without running anything
// when the paths changed before its mounts, when nothing comes in time or
// when the request does not match its spec or its mounts no longer hold
// (it answers replyCold: the requesting helper then starts the command
// the usual way).
func spare(args []string, unshared bool, sigs chan os.Signal) int {
	if len(args) < 1 {
		return fail(ExitSetup, "usage", errors.New("want "+SpareArg+" IDENTITIES FLAGS..."))
	}
	s, err := ParseConfig(args[1:])
	if err != nil {
		return fail(ExitSetup, "usage", err)
	}
	if !unshared || !s.Namespaces {
		return fail(ExitSetup, "setup", errors.New("a spare runs in the namespaces of the helper's C part"))
	}
	unix.CloseOnExec(SpareFD)
	if Identities(s) != args[0] {
		return ExitSetup // changed since aidex looked: aidex starts another
	}
	made := mounts{}
	if err := enterNamespaces(s, made); err != nil {
		return fail(ExitSetup, "setup", err)
	}
	// Nothing inside may read the spare's memory or its descriptors.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	req, err := awaitRequest(SpareFD, SpareIdle)
	if err != nil {
		return 0
	}
	return serveRequest(s, made, req, sigs)
}

// request is a command handed to a spare.
type request struct {
	argv, env []string
	cwd       string
	files     []int // the helper's 0, 1, 2 and its pidfd
}

// serveRequest runs req's command in the spare set up from s (made: the
// mounts it made) and returns its status. It answers replyCold and
// returns ExitSetup, without running anything, when req's spec differs
// from s, its working directory cannot be entered, or a mount of the plan
// is not where its path now leads (mounts.hold). Once
// it has answered replyAttached, a failure to start the command is
// reported as the helper would report it: a message on the command's
// stderr and the status (ExitSetup, 126, 127, or 128+N for a signal
// caught before the command started).
func serveRequest(s Spec, made mounts, req request, sigs chan os.Signal) int {
	defer func() {
		for _, fd := range req.files {
			unix.Close(fd)
		}
	}()
	if len(req.argv) < 2 || len(req.files) != 4 {
		return refuse()
	}
	c, err := Parse(req.argv[1:])
	if err != nil || !slices.Equal(c.EncodeConfig(), s.EncodeConfig()) || !made.hold() || unix.Chdir(req.cwd) != nil {
		return refuse()
	}
	if _, err := unix.Write(SpareFD, []byte{replyAttached}); err != nil {
		return 128 + int(unix.SIGKILL)
	}
	s.Path, s.Args, s.GoMaxProcs = c.Path, c.Args, c.GoMaxProcs
	stdio := []uintptr{uintptr(req.files[0]), uintptr(req.files[1]), uintptr(req.files[2])}
	code := 0
	r := startCommand(s, true, sigs, commandStart{env: s.CommandEnv(req.env), files: stdio, setpgid: true})
	switch {
	case r.err != nil:
		_, _ = unix.Write(req.files[2], []byte(Prefix+r.what+": "+r.err.Error()+"\n"))
		code = r.code
	case r.pid == 0:
		code = r.code // a signal came before the command started
	default:
		for _, fd := range req.files[:3] {
			unix.Close(fd)
		}
		pidfd := req.files[3]
		req.files = nil // the pidfd stays open for relay until the spare exits
		if r.listener >= 0 {
			go serveSocketRule(r.listener)
		}
		go relay(SpareFD, pidfd, r.pid)
		code = reap(r.pid)
	}
	var st [4]byte
	binary.LittleEndian.PutUint32(st[:], uint32(int32(code)))
	_, _ = unix.Write(SpareFD, st[:])
	return code
}

// refuse answers replyCold.
func refuse() int {
	_, _ = unix.Write(SpareFD, []byte{replyCold})
	return ExitSetup
}

// relay sends the command's process group each signal the requesting
// helper passes on (aidex signals that helper's group), and ends the
// spare, and with it every process of the command, when that helper ends
// first (aidex killed it, or aidex died).
func relay(conn, pidfd, pid int) {
	fds := []unix.PollFd{{Fd: int32(conn), Events: unix.POLLIN}, {Fd: int32(pidfd), Events: unix.POLLIN}}
	buf := make([]byte, 16)
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			os.Exit(128 + int(unix.SIGKILL))
		}
		if fds[1].Revents != 0 {
			os.Exit(128 + int(unix.SIGKILL))
		}
		if fds[0].Revents == 0 {
			continue
		}
		n, err := unix.Read(conn, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if n <= 0 {
			os.Exit(128 + int(unix.SIGKILL))
		}
		for _, b := range buf[:n] {
			_ = unix.Kill(-pid, unix.Signal(b))
		}
	}
}

// errIdle: no request came in time.
var errIdle = errors.New("no command came")

// awaitRequest waits up to idle for a request on fd and reads it.
// Errors: errIdle, a closed or failed connection, a malformed request.
func awaitRequest(fd int, idle time.Duration) (request, error) {
	var req request
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(pfd, int(idle/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return req, err
		}
		if n == 0 {
			return req, errIdle
		}
		break
	}
	// The rest of a request follows at once: a helper that stops half-way
	// (killed) must not keep the spare waiting.
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5})
	head := make([]byte, 12)
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, _, _, err := unix.Recvmsg(fd, head, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return req, err
	}
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if fds, err := unix.ParseUnixRights(&m); err == nil {
				req.files = append(req.files, fds...)
			}
		}
	}
	if n == 0 {
		return req, errors.New("connection closed")
	}
	if err := readFull(fd, head[n:]); err != nil {
		return req, err
	}
	size := binary.LittleEndian.Uint32(head[0:])
	argc := binary.LittleEndian.Uint32(head[4:])
	envc := binary.LittleEndian.Uint32(head[8:])
	if size > maxRequest {
		return req, errors.New("request too long")
	}
	body := make([]byte, size)
	if err := readFull(fd, body); err != nil {
		return req, err
	}
	req.argv, req.env, req.cwd, err = decodeRequest(argc, envc, body)
	return req, err
}

// decodeRequest splits a request's body into argc argv strings, envc
// environment strings and the working directory. Errors: a body that
// does not hold exactly that many NUL-terminated strings.
func decodeRequest(argc, envc uint32, body []byte) (argv, env []string, cwd string, err error) {
	if len(body) == 0 || body[len(body)-1] != 0 {
		return nil, nil, "", errors.New("malformed request: not NUL-terminated")
	}
	strs := strings.Split(string(body[:len(body)-1]), "\x00")
	if uint64(len(strs)) != uint64(argc)+uint64(envc)+1 {
		return nil, nil, "", errors.New("malformed request: " + strconv.Itoa(len(strs)) + " strings, want argc+envc+1")
	}
	return strs[:argc], strs[argc : argc+envc], strs[argc+envc], nil
}

// readFull reads len(b) bytes from fd. Errors: the connection's, or
// io.ErrUnexpectedEOF-like "connection closed".
func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Read(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("connection closed")
		}
		b = b[n:]
	}
	return nil
}
