//go:build linux

package helper

import "golang.org/x/sys/unix"

// nativeArch is the seccomp architecture of this build.
const nativeArch = unix.AUDIT_ARCH_AARCH64

// compatArch is the other architecture whose system calls this kernel
// runs for a process (32-bit ARM), and compatDenied its socket calls and
// io_uring, which the filter refuses outright.
const compatArch = unix.AUDIT_ARCH_ARM

// x32Bit is unused on arm64.
const x32Bit = 0

var compatDenied = []uint32{
	281,           // socket
	288,           // socketpair
	283,           // connect
	290,           // sendto
	296,           // sendmsg
	374,           // sendmmsg
	425, 426, 427, // io_uring_setup, _enter, _register
}
