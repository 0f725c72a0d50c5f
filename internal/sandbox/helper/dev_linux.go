//go:build linux

package helper

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// devNodes are the only host devices a command sees: no terminal of the
// user's (ttys, consoles, the user's pseudo-terminals), no disk, no
// hardware. /dev/tty stays: it names the opener's own controlling
// terminal, which a command has only when aidex gave it one of its own.
var devNodes = [...]string{"null", "zero", "full", "random", "urandom", "tty"}

// devLinks are the symbolic links of a usual /dev.
var devLinks = [...][2]string{
	{"ptmx", "pts/ptmx"}, {"fd", "/proc/self/fd"},
	{"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
}

// privateProc mounts a /proc of the helper's PID namespace over the
// host's, so that a command sees only the processes of its sandbox (not
// the user's other processes and their command lines). A kernel that
// refuses (a host /proc partly covered, as in some containers) leaves the
// host's /proc; the PID namespace still ends every process with the
// command, and Landlock still keeps other processes' memory and
// environment out of reach.
func privateProc() {
	_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
}

// privateDev covers /dev with a small read-only tmpfs holding devNodes
// (bound from the host), a new devpts instance (the command can open
// pseudo-terminals of its own, and sees none of the user's), a private
// /dev/shm and the usual links. The host's /dev/mqueue is not there
// (mq_open reaches the IPC namespace's own queues without a mount).
func privateDev() error {
	// Keep the host's devices at hand before /dev is covered.
	var fds [len(devNodes)]int
	for i, n := range devNodes {
		fds[i] = -1
		if fd, err := unix.Open("/dev/"+n, unix.O_PATH|unix.O_CLOEXEC, 0); err == nil {
			fds[i] = fd
			defer unix.Close(fd)
		}
	}
	if err := unix.Mount("aidex-dev", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64"); err != nil {
		return mountErr("private /dev", "/dev", err)
	}
	for i, n := range devNodes {
		if fds[i] < 0 {
			continue
		}
		p := "/dev/" + n
		fd, err := unix.Open(p, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return mountErr("create", p, err)
		}
		unix.Close(fd)
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fds[i]), p, "", unix.MS_BIND, ""); err != nil {
			return mountErr("bind", p, err)
		}
	}
	for _, d := range [...]string{"pts", "shm"} {
		if err := unix.Mkdir("/dev/"+d, 0o755); err != nil {
			return mountErr("create", "/dev/"+d, err)
		}
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return mountErr("private devpts", "/dev/pts", err)
	}
	if err := unix.Mount("aidex-shm", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return mountErr("private /dev/shm", "/dev/shm", err)
	}
	for _, l := range devLinks {
		if err := unix.Symlink(l[1], "/dev/"+l[0]); err != nil {
			return mountErr("link", "/dev/"+l[0], err)
		}
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(-1, "/dev", 0, ro); err != nil {
		return mountErr("make read-only", "/dev", err)
	}
	return nil
}
