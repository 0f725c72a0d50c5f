//go:build linux

package helper

import (
	"errors"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper calls the Landlock system calls through x/sys/unix rather
// than go-landlock (which the parent uses to probe the ABI): go-landlock's
// syscall package links psx, which with cgo makes the binary dynamically
// linked and adds about a millisecond to every command. The helper
// restricts only its own (locked) thread, which then execs; the other
// threads are the Go runtime's and end at the exec, so no all-threads
// machinery is needed. The constants are the kernel's
// (include/uapi/linux/landlock.h), as go-landlock names them.
const (
	accessFSExecute = 1 << iota
	accessFSWriteFile
	accessFSReadFile
	accessFSReadDir
	accessFSRemoveDir
	accessFSRemoveFile
	accessFSMakeChar
	accessFSMakeDir
	accessFSMakeReg
	accessFSMakeSock
	accessFSMakeFifo
	accessFSMakeBlock
	accessFSMakeSym
	accessFSRefer
	accessFSTruncate
	accessFSIoctlDev
	accessFSResolveUnix
)

const (
	accessNetBindTCP = 1 << iota
	accessNetConnectTCP
	accessNetBindUDP
	accessNetConnectSendUDP
)

const (
	scopeAbstractUnixSocket = 1 << iota
	scopeSignal
)

const (
	createRulesetVersion = 1 << 0 // landlock_create_ruleset flag: return the ABI version
	ruleTypePathBeneath  = 1
)

// rulesetAttr is struct landlock_ruleset_attr (ABI 6 layout).
type rulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

// pathBeneathAttr is struct landlock_path_beneath_attr (packed).
type pathBeneathAttr struct {
	allowedAccess uint64
	parentFd      int32
}

// ABIVersion returns the kernel's Landlock ABI version (0: none), asked
// with the raw system call.
func ABIVersion() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, createRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// The rights aidex grants.
const (
	fsRead     = accessFSExecute | accessFSReadFile | accessFSReadDir
	fsWriteDir = accessFSWriteFile | accessFSRemoveDir | accessFSRemoveFile | accessFSMakeChar |
		accessFSMakeDir | accessFSMakeReg | accessFSMakeSock | accessFSMakeFifo |
		accessFSMakeBlock | accessFSMakeSym | accessFSRefer | accessFSTruncate
	fsFileRW = accessFSReadFile | accessFSWriteFile | accessFSTruncate | accessFSIoctlDev
)

// handled returns the rights ABI version abi knows: file system, network
// and scopes.
func handled(abi int) (fs, net, scoped uint64) {
	fs = 1<<13 - 1 // V1: execute .. make_sym
	if abi >= 2 {
		fs |= accessFSRefer
	}
	if abi >= 3 {
		fs |= accessFSTruncate
	}
	if abi >= 4 {
		net = accessNetBindTCP | accessNetConnectTCP
	}
	if abi >= 5 {
		fs |= accessFSIoctlDev
	}
	if abi >= 6 {
		scoped = scopeAbstractUnixSocket | scopeSignal
	}
	if abi >= 9 {
		fs |= accessFSResolveUnix
	}
	if abi >= 10 {
		net |= accessNetBindUDP | accessNetConnectSendUDP
	}
	return fs, net, scoped
}

// pathRule is one Landlock rule: rights beneath a path. An optional
// rule whose path cannot be opened is skipped.
type pathRule struct {
	path     string
	access   uint64
	optional bool
}

// readRules grants access beneath "/" except beneath the masked paths.
// Landlock is an allow-list and cannot carve a hole, so it grants each
// sibling along the masked paths' ancestors instead, and only listing on
// the ancestors themselves (names in them stay visible; an entry created
// later directly in an ancestor is not readable).
func readRules(masks []string, access uint64) []pathRule {
	masked, ancestors := map[string]bool{}, map[string]bool{}
	for _, m := range masks {
		if r, err := filepath.EvalSymlinks(m); err == nil {
			m = r
		}
		masked[m] = true
		for a := filepath.Dir(m); !ancestors[a]; a = filepath.Dir(a) {
			ancestors[a] = true
			if a == "/" {
				break
			}
		}
	}
	if len(masked) == 0 {
		return []pathRule{{path: "/", access: access}}
	}
	var rules []pathRule
	var walk func(dir string)
	walk = func(dir string) {
		rules = append(rules, pathRule{path: dir, access: accessFSReadDir, optional: true})
		d, err := os.Open(dir)
		if err != nil {
			return
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			p := filepath.Join(dir, n)
			switch {
			case masked[p]:
			case ancestors[p]:
				walk(p)
			default:
				rules = append(rules, pathRule{path: p, access: access, optional: true})
			}
		}
	}
	walk("/")
	return rules
}

// restrictLandlock applies Landlock as a second layer on this thread:
// reads anywhere, writes only beneath the writable folders and a few
// devices, signals only within the sandbox, and with the network off
// neither abstract Unix sockets outside it nor (ABI 9) host Unix socket
// paths; without namespaces and with the network off, no TCP (ABI 4) or
// UDP (ABI 10) either. Best effort: each ABI restricts what it knows;
// without namespaces Landlock is required.
func restrictLandlock(s Spec) error {
	abi := ABIVersion()
	if abi < 1 {
		if !s.Namespaces {
			return errors.New("Landlock is unavailable and so are namespaces: nothing can confine the command")
		}
		return nil
	}
	fs, net, scoped := handled(abi)
	attr := rulesetAttr{handledAccessFS: fs, scoped: scoped &^ scopeAbstractUnixSocket}
	unixRight := uint64(accessFSResolveUnix)
	if s.NetOff {
		attr.scoped = scoped
		unixRight = 0
		if !s.Namespaces {
			attr.handledAccessNet = net
		}
	}
	rules := []pathRule{{path: "/", access: fsRead | unixRight}}
	if !s.Namespaces {
		// No mounts can hide the credentials: leave them out of the reads.
		rules = readRules(append(append([]string{}, s.MaskDirs...), s.MaskFiles...), fsRead|unixRight)
	}
	if s.Namespaces {
		// The /dev of the mount plan holds devNodes, a devpts of the
		// sandbox's own and /dev/shm only (privateDev): one rule covers
		// them.
		rules = append(rules, pathRule{path: "/dev", access: fsFileRW})
	} else {
		rules = append(rules, pathRule{path: "/dev/pts", access: fsFileRW})
		for _, d := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/random", "/dev/urandom"} {
			rules = append(rules, pathRule{path: d, access: fsFileRW})
		}
	}
	rules = append(rules, pathRule{path: "/dev/shm", access: fsRead | fsWriteDir})
	for _, w := range s.Writable {
		rules = append(rules, pathRule{path: w, access: fsRead | fsWriteDir | accessFSIoctlDev | unixRight})
	}
	size := unsafe.Sizeof(attr)
	if abi < 6 {
		size = unsafe.Offsetof(attr.scoped) // older kernels reject fields they do not know
	}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return errors.New("landlock: create ruleset: " + errno.Error())
	}
	fd := int(r)
	defer unix.Close(fd)
	for _, r := range rules {
		if err := addRule(fd, r, fs); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("no_new_privs: " + err.Error())
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); errno != 0 {
		return errors.New("landlock: restrict: " + errno.Error())
	}
	return nil
}

// addRule adds r to the ruleset, limited to the handled rights (and to
// file rights when r.path is not a folder); a missing path is skipped.
func addRule(fd int, r pathRule, fs uint64) error {
	pfd, err := unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if r.optional || errors.Is(err, unix.ENOENT) {
			return nil
		}
		return errors.New("landlock: open " + r.path + ": " + err.Error())
	}
	defer unix.Close(pfd)
	access := r.access & fs
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= accessFSExecute | accessFSWriteFile | accessFSReadFile | accessFSTruncate | accessFSIoctlDev
	}
	if access == 0 {
		return nil
	}
	attr := pathBeneathAttr{allowedAccess: access, parentFd: int32(pfd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), ruleTypePathBeneath, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return errors.New("landlock: rule for " + r.path + ": " + errno.Error())
	}
	return nil
}
