//go:build linux

package helper

import (
	"encoding/binary"
	"errors"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// serveSocketRule answers the socket filter's connect calls until the
// listener fails (the helper exits with the command). Each call is
// answered in its own goroutine: a connect may block.
//
// The listener waits in Go's network poller (it is pollable), so that no
// thread of the helper sits blocked in it.
func serveSocketRule(listener int) {
	if err := unix.SetNonblock(listener, true); err != nil {
		return
	}
	f := os.NewFile(uintptr(listener), "seccomp-listener")
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	for {
		var n seccompNotif
		var recvErr error
		err := rc.Read(func(fd uintptr) bool {
			pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if k, _ := unix.Poll(pfd, 0); k == 0 {
				return false // nothing yet: wait for the poller
			}
			if pfd[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 && pfd[0].Revents&unix.POLLIN == 0 {
				recvErr = unix.EBADF
				return true
			}
			recvErr = notifIoctl(int(fd), unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n))
			return true
		})
		if err != nil {
			return
		}
		if recvErr != nil {
			if errors.Is(recvErr, unix.EINTR) || errors.Is(recvErr, unix.ENOENT) {
				continue // a signal here, or the caller died before we read it
			}
			return
		}
		go func() {
			val, errno := emulateConnect(listener, &n)
			resp := seccompNotifResp{id: n.id, val: val, error: -int32(errno)}
			_ = rc.Control(func(fd uintptr) {
				_ = notifIoctl(int(fd), unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
			})
		}()
	}
}

func notifIoctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// emulateConnect does the command's connect(fd, addr, len) in the
// helper: it copies the address out of the command's memory once, takes
// a duplicate of the command's socket, and connects it. For a Unix socket
// path it opens the path as the command would (from its working
// directory) and connects through that very file, after checking that a
// socket of this sandbox's network namespace is bound to it (EACCES
// otherwise): what was checked is what is connected, whatever the command
// changes meanwhile.
func emulateConnect(listener int, n *seccompNotif) (int64, unix.Errno) {
	pid := int(n.pid)
	size := n.args[2]
	if size > 128 { // sizeof(struct sockaddr_storage)
		return -1, unix.EINVAL
	}
	addr := make([]byte, size)
	if size > 0 {
		local := []unix.Iovec{{Base: &addr[0], Len: size}}
		remote := []unix.RemoteIovec{{Base: uintptr(n.args[1]), Len: int(size)}}
		if got, err := unix.ProcessVMReadv(pid, local, remote, 0); err != nil || uint64(got) != size {
			return -1, unix.EFAULT
		}
	}
	sock, errno := commandFD(pid, int(n.args[0]))
	if errno != 0 {
		return -1, errno
	}
	defer unix.Close(sock)
	var target int = -1
	if size > 2 && binary.NativeEndian.Uint16(addr) == unix.AF_UNIX && addr[2] != 0 {
		path := addr[2:]
		for i, c := range path {
			if c == 0 {
				path = path[:i]
				break
			}
		}
		fd, errno := openAsCommand(pid, string(path))
		if errno != 0 {
			return -1, errno
		}
		defer unix.Close(fd)
		if !sandboxSocket(fd) {
			return -1, unix.EACCES
		}
		target = fd
	}
	// The command must still be in this very call: its pid (and so the
	// memory and files read above) cannot have been reused.
	id := n.id
	if notifIoctl(listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) != nil {
		return -1, unix.EINTR
	}
	if target >= 0 {
		var sa [unix.SizeofSockaddrUnix]byte
		binary.NativeEndian.PutUint16(sa[:], unix.AF_UNIX)
		name := copy(sa[2:], "/proc/self/fd/"+strconv.Itoa(target))
		return rawConnect(sock, sa[:2+name+1])
	}
	return rawConnect(sock, addr)
}

func rawConnect(fd int, addr []byte) (int64, unix.Errno) {
	var p unsafe.Pointer
	if len(addr) > 0 {
		p = unsafe.Pointer(&addr[0])
	}
	_, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(p), uintptr(len(addr)))
	if errno != 0 {
		return -1, errno
	}
	return 0, 0
}

// commandFD returns a duplicate of descriptor fd of thread tid.
func commandFD(tid, fd int) (int, unix.Errno) {
	pidfd, err := unix.PidfdOpen(tid, 0)
	if err != nil { // a thread that does not lead its process
		pidfd, err = unix.PidfdOpen(tid, unix.PIDFD_THREAD)
	}
	if err != nil {
		return -1, unix.ESRCH
	}
	defer unix.Close(pidfd)
	dup, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) && errno == unix.EBADF {
			return -1, unix.EBADF
		}
		return -1, unix.EPERM
	}
	return dup, 0
}

