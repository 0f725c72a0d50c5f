package tools

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// SavedOutputAge is how long saved outputs are kept: a store's first save
// removes the outputs of every session older than this (7 days).
const SavedOutputAge = 7 * 24 * time.Hour

// MaxSavedOutputBytes caps the whole output an OutputStore keeps of one
// tool call (32 MiB); past it the saved copy stops and says so.
const MaxSavedOutputBytes = 32 << 20

// OutputStore keeps the whole output of tool results that were cut to
// head and tail (the [harness] output_handles mechanism): each is a file
// OUTPUT_ID.txt in Dir, private to the user, that read_output reads by its
// id (never by a path, so it is no exception to workspace confinement).
// A nil *OutputStore saves nothing.
type OutputStore struct {
	// Dir is the directory of the saved outputs (created on first use),
	// under the session's state; its parent holds every session's.
	Dir string

	prune sync.Once
}

// outputID is the form of an id: o and 8 hex digits (compiled on first
// use).
var outputID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^o[0-9a-f]{8}$`) })

// Start begins saving one call's output: the returned SavedOutput takes
// every byte written to it (up to MaxSavedOutputBytes); Keep or Discard
// ends it. A nil store, or one whose directory cannot be made, returns
// nil (nothing is saved; SavedOutput's methods accept a nil receiver).
func (s *OutputStore) Start() *SavedOutput {
	if s == nil || s.Dir == "" {
		return nil
	}
	s.prune.Do(func() { pruneOutputs(filepath.Dir(s.Dir), time.Now().Add(-SavedOutputAge)) })
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil
	}
	f, err := os.CreateTemp(s.Dir, "partial-*.tmp")
	if err != nil {
		return nil
	}
	return &SavedOutput{f: f, dir: s.Dir}
}

// Read returns the saved output with the given id. Errors: the id is not
// one (fs.ErrInvalid), or there is no such output (fs.ErrNotExist).
func (s *OutputStore) Read(id string) ([]byte, error) {
	if !outputID().MatchString(id) {
		return nil, fmt.Errorf("%q is not an output id (o and 8 hex digits, as a cut result gives it): %w", id, fs.ErrInvalid)
	}
	if s == nil || s.Dir == "" {
		return nil, fmt.Errorf("no output is saved in this session: %w", fs.ErrNotExist)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, id+".txt"))
	if err != nil {
		return nil, fmt.Errorf("no saved output %s in this session: %w", id, fs.ErrNotExist)
	}
	return b, nil
}

// SavedOutput is one call's output being saved. Write never fails (a
// write error or the size cap stops the copy; Keep then says so).
type SavedOutput struct {
	mu      sync.Mutex
	f       *os.File
	dir     string
	n       int64
	dropped int64
	failed  bool
}

// Write implements io.Writer; it never fails.
func (o *SavedOutput) Write(p []byte) (int, error) {
	if o == nil {
		return len(p), nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	keep := min(int64(len(p)), max(0, MaxSavedOutputBytes-o.n))
	if !o.failed && keep > 0 {
		if _, err := o.f.Write(p[:keep]); err != nil {
			o.failed = true
		}
	}
	o.n += keep
	o.dropped += int64(len(p)) - keep
	return len(p), nil
}

// Keep ends the copy and keeps it: it returns its id and its size in
// bytes, and dropped, the bytes past MaxSavedOutputBytes not kept.
func (o *SavedOutput) Keep() (id string, size, dropped int64, err error) {
	if o == nil {
		return "", 0, 0, errors.New("no output store")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	closeErr := o.f.Close()
	if o.failed || closeErr != nil {
		_ = os.Remove(o.f.Name())
		return "", 0, 0, fmt.Errorf("saving the whole output failed: %v", closeErr)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	id = "o" + hex.EncodeToString(b[:])
	if err := os.Rename(o.f.Name(), filepath.Join(o.dir, id+".txt")); err != nil {
		_ = os.Remove(o.f.Name())
		return "", 0, 0, fmt.Errorf("saving the whole output: %w", err)
	}
	return id, o.n, o.dropped, nil
}

// Discard ends the copy and removes it (the output was not cut).
func (o *SavedOutput) Discard() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = o.f.Close()
	_ = os.Remove(o.f.Name())
}

// pruneOutputs removes the saved outputs (and partial copies) under root's
// session directories last changed before cutoff, and the directories
// they leave empty; best effort, and nothing but those files.
func pruneOutputs(root string, cutoff time.Time) {
	sessions, _ := os.ReadDir(root)
	for _, sd := range sessions {
		if !sd.IsDir() {
			continue
		}
		dir := filepath.Join(root, sd.Name())
		files, _ := os.ReadDir(dir)
		left := len(files)
		for _, f := range files {
			name := f.Name()
			saved := strings.HasSuffix(name, ".txt") && outputID().MatchString(strings.TrimSuffix(name, ".txt"))
			partial := strings.HasPrefix(name, "partial-") && strings.HasSuffix(name, ".tmp")
			if fi, err := f.Info(); err == nil && fi.Mode().IsRegular() && (saved || partial) && fi.ModTime().Before(cutoff) {
				if os.Remove(filepath.Join(dir, name)) == nil {
					left--
				}
			}
		}
		if left == 0 {
			_ = os.Remove(dir)
		}
	}
}
