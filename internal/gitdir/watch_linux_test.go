//go:build linux

package gitdir

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A tree that stopped watching (a watched folder moved) closed its
// inotify descriptor; when the tree is collected later its cleanup must
// not close that number again: by then it may be another file's (the
// sandbox test that renames .git saw os.RemoveAll fail with "bad file
// descriptor").
func TestStoppedWatcherClosesOnce(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr := ScanTree(root, 100)
	if tr.w == nil {
		t.Skip("inotify is unavailable")
	}
	old := tr.w.fd
	tr.stopWatching()
	// The lowest free number is reused: hold it with a file of our own.
	f, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr = nil
	for range 20 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0); err != nil {
		t.Fatalf("the tree's cleanup closed descriptor %d (was its watcher's %d), which another file holds now: %v", f.Fd(), old, err)
	}
	_ = tr
}
