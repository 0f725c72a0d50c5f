//go:build linux

package helper

import "golang.org/x/sys/unix"

// nativeArch is the seccomp architecture of this build.
const nativeArch = unix.AUDIT_ARCH_X86_64

// compatArch is the other architecture whose system calls this kernel
// runs for a process (32-bit x86), and compatDenied its socket calls and
// io_uring, which the filter refuses outright: the rule is kept for
// native calls only.
const compatArch = unix.AUDIT_ARCH_I386

// x32Bit marks the x32 ABI's system calls, refused as a whole.
const x32Bit = 0x40000000

var compatDenied = []uint32{
	102,           // socketcall
	359,           // socket
	360,           // socketpair
	362,           // connect
	369,           // sendto
	370,           // sendmsg
	345,           // sendmmsg
	425, 426, 427, // io_uring_setup, _enter, _register
}
