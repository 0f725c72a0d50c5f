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
func mountPlan(s Spec) error {
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
		// A folder on a file system the host mounted read-only stays so.
		_ = unix.MountSetattr(-1, w, 0, rw)
	}
	for _, p := range s.Protected {
		if err := bindReadOnly(p, p); err != nil {
			return err
		}
	}
	for _, d := range s.MaskDirs {
		err := unix.Mount("aidex-mask", d, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0755")
		if err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
			return mountErr("mask", d, err)
		}
	}
	for _, f := range s.MaskFiles {
		if err := bindReadOnly("/dev/null", f); err != nil {
			return err
		}
	}
	return privateDev()
}

// bindReadOnly binds src over dst and makes that mount read-only; a
// missing dst is skipped.
func bindReadOnly(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return mountErr("bind read-only", dst, err)
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(-1, dst, 0, ro); err != nil {
		return mountErr("make read-only", dst, err)
	}
	return nil
}

func mountErr(what, path string, err error) error {
	return errors.New(what + " " + path + ": " + err.Error())
}
