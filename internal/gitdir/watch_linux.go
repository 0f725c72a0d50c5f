//go:build linux

package gitdir

import (
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher tells Tree which folders changed through inotify, so that
// Update costs what changed, not one stat per folder.
type watcher struct {
	fd     int
	wds    map[int32]string
	buf    []byte
	closed sync.Once // the descriptor is closed once: by stopWatching or by the Tree's cleanup
}

const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// newWatcher returns a watcher, or nil when inotify is unavailable.
func newWatcher() *watcher {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &watcher{fd: fd, wds: map[int32]string{}, buf: make([]byte, 64<<10)}
}

// add watches folder d; false when the kernel refuses (the watch limit).
func (w *watcher) add(d string) bool {
	wd, err := unix.InotifyAddWatch(w.fd, d, watchMask)
	if err != nil {
		return false
	}
	w.wds[int32(wd)] = d
	return true
}

// close closes the inotify descriptor, once: a second close would close
// whatever descriptor the number was given to since (another file of
// the process).
func (w *watcher) close() { w.closed.Do(func() { unix.Close(w.fd) }) }

// event is what drain reports: a name created in a folder, or that the
// watcher can no longer tell (overflow, a folder moved).
type event struct {
	dir, name string
	isDir     bool
}

// drain reads the pending events; lost reports that some were lost or
// that a watched folder moved (paths are stale: rescan everything).
func (w *watcher) drain() (evs []event, lost bool) {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			return evs, lost
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			raw := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameBytes := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(raw.Len)]
			off += unix.SizeofInotifyEvent + int(raw.Len)
			name := cString(nameBytes)
			dir, known := w.wds[raw.Wd]
			switch {
			case raw.Mask&unix.IN_Q_OVERFLOW != 0:
				lost = true
			case raw.Mask&unix.IN_IGNORED != 0:
				delete(w.wds, raw.Wd)
			case raw.Mask&(unix.IN_MOVE_SELF|unix.IN_DELETE_SELF) != 0:
				lost = lost || raw.Mask&unix.IN_MOVE_SELF != 0
			case raw.Mask&unix.IN_MOVED_FROM != 0 && raw.Mask&unix.IN_ISDIR != 0:
				lost = true // a watched folder's path changed
			case known && raw.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
				evs = append(evs, event{dir: dir, name: name, isDir: raw.Mask&unix.IN_ISDIR != 0})
			}
		}
	}
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// startWatcher gives t an inotify watcher (none when inotify is
// unavailable); walk then watches each folder before it reads it.
func startWatcher(t *Tree) {
	if w := newWatcher(); w != nil {
		t.w = w
		runtime.AddCleanup(t, func(w *watcher) { w.close() }, w)
	}
}

// watch watches folder d; when the kernel refuses (its limit), t falls
// back to stat walks.
func (t *Tree) watch(d string) {
	if t.w != nil && !t.w.add(d) {
		t.stopWatching()
	}
}

func (t *Tree) stopWatching() {
	if t.w != nil {
		t.w.close()
		t.w = nil
	}
}

// updateWatched is Update through the watcher; ok false when it cannot
// tell (the caller then stats every folder, and the watcher stops).
func (t *Tree) updateWatched() (added []string, ok bool) {
	if t.w == nil {
		return nil, false
	}
	evs, lost := t.w.drain()
	if lost {
		t.stopWatching()
		return nil, false
	}
	for _, e := range evs {
		if e.name == ".git" {
			if s, known := t.dirs[e.dir]; known && !s.git {
				s.git = true
				t.dirs[e.dir] = s
				added = append(added, e.dir)
			}
			continue
		}
		if p := filepath.Join(e.dir, e.name); e.isDir {
			if _, known := t.dirs[p]; !known {
				t.walk(p, &added)
			}
		}
	}
	if t.w == nil {
		return nil, false
	}
	return added, true
}
