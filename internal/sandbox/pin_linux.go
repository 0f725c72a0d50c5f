//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A pin holds a git dir by an O_PATH descriptor for the length of one
// command, so that the check after it finds the folder wherever the
// command moved it. With Landlock alone no bind pins the git dir: a
// command may rename it and put another in its place, whose config and
// hooks the user's git would then read.
type pin struct {
	path     string
	fd       int
	dev, ino uint64
}

// newPin pins the folder at p (nil when p is not a folder).
func newPin(p string) *pin {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil
	}
	return &pin{path: p, fd: fd, dev: st.Dev, ino: st.Ino}
}

func (p *pin) close() { unix.Close(p.fd) }

// holds reports whether p's path is still the pinned folder.
func (p *pin) holds() bool {
	var st unix.Stat_t
	return unix.Lstat(p.path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Dev == p.dev && st.Ino == p.ino
}

// restore puts the pinned folder back at its path, removing what the
// command put there (when the command deleted the folder: only removing
// its replacement); it returns a line naming what it did.
func (p *pin) restore() string {
	cur, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(p.fd))
	if err != nil || strings.HasSuffix(cur, " (deleted)") || !filepath.IsAbs(cur) {
		if _, err := os.Lstat(p.path); err != nil {
			return ""
		}
		if err := os.RemoveAll(p.path); err != nil {
			return "could not remove " + p.path + ", which the command put in place of the git dir it deleted: " + err.Error()
		}
		return "removed " + p.path + ", which the command put in place of the git dir it deleted (git would read its config and hooks)"
	}
	// Move the git dir aside first: the command may have moved it into
	// what it put in its place.
	aside := filepath.Join(filepath.Dir(p.path), ".aidex-restore-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := os.Rename(cur, aside); err != nil {
		return "could not put the git dir " + cur + " back at " + p.path + ": " + err.Error()
	}
	if err := os.RemoveAll(p.path); err != nil {
		return "could not remove " + p.path + ", which the command put in place of the git dir (now " + aside + "): " + err.Error()
	}
	if err := os.Rename(aside, p.path); err != nil {
		return "could not put the git dir " + aside + " back at " + p.path + ": " + err.Error()
	}
	return "put the git dir back at " + p.path + ": the command had moved it to " + cur + " and put another in its place (git would read its config and hooks)"
}

// listing returns the sorted names in folder d; ok false when d cannot be
// read. It reads the folder with plain system calls (os.Open would also
// try to register the descriptor with Go's poller): the check around each
// command lists every git dir.
func listing(d string) ([]string, bool) {
	fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	n := []string{}
	buf := make([]byte, 8<<10)
	for {
		k, err := unix.ReadDirent(fd, buf)
		if err != nil {
			return nil, false
		}
		if k <= 0 {
			break
		}
		_, _, n = unix.ParseDirent(buf[:k], -1, n)
	}
	slices.Sort(n)
	return n, true
}
