package ralph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zelvior/aidex/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Store reads and writes a workspace's task list, <workspace>/ralph_tasks.json.
//
// Concurrent writers (a running loop, `aidex ralph add` in another
// terminal, the web UI) never lose each other's changes: every change is a
// read-modify-write of the whole file done under an exclusive lock
// (<workspace>/.aidex/ralph.lock, an OS file lock released when the
// process dies), and the new content replaces the file atomically (temp
// file, fsync, rename). Readers take no lock: they always see a complete
// file. Changes go by task id, so a writer never overwrites another's
// tasks with a stale copy.
type Store struct {
	path    string
	lockDir string
	ayder   string // ayder-cli's tasks folder, read while path does not exist
	now     func() time.Time
	mu      sync.Mutex

	// cache is the list as last read or written, and the file it came
	// from: Load returns a copy while the file is the same one (same
	// inode, size and modification time; every write replaces the file).
	cacheMu   sync.Mutex
	cache     *List
	cacheStat fs.FileInfo
}

// lockWait bounds how long a writer waits for another process's lock.
const lockWait = 10 * time.Second

// NewStore returns the store of a workspace (an absolute directory). now
// stamps created_at/updated_at (nil: time.Now). It does no I/O.
func NewStore(workspace string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{path: filepath.Join(workspace, FileName), lockDir: filepath.Join(workspace, ".aidex"),
		ayder: filepath.Join(workspace, filepath.FromSlash(AyderDir)), now: now}
}

// Path returns the task file's path.
func (s *Store) Path() string { return s.path }

// Load reads the task list; a missing file is an empty list, or the
// tasks of ayder-cli's .ayder/tasks folder when it has some (List.From
// says so; see AyderDir). Errors name the file and the task at fault.
func (s *Store) Load() (*List, error) {
	before, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s.loadAyder()
	}
	if l := s.cached(before); l != nil {
		return l, nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s.loadAyder()
	}
	if err != nil {
		return nil, fmt.Errorf("read task list: %w", err)
	}
	l, err := parseList(s.path, data)
	if err != nil {
		return nil, err
	}
	if after, err := os.Stat(s.path); err == nil && before != nil && sameFile(before, after) {
		s.remember(l, after)
	}
	return l, nil
}

// loadAyder reads ayder-cli's task files while ralph_tasks.json does not
// exist; the first Change saves them into it.
func (s *Store) loadAyder() (*List, error) {
	tasks, err := ReadAyderTasks(s.ayder)
	if err != nil || len(tasks) == 0 {
		return &List{}, err
	}
	l := &List{Tasks: tasks, From: s.ayder}
	if err := l.check(s.ayder); err != nil {
		return nil, err
	}
	return l, nil
}

// cached returns a copy of the cached list when fi is the file it came
// from, else nil.
func (s *Store) cached(fi fs.FileInfo) *List {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if s.cache == nil || fi == nil || !sameFile(s.cacheStat, fi) {
		return nil
	}
	return s.cache.clone()
}

func (s *Store) remember(l *List, fi fs.FileInfo) {
	s.cacheMu.Lock()
	s.cache, s.cacheStat = l.clone(), fi
	s.cacheMu.Unlock()
}

func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// clone is a deep copy of the list.
func (l *List) clone() *List {
	out := &List{Tasks: make([]Task, len(l.Tasks)), From: l.From}
	for i, t := range l.Tasks {
		out.Tasks[i] = t.Clone()
	}
	if l.Extra != nil {
		out.Extra = make(map[string]json.RawMessage, len(l.Extra))
		for k, v := range l.Extra {
			out.Extra[k] = v
		}
	}
	return out
}

// Tasks returns the tasks in list order.
func (s *Store) Tasks() ([]Task, error) {
	l, err := s.Load()
	if err != nil {
		return nil, err
	}
	return l.Tasks, nil
}

