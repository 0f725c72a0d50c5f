package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/zelvior/aidex/internal/atomicfile"
	"github.com/zelvior/aidex/internal/filelock"
	"github.com/zelvior/aidex/internal/ospath"
)

// FileName is the store's file in aidex's state directory.
const FileName = "approved-content.json"

// maxStoreBytes caps the store file read: a bigger one is an error naming
// the file, not an unbounded read.
const maxStoreBytes = 32 << 20

// Store is the approved digests of every workspace, in one JSON file of
// aidex's state directory (mode 0600; the sandbox never makes the state
// directory visible to commands). The zero Store has no file: it approves
// nothing and cannot record.
type Store struct {
	file string
	// style is how this OS compares paths: a folder's approvals are
	// found under any spelling of it (c:\code\proj and C:\Code\Proj on
	// Windows).
	style ospath.Style
}

// OpenStore returns the store of stateDir (nothing is read yet).
func OpenStore(stateDir string) Store {
	if stateDir == "" {
		return Store{}
	}
	return Store{file: filepath.Join(stateDir, FileName), style: ospath.Native()}
}

// File is the store's file ("" for the zero Store).
func (s Store) File() string { return s.file }

// entry is one approved item of a workspace.
type entry struct {
	Kind     Kind      `json:"kind"`
	Name     string    `json:"name"`
	Digest   string    `json:"digest"`
	Approved time.Time `json:"approved"`
}

type storeDoc struct {
	Version int                `json:"version"`
	Folders map[string][]entry `json:"folders"`
}

// Approvals are one workspace's approved items.
type Approvals struct {
	digests map[string]bool
	keys    map[string]bool // Item.Key of every approved item
}

// Approved reports whether it is approved: its digest was approved.
func (a Approvals) Approved(it Item) bool { return a.digests[it.Digest] }

// Known reports whether an item of it's Kind and Name was approved, with
// this digest or another (a changed item).
func (a Approvals) Known(it Item) bool { return a.keys[it.Key()] }

// With returns a copy of a with items approved too (approvals of one
// session, not recorded).
func (a Approvals) With(items ...Item) Approvals {
	out := Approvals{digests: map[string]bool{}, keys: map[string]bool{}}
	for k := range a.digests {
		out.digests[k] = true
	}
	for k := range a.keys {
		out.keys[k] = true
	}
	for _, it := range items {
		out.digests[it.Digest], out.keys[it.Key()] = true, true
	}
	return out
}

// Approvals returns workspace's approvals. Errors: the file cannot be read
// or is not the store's JSON (the error names the file and the fix).
func (s Store) Approvals(workspace string) (Approvals, error) {
	a := Approvals{digests: map[string]bool{}, keys: map[string]bool{}}
	doc, err := s.read()
	if err != nil {
		return a, err
	}
	for _, e := range doc.Folders[s.folderKey(workspace)] {
		a.digests[e.Digest], a.keys[string(e.Kind)+" "+e.Name] = true, true
	}
	return a, nil
}

// Approve records items as approved for workspace. An earlier approval of
// an item of the same Kind and Name is replaced (the content it had no
// longer counts). Errors: as Approvals', a store that cannot be written.
func (s Store) Approve(workspace string, items ...Item) error {
	return s.update(workspace, func(old []entry) []entry {
		keys := map[string]bool{}
		for _, it := range items {
			keys[it.Key()] = true
		}
		var out []entry
		for _, e := range old {
			if !keys[string(e.Kind)+" "+e.Name] {
				out = append(out, e)
			}
		}
		return append(out, entries(items)...)
	})
}

// Replace records exactly items as workspace's approvals (`aidex trust
// DIR`): earlier approvals of items no longer there are dropped.
func (s Store) Replace(workspace string, items []Item) error {
	return s.update(workspace, func([]entry) []entry { return entries(items) })
}

// Forget drops every approval of workspace (`aidex trust --remove`).
func (s Store) Forget(workspace string) error {
	return s.update(workspace, func([]entry) []entry { return nil })
}

func entries(items []Item) []entry {
	now := time.Now().UTC().Truncate(time.Second)
	seen := map[string]bool{}
	var out []entry
	for _, it := range items {
		if seen[it.Digest] {
			continue
		}
		seen[it.Digest] = true
		out = append(out, entry{Kind: it.Kind, Name: it.Name, Digest: it.Digest, Approved: now})
	}
	return out
}

// update changes workspace's entries under the store's lock.
func (s Store) update(workspace string, change func([]entry) []entry) error {
	if s.file == "" {
		return errors.New("trust: no state directory to record approvals in")
	}
	if err := os.MkdirAll(filepath.Dir(s.file), 0o700); err != nil {
		return fmt.Errorf("trust: create %s: %w", filepath.Dir(s.file), err)
	}
	unlock, err := lock(s.file + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	doc, err := s.read()
	if err != nil {
		return err
	}
	key := s.folderKey(workspace)
	if es := change(doc.Folders[key]); len(es) > 0 {
		doc.Folders[key] = es
	} else {
		delete(doc.Folders, key)
	}
	doc.Version = 1
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: encode %s: %w", s.file, err)
	}
	if err := atomicfile.WriteFile(s.file, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust: write %s: %w", s.file, err)
	}
	return nil
}

// lock takes the store's lock, waiting up to 5 s for another aidex.
func lock(path string) (func(), error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		unlock, err := filelock.TryLock(path, 0o600)
		if err == nil {
			return unlock, nil
		}
		if !errors.Is(err, filelock.ErrLocked) || time.Now().After(deadline) {
			return nil, fmt.Errorf("trust: lock %s: %w", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s Store) read() (storeDoc, error) {
	doc := storeDoc{Folders: map[string][]entry{}}
	if s.file == "" {
		return doc, nil
	}
	f, err := os.Open(s.file)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, fmt.Errorf("trust: read approved content: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxStoreBytes {
		return doc, fmt.Errorf("trust: %s is %d bytes, over the %d-byte limit: delete it and approve your projects again with `aidex trust DIR`", s.file, st.Size(), maxStoreBytes)
	}
	if err := json.NewDecoder(f).Decode(&doc); err != nil {
		return storeDoc{Folders: map[string][]entry{}}, fmt.Errorf("trust: %s is not aidex's approved-content file (delete it and approve your projects again with `aidex trust DIR`): %w", s.file, err)
	}
	// Keyed as this OS compares paths; a file written before keys (or
	// by hand) may spell one folder twice: their approvals merge.
	folders := make(map[string][]entry, len(doc.Folders))
	for k, es := range doc.Folders {
		key := s.style.Key(k)
		folders[key] = append(folders[key], es...)
	}
	doc.Folders = folders
	return doc, nil
}

// folderKey is the workspace key (ospath.Style.Key) of workspace made
// absolute with symbolic links resolved (of the absolute path when it does
// not exist).
func (s Store) folderKey(workspace string) string {
	abs := workspace
	if !s.style.IsAbs(abs) {
		var err error
		if abs, err = filepath.Abs(workspace); err != nil {
			return s.style.Key(workspace)
		}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return s.style.Key(abs)
}

// Merge returns the approvals of a and b together (a project's and the
// plugins' it uses).
func (a Approvals) Merge(b Approvals) Approvals {
	out := a.With()
	for k := range b.digests {
		out.digests[k] = true
	}
	for k := range b.keys {
		out.keys[k] = true
	}
	return out
}
