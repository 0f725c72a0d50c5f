//go:build linux

package helper

import (
	"errors"

	"golang.org/x/sys/unix"
)

// mountPlan makes the whole filesystem read-only, binds the writable
// folders writable over themselves, binds the protected paths read-only
// over themselves, masks the masked paths and gives the command a /proc
// of its own PID namespace and a /dev of its own (privateDev). It runs in
// a fresh mount namespace owned by the helper's user namespace, so
// nothing is visible outside.
//
// When m is not nil, it records the mount each path of the plan got
// (mounts.note): a spare checks them before it takes a command.
func mountPlan(s Spec, m mounts) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return mountErr("make / private", "/", err)
	}
	privateProc()
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(-1, "/", unix.AT_RECURSIVE, ro); err != nil {
		return mountErr("make the filesystem read-only (mount_setattr needs Linux 5.12)", "/", err)
	}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	for _, w := range s.Writable {
		if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return mountErr("bind writable", w, err)
		}
		m.note(w)
		// A folder on a file system the host mounted read-only stays so.
		_ = unix.MountSetattr(-1, w, 0, rw)
	}
	for _, p := range s.Protected {
		if err := bindReadOnly(p, p, m); err != nil {
			return err
		}
	}
	if err := maskDirs(s.MaskDirs, m); err != nil {
		return err
	}
	for _, f := range s.MaskFiles {
		if err := bindReadOnly("/dev/null", f, m); err != nil {
			return err
		}
	}
	m.settle()
	return privateDev()
}

// maskDirs covers each folder of dirs with an empty read-only tmpfs,
// noting it in m; a folder that is missing (or hidden by an earlier
// mask) or not a folder is skipped.
func maskDirs(dirs []string, m mounts) error {
	for _, d := range dirs {
		err := unix.Mount("aidex-mask", d, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0755")
		switch {
		case err == nil:
			m.note(d)
		case !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR):
			return mountErr("mask", d, err)
		}
	}
	return nil
}

// bindReadOnly binds src over dst and makes that mount read-only, noting
// it in m; a missing dst is skipped.
func bindReadOnly(src, dst string, m mounts) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return mountErr("bind read-only", dst, err)
	}
	m.note(dst)
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(-1, dst, 0, ro); err != nil {
		return mountErr("make read-only", dst, err)
	}
	return nil
}

// mounts maps each path of a spare's plan that got a mount to the id of
// the mount it leads to once the whole plan is mounted (a later bind of a
// folder above it, recursive, leads it to a copy of its mount); 0: it did
// not lead to the root of a mount then (a command moved something in its
// way).
type mounts map[string]uint64

// note records that path got a mount (nothing when m is nil); settle
// records which.
func (m mounts) note(path string) {
	if m != nil {
		m[path] = 0
	}
}

// settle records the mount each noted path leads to now.
func (m mounts) settle() {
	for p := range m {
		m[p], _ = mountRoot(p)
	}
}

// hold reports whether every path still leads to the root of the mount
// it got. A command running while the spare mounted could have moved a
// folder above a protected path away and back (a nested repository's
// folder is not itself a mount in that command's sandbox): the read-only
// bind would then sit on the folder moved away, and the path the next
// command writes would not be protected.
func (m mounts) hold() bool {
	for p, id := range m {
		if got, ok := mountRoot(p); !ok || id == 0 || got != id {
			return false
		}
	}
	return true
}

// mountRoot returns the id of the mount whose root path leads to, or
// false when path is not the root of a mount (or statx cannot say:
// Linux before 5.8).
func mountRoot(path string) (uint64, bool) {
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_MNT_ID, &st) != nil || st.Mask&unix.STATX_MNT_ID == 0 {
		return 0, false
	}
	if st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT == 0 || st.Attributes&unix.STATX_ATTR_MOUNT_ROOT == 0 {
		return 0, false
	}
	return st.Mnt_id, true
}

func mountErr(what, path string, err error) error {
	return errors.New(what + " " + path + ": " + err.Error())
}
