package toolstest

import (
	"os"
	"path/filepath"
	"time"
)

// AgeDirs sets the access time of the directories at rels (relative to
// Root) to three days ago, so that a later read of them shows in DirRead:
// with Linux's default relatime a read updates an access time older than
// a day. Errors fail the test.
func (f *Fixture) AgeDirs(rels ...string) {
	f.T.Helper()
	old := time.Now().Add(-72 * time.Hour)
	for _, rel := range rels {
		p := filepath.Join(f.Root, filepath.FromSlash(rel))
		fi, err := os.Stat(p)
		if err != nil {
			f.T.Fatalf("age %s: %v", rel, err)
		}
		if err := os.Chtimes(p, old, fi.ModTime()); err != nil {
			f.T.Fatalf("age %s: %v", rel, err)
		}
	}
}

// DirRead reports whether the directory at rel was read (listed) since
// AgeDirs: its access time is within the last day. On a file system that
// does not record reads (noatime, or no access times on this OS) it is
// always false, so a test checks a directory it knows was read first and
// skips when that one reports false.
func (f *Fixture) DirRead(rel string) bool {
	f.T.Helper()
	fi, err := os.Stat(filepath.Join(f.Root, filepath.FromSlash(rel)))
	if err != nil {
		f.T.Fatalf("stat %s: %v", rel, err)
	}
	at, ok := accessTime(fi)
	return ok && time.Since(at) < 24*time.Hour
}

// RequireNotRead checks that the tool call run lists the directory seen
// but never the directory ignored (both relative to Root): it ages both,
// runs run, skips the test when the file system records no reads (seen
// does not show as read) and fails it when ignored was read.
func (f *Fixture) RequireNotRead(seen, ignored string, run func()) {
	f.T.Helper()
	f.AgeDirs(seen, ignored)
	run()
	if !f.DirRead(seen) {
		f.T.Skip("this file system does not record directory reads (noatime)")
	}
	if f.DirRead(ignored) {
		f.T.Fatalf("%s is ignored but was read", ignored)
	}
}
