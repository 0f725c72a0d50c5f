//go:build linux

package helper

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The socket rule (network off): a command reaches no Unix socket but
// those its own sandbox created, whatever their path or when they were
// made. A seccomp filter on the command
//   - hands every connect(2) to the helper (SECCOMP_RET_USER_NOTIF),
//     which copies the address once, connects the command's socket
//     itself and refuses (EACCES) a path whose socket is not bound by a
//     socket of the sandbox's network namespace (serveSocketRule);
//   - refuses Unix datagram sockets (socket and socketpair of AF_UNIX
//     other than SOCK_STREAM and SOCK_SEQPACKET): a datagram socket names
//     its destination in every sendto/sendmsg, which a filter cannot
//     read. Stream and seqpacket sockets ignore or refuse an address
//     there, so connect is their only way to a peer;
//   - refuses io_uring (its operations bypass seccomp), the x32 ABI, and
//     the socket calls of the 32-bit compat architecture.
// Abstract sockets belong to the network namespace (and Landlock ABI 6
// scopes them too); TCP and UDP reach only the sandbox's own loopback.

// filterInsn is one instruction of the filter with symbolic jumps.
type filterInsn struct {
	code   uint16
	k      uint32
	jt, jf string // labels (""= next instruction)
	label  string // a label naming this instruction
}

// socketFilter returns the filter program.
func socketFilter() ([]unix.SockFilter, error) {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		and  = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		// seccomp_data offsets (little-endian: an argument's low word first)
		offNr, offArch, offArg0, offArg1 = 0, 4, 16, 24
	)
	if nativeArch == 0 {
		return nil, errors.New("the Unix socket rule is built for amd64 and arm64 only")
	}
	p := []filterInsn{
		{code: ld, k: offArch},
		{code: jeq, k: nativeArch, jt: "native"},
		{code: jeq, k: compatArch, jf: "nosys"},
		{code: ld, k: offNr},
	}
	for _, nr := range compatDenied {
		p = append(p, filterInsn{code: jeq, k: nr, jt: "eacces"})
	}
	p = append(p, filterInsn{code: ret, k: unix.SECCOMP_RET_ALLOW},
		filterInsn{label: "native", code: ld, k: offNr})
	if x32Bit != 0 {
		p = append(p, filterInsn{code: jset, k: x32Bit, jt: "nosys"})
	}
	p = append(p,
		filterInsn{code: jeq, k: unix.SYS_CONNECT, jt: "notify"},
		filterInsn{code: jeq, k: unix.SYS_SOCKET, jt: "socket"},
		filterInsn{code: jeq, k: unix.SYS_SOCKETPAIR, jt: "socket"},
		filterInsn{code: jeq, k: unix.SYS_IO_URING_SETUP, jt: "nosys"},
		filterInsn{code: jeq, k: unix.SYS_IO_URING_ENTER, jt: "nosys"},
		filterInsn{code: jeq, k: unix.SYS_IO_URING_REGISTER, jt: "nosys"},
		filterInsn{code: ret, k: unix.SECCOMP_RET_ALLOW},
		filterInsn{label: "socket", code: ld, k: offArg0},
		filterInsn{code: jeq, k: unix.AF_UNIX, jf: "allow"},
		filterInsn{code: ld, k: offArg1},
		filterInsn{code: and, k: 0xf}, // SOCK_TYPE_MASK: drop SOCK_NONBLOCK, SOCK_CLOEXEC
		filterInsn{code: jeq, k: unix.SOCK_STREAM, jt: "allow"},
		filterInsn{code: jeq, k: unix.SOCK_SEQPACKET, jt: "allow"},
		filterInsn{label: "eacces", code: ret, k: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)},
		filterInsn{label: "allow", code: ret, k: unix.SECCOMP_RET_ALLOW},
		filterInsn{label: "notify", code: ret, k: unix.SECCOMP_RET_USER_NOTIF},
		filterInsn{label: "nosys", code: ret, k: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	)
	return assemble(p)
}

// assemble resolves the labels of p into the jump offsets of a program.
func assemble(p []filterInsn) ([]unix.SockFilter, error) {
	labels := map[string]int{}
	for i, in := range p {
		if in.label != "" {
			labels[in.label] = i
		}
	}
	out := make([]unix.SockFilter, len(p))
	for i, in := range p {
		out[i] = unix.SockFilter{Code: in.code, K: in.k}
		for _, j := range []struct {
			label string
			dst   *uint8
		}{{in.jt, &out[i].Jt}, {in.jf, &out[i].Jf}} {
			if j.label == "" {
				continue
			}
			off := labels[j.label] - i - 1
			if off < 0 || off > 255 {
				return nil, errors.New("socket filter: bad jump to " + j.label)
			}
			*j.dst = uint8(off)
		}
	}
	return out, nil
}

// installSocketFilter installs socketFilter on the calling thread (which
// must have no_new_privs set) and returns the listener the helper reads
// the filter's connect calls from. A command's non-fatal signals do not
// interrupt a connect the helper is answering (Linux 5.19), so that a
// connect is never done twice.
func installSocketFilter() (int, error) {
	prog, err := socketFilter()
	if err != nil {
		return -1, err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	flags := uintptr(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	for {
		fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
		if errno == unix.EINVAL && flags&unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV != 0 {
			flags &^= unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV // before Linux 5.19
			continue
		}
		if errno != 0 {
			return -1, errors.New("socket filter (seccomp): " + errno.Error())
		}
		return int(fd), nil
	}
}