// Get returns the task ref names (id, title or slug; see [List.Find]).
func (s *Store) Get(ref string) (Task, error) {
	l, err := s.Load()
	if err != nil {
		return Task{}, err
	}
	t, err := l.Find(ref)
	if err != nil {
		return Task{}, err
	}
	return t.Clone(), nil
}

// Change loads the list under the write lock, lets fn change it, checks it
// and writes it back atomically. Nothing is written when fn fails. It
// waits up to 10 s for another process's lock (or until ctx ends).
func (s *Store) Change(ctx context.Context, fn func(l *List) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ensureControlDir(s.lockDir); err != nil {
		return fmt.Errorf("task list lock: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(s.lockDir, "ralph.lock"), lockWait)
	if err != nil {
		return err
	}
	defer unlock()
	l, err := s.Load()
	if err != nil {
		return err
	}
	if err := fn(l); err != nil {
		return err
	}
	if err := l.check(s.path); err != nil {
		return err
	}
	l.From = "" // ayder-cli's tasks are saved into the task file now
	data, err := l.encode()
	if err != nil {
		return fmt.Errorf("encode task list: %w", err)
	}
	if err := atomicfile.WriteFile(s.path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	if fi, err := os.Stat(s.path); err == nil {
		s.remember(l, fi)
	}
	return nil
}

// Add appends tasks in order, generating missing ids (US-NNN, T-NNN) and
// stamping created_at. depends_on may name tasks added in the same call.
// It returns the tasks as stored. Errors: an id already in use, a missing
// title, a bad priority/type/status, an unknown dependency.
func (s *Store) Add(ctx context.Context, tasks ...Task) ([]Task, error) {
	var out []Task
	err := s.Change(ctx, func(l *List) error {
		out = out[:0]
		now := s.now().UTC()
		for _, t := range tasks {
			added, err := l.add(t.Clone(), now)
			if err != nil {
				return err
			}
			out = append(out, added)
		}
		for _, t := range out {
			if err := l.checkDeps(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Edit changes the task ref names with fn and stamps updated_at. fn may
// change any field but the id; the result is checked (values, depends_on).
func (s *Store) Edit(ctx context.Context, ref string, fn func(t *Task) error) (Task, error) {
	var out Task
	err := s.Change(ctx, func(l *List) error {
		t, err := l.Find(ref)
		if err != nil {
			return err
		}
		id := t.ID
		if err := fn(t); err != nil {
			return err
		}
		t.ID = id
		if err := t.normalize(); err != nil {
			return err
		}
		if err := l.checkDeps(*t); err != nil {
			return err
		}
		t.UpdatedAt = s.now().UTC()
		out = t.Clone()
		return nil
	})
	return out, err
}

// Remove deletes the task ref names; tasks that depended on it lose that
// dependency.
func (s *Store) Remove(ctx context.Context, ref string) (Task, error) {
	var out Task
	err := s.Change(ctx, func(l *List) error {
		t, err := l.Find(ref)
		if err != nil {
			return err
		}
		out = t.Clone()
		i := l.index(t.ID)
		l.Tasks = append(l.Tasks[:i], l.Tasks[i+1:]...)
		for j := range l.Tasks {
			l.Tasks[j].DependsOn = removeFold(l.Tasks[j].DependsOn, out.ID)
		}
		return nil
	})
	return out, err
}

func removeFold(list []string, id string) []string {
	var out []string
	for _, s := range list {
		if !strings.EqualFold(s, id) {
			out = append(out, s)
		}
	}
	return out
}

// Clear removes every task (the file's other members stay) and returns
// how many there were.
func (s *Store) Clear(ctx context.Context) (int, error) {
	n := 0
	err := s.Change(ctx, func(l *List) error {
		n = len(l.Tasks)
		l.Tasks = nil
		return nil
	})
	return n, err
}

// Reset puts a task back to pending (from in_progress after a crash, or
// failed/skipped/done to run it again); its result and attempts stay.
func (s *Store) Reset(ctx context.Context, ref string) (Task, error) {
	return s.Edit(ctx, ref, func(t *Task) error {
		t.Status = StatusPending
		return nil
	})
}