// openAsCommand opens path (O_PATH, following links as connect does) as
// thread tid would: a relative path from its working directory, an
// absolute one from its root.
func openAsCommand(tid int, path string) (int, unix.Errno) {
	base := "/proc/" + strconv.Itoa(tid) + "/cwd"
	if path[0] == '/' {
		base = "/proc/" + strconv.Itoa(tid) + "/root"
		path = "." + path
	}
	dir, err := unix.Open(base, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, unix.EACCES
	}
	defer unix.Close(dir)
	fd, err := unix.Openat(dir, path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			return -1, errno
		}
		return -1, unix.ENOENT
	}
	return fd, 0
}

// sandboxSocket reports whether the file fd is a socket that a socket of
// the helper's network namespace (the sandbox's) is bound to, asking the
// kernel for the namespace's listening Unix sockets and the files they
// are bound to (sock_diag, UDIAG_SHOW_VFS). A file that is not a socket
// passes: connecting to it fails anyway.
func sandboxSocket(fd int) bool {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return true
	}
	// The kernel's own dev_t encoding, as sock_diag reports it.
	dev := uint32(unix.Major(st.Dev))<<20 | uint32(unix.Minor(st.Dev))
	found := false
	err := unixDiagListeners(func(vfsDev, vfsIno uint32) {
		if vfsDev == dev && vfsIno == uint32(st.Ino) {
			found = true
		}
	})
	return err == nil && found
}

// unixDiagListeners calls f with the device and inode of the file each
// listening Unix socket of this network namespace is bound to.
func unixDiagListeners(f func(dev, ino uint32)) error {
	s, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	const (
		udiagShowVFS = 0x2
		tcpListen    = 10
		hdrLen       = unix.SizeofNlMsghdr
		reqLen       = 24 // struct unix_diag_req
		msgLen       = 16 // struct unix_diag_msg
	)
	req := make([]byte, hdrLen+reqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], 1)
	req[hdrLen] = unix.AF_UNIX
	ne.PutUint32(req[hdrLen+4:], 1<<tcpListen)
	ne.PutUint32(req[hdrLen+12:], udiagShowVFS)
	if err := unix.Sendto(s, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 32<<10)
	for {
		n, _, err := unix.Recvfrom(s, buf, 0)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err
		}
		for b := buf[:n]; len(b) >= hdrLen; {
			l, typ := int(ne.Uint32(b)), ne.Uint16(b[4:])
			if l < hdrLen || l > len(b) {
				return errors.New("sock_diag: short message")
			}
			switch typ {
			case unix.NLMSG_DONE:
				return nil
			case unix.NLMSG_ERROR:
				return errors.New("sock_diag: error")
			}
			if data := b[hdrLen:l]; len(data) >= msgLen {
				vfsAttrs(data[msgLen:], f)
			}
			b = b[min((l+3)&^3, len(b)):]
		}
	}
}

// vfsAttrs calls f with the UNIX_DIAG_VFS attribute among attrs.
func vfsAttrs(a []byte, f func(dev, ino uint32)) {
	const unixDiagVFS = 1
	ne := binary.NativeEndian
	for len(a) >= 4 {
		l, typ := int(ne.Uint16(a)), ne.Uint16(a[2:])
		if l < 4 || l > len(a) {
			return
		}
		if typ == unixDiagVFS && l >= 12 {
			f(ne.Uint32(a[8:]), ne.Uint32(a[4:]))
		}
		a = a[min((l+3)&^3, len(a)):]
	}
}
