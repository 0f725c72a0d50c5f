package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/filelock"
)

// ErrSessionInUse is wrapped by the error of a run refused because another
// aidex process is running the same session (see sessionInUseError).
var ErrSessionInUse = errors.New("session in use by another aidex")

// sessionInUseError is a run refused because another aidex process holds
// the session's lock: two `aidex -c` on one session would interleave
// their messages. PID is the holder's process id (0 when unknown).
type sessionInUseError struct {
	ID  string
	PID int
}

func (e *sessionInUseError) Error() string {
	holder := "another aidex"
	if e.PID > 0 {
		holder += " (pid " + strconv.Itoa(e.PID) + ")"
	}
	return fmt.Sprintf("session %s is in use by %s; wait for it to finish or start a new session", e.ID, holder)
}

// Unwrap makes errors.Is(err, ErrSessionInUse) true.
func (e *sessionInUseError) Unwrap() error { return ErrSessionInUse }

// lockSession takes the run lock of session id: an OS file lock on
// DIR/ID.lock (dir "" skips locking) holding the holder's pid, released
// by the OS if aidex dies. The file exists only while the lock is held
// (filelock.TryLockRemovable: removed on release, so lock files do not
// pile up, one per session). It never waits: another process's lock is a
// *sessionInUseError, a lock of this process (another live session on
// the same stored session) is agent.ErrBusy. The returned func releases
// the lock.
func lockSession(dir, id string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session lock: %w", err)
	}
	path := filepath.Join(dir, id+".lock")
	held, err := filelock.TryLockRemovable(path, 0o600)
	switch {
	case errors.Is(err, filelock.ErrLocked):
		pid := lockHolder(path)
		if pid == os.Getpid() {
			return nil, fmt.Errorf("session %s: %w", id, agent.ErrBusy)
		}
		return nil, &sessionInUseError{ID: id, PID: pid}
	case err != nil:
		return nil, fmt.Errorf("session lock %s: %w", path, err)
	}
	// flock and LockFileEx (on a byte past the content) are advisory for
	// the content: others read the pid while we hold the lock.
	_, _ = held.File().WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return held.Release, nil
}

// sweepSessionLocks removes the lock files in dir that nobody holds: left
// by an aidex that died while holding one, or by an aidex from before
// lock files were removed on release. Each is taken and released the way
// lockSession does, so a held lock is never touched. It costs one
// directory read when nothing is left over.
func sweepSessionLocks(dir string) {
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		if held, err := filelock.TryLockRemovable(filepath.Join(dir, e.Name()), 0o600); err == nil {
			held.Release()
		}
	}
}

// lockHolder reads the pid a lock's holder wrote (0 when unknown).
func lockHolder(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// sessionLockDir is where the run locks of sessions live: DATADIR/locks,
// next to the session database.
func sessionLockDir(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	return filepath.Join(dataDir, "locks")
}
