package memstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Scope says where an Entry is kept.
type Scope string

// The scopes of entries.
const (
	// ScopeProject: <workspace>/.aidex/memory/entries.jsonl, this project only.
	ScopeProject Scope = "project"
	// ScopeGlobal: <config dir>/memory/entries.jsonl, every project.
	ScopeGlobal Scope = "global"
)

// Limits of entries.
const (
	// MaxEntryBytes caps Entry.Content (16 KiB).
	MaxEntryBytes = 16 << 10
	// maxTags caps the tags of one entry, maxTagBytes one tag.
	maxTags     = 20
	maxTagBytes = 64
	// maxLineBytes is the longest line read from an entries file.
	maxLineBytes = 1 << 20
	// DefaultLimit and MaxLimit bound Query.Limit.
	DefaultLimit = 20
	MaxLimit     = 500
)

// entriesFile is the name of the JSON Lines file in each scope directory.
const entriesFile = "entries.jsonl"

// Entry is one saved memory: a line of entries.jsonl, e.g.
//
//	{"id":"3f2a9c1e0b7d","content":"Use pnpm, not npm","category":"preference","tags":["js"],"timestamp":"2026-01-02T15:04:05Z","pinned":true}
//
// Scope is not stored: it says which file the entry was read from.
type Entry struct {
	ID        string    `json:"id"`
	Content   string    `json:"content"`
	Category  string    `json:"category,omitempty"`
	Tags      []string  `json:"tags,omitempty"`
	Timestamp time.Time `json:"timestamp"`
	Pinned    bool      `json:"pinned,omitempty"`
	Scope     Scope     `json:"-"`
}

// Query selects entries for Store.List. Zero fields select everything:
// Text keeps entries whose content, category or tags contain every
// whitespace-separated term (case-insensitive); Category keeps one
// category (case-insensitive); Scope keeps one scope; PinnedOnly keeps
// pinned entries; Limit caps the result (0 = DefaultLimit, < 0 = no cap).
type Query struct {
	Text       string
	Category   string
	Scope      Scope
	PinnedOnly bool
	Limit      int
}

// ErrNoEntry is returned (wrapped) when no entry has the given id.
var ErrNoEntry = errors.New("no memory entry with that id")

// Store reads and writes entries of both scopes. The zero Store has no
// directories; use NewStore. Methods are safe for concurrent use within
// one process; across processes, whole-file rewrites (pin, edit, delete)
// are atomic but an append racing a rewrite may be lost.
type Store struct {
	workspace string // project scope: <workspace>/.aidex/memory ("" = none)
	globalDir string // global scope directory ("" = none)
	now       func() time.Time
	mu        sync.Mutex
}

// NewStore returns a Store for the project memory of workspace (an
// absolute directory; "" disables the project scope) and the global
// memory directory globalDir (e.g. <config dir>/memory; "" disables the
// global scope). now is the clock (nil = time.Now).
func NewStore(workspace, globalDir string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{workspace: workspace, globalDir: globalDir, now: now}
}

// GlobalDir returns the global memory directory of a config directory:
// <configDir>/memory.
func GlobalDir(configDir string) string {
	if configDir == "" {
		return ""
	}
	return configDir + string(os.PathSeparator) + "memory"
}

// open returns the os.Root of a scope's directory (nil when it does not
// exist and create is false, or the scope is disabled).
func (s *Store) open(scope Scope, create bool) (*os.Root, error) {
	switch scope {
	case ScopeProject:
		if s.workspace == "" {
			return nil, errors.New("project memory is not available (no workspace)")
		}
		return openRoot(s.workspace, projectMemoryDir, create)
	case ScopeGlobal:
		if s.globalDir == "" {
			return nil, errors.New("global memory is not available (no config directory)")
		}
		return openRoot(s.globalDir, ".", create)
	}
	return nil, fmt.Errorf("unknown memory scope %q: use %q or %q", scope, ScopeProject, ScopeGlobal)
}

func (s *Store) scopes() []Scope {
	var out []Scope
	if s.workspace != "" {
		out = append(out, ScopeProject)
	}
	if s.globalDir != "" {
		out = append(out, ScopeGlobal)
	}
	return out
}

// Save appends e to the scope's file and returns it with ID and Timestamp
// filled in (a given ID is replaced; a zero Timestamp becomes now). It
// fails on empty or oversized content, too many or too long tags, and I/O
// errors.
func (s *Store) Save(ctx context.Context, scope Scope, e Entry) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	if err := normalize(&e); err != nil {
		return Entry{}, err
	}
	e.ID, e.Scope = randomHex(6), scope
	if e.Timestamp.IsZero() {
		e.Timestamp = s.now().UTC()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return Entry{}, fmt.Errorf("encode memory: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.open(scope, true)
	if err != nil {
		return Entry{}, err
	}
	defer r.Close()
	f, err := r.OpenFile(entriesFile, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return Entry{}, fmt.Errorf("open %s memory: %w", scope, err)
	}
	if needsNewline(f) {
		line = append([]byte{'\n'}, line...)
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return Entry{}, fmt.Errorf("save %s memory: %w", scope, werr)
	}
	return e, nil
}

// normalize trims and checks an entry's fields.
func normalize(e *Entry) error {
	e.Content = strings.TrimSpace(e.Content)
	e.Category = strings.ToLower(strings.TrimSpace(e.Category))
	switch {
	case e.Content == "":
		return errors.New("the memory content is empty: give the fact or preference to remember")
	case len(e.Content) > MaxEntryBytes:
		return fmt.Errorf("the memory content is %d bytes, over the %d-byte limit: save a short summary", len(e.Content), MaxEntryBytes)
	case !utf8.ValidString(e.Content):
		return errors.New("the memory content is not valid UTF-8")
	case len(e.Category) > maxTagBytes:
		return fmt.Errorf("the category is longer than %d bytes", maxTagBytes)
	case len(e.Tags) > maxTags:
		return fmt.Errorf("%d tags given; at most %d", len(e.Tags), maxTags)
	}
	var tags []string
	for _, t := range e.Tags {
		t = strings.TrimSpace(t)
		if t == "" || slices.Contains(tags, t) {
			continue
		}
		if len(t) > maxTagBytes {
			return fmt.Errorf("tag %q is longer than %d bytes", clip(t), maxTagBytes)
		}
		tags = append(tags, t)
	}
	e.Tags = tags
	return nil
}

// read returns the entries of one scope in file order. Malformed lines are
// skipped (they stay in the file until the next rewrite drops them).
func (s *Store) read(scope Scope) ([]Entry, error) {
	r, err := s.open(scope, false)
	if err != nil || r == nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(entriesFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s memory: %w", scope, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	var out []Entry
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Entry
		if json.Unmarshal(line, &e) != nil || e.ID == "" || e.Content == "" {
			continue
		}
		e.Scope = scope
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read %s memory: %w", scope, err)
	}
	return out, nil
}

// List returns the entries matching q, most recent first (ties: the later
// line first).
func (s *Store) List(ctx context.Context, q Query) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []Entry
	for _, sc := range s.scopes() {
		if q.Scope != "" && q.Scope != sc {
			continue
		}
		es, err := s.read(sc)
		if err != nil {
			return nil, err
		}
		slices.Reverse(es)
		all = append(all, es...)
	}
	slices.SortStableFunc(all, func(a, b Entry) int { return b.Timestamp.Compare(a.Timestamp) })
	terms := strings.Fields(strings.ToLower(q.Text))
	limit := q.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	var out []Entry
	for _, e := range all {
		if limit > 0 && len(out) >= limit {
			break
		}
		if q.PinnedOnly && !e.Pinned || q.Category != "" && !strings.EqualFold(e.Category, strings.TrimSpace(q.Category)) || !matches(e, terms) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func matches(e Entry, terms []string) bool {
	if len(terms) == 0 {
		return true
	}
	hay := strings.ToLower(e.Content + "\n" + e.Category + "\n" + strings.Join(e.Tags, "\n"))
	for _, t := range terms {
		if !strings.Contains(hay, t) {
			return false
		}
	}
	return true
}

// Get returns the entry with id (ErrNoEntry when none).
func (s *Store) Get(ctx context.Context, id string) (Entry, error) {
	es, err := s.List(ctx, Query{Limit: -1})
	if err != nil {
		return Entry{}, err
	}
	for _, e := range es {
		if e.ID == id {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("%w: %q (list them with `aidex memory list`)", ErrNoEntry, id)
}

// Update finds the entry with id in either scope, applies fn to it and
// rewrites that scope's file atomically. fn may change Content, Category,
// Tags and Pinned; ID, Timestamp and Scope are kept. It returns the updated
// entry, ErrNoEntry (wrapped) when there is none, or fn's error.
func (s *Store) Update(ctx context.Context, id string, fn func(*Entry) error) (Entry, error) {
	var out Entry
	err := s.rewrite(ctx, id, func(es []Entry, i int) ([]Entry, error) {
		e := es[i]
		if err := fn(&e); err != nil {
			return nil, err
		}
		e.ID, e.Timestamp, e.Scope = es[i].ID, es[i].Timestamp, es[i].Scope
		if err := normalize(&e); err != nil {
			return nil, err
		}
		es[i], out = e, e
		return es, nil
	})
	return out, err
}

// SetPinned pins (true) or unpins an entry; pinned entries are added to
// the system prompt (PinnedNotes).
func (s *Store) SetPinned(ctx context.Context, id string, pinned bool) (Entry, error) {
	return s.Update(ctx, id, func(e *Entry) error { e.Pinned = pinned; return nil })
}

// Edit replaces an entry's content.
func (s *Store) Edit(ctx context.Context, id, content string) (Entry, error) {
	return s.Update(ctx, id, func(e *Entry) error { e.Content = content; return nil })
}

// Delete removes an entry (ErrNoEntry, wrapped, when there is none).
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.rewrite(ctx, id, func(es []Entry, i int) ([]Entry, error) {
		return slices.Delete(es, i, i+1), nil
	})
}

// rewrite finds id and writes the scope's entries as change returns them.
func (s *Store) rewrite(ctx context.Context, id string, change func(es []Entry, i int) ([]Entry, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	id = strings.TrimSpace(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sc := range s.scopes() {
		es, err := s.read(sc)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(es, func(e Entry) bool { return e.ID == id })
		if i < 0 {
			continue
		}
		es, err = change(es, i)
		if err != nil {
			return err
		}
		return s.writeAll(sc, es)
	}
	return fmt.Errorf("%w: %q (list them with `aidex memory list`)", ErrNoEntry, id)
}

func (s *Store) writeAll(scope Scope, es []Entry) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range es {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("encode memory: %w", err)
		}
	}
	r, err := s.open(scope, true)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := writeAtomic(r, entriesFile, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write %s memory: %w", scope, err)
	}
	return nil
}

// needsNewline reports whether the open file f is non-empty and does not
// end in a newline (a hand-edited file), so an appended line must start
// with one.
func needsNewline(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, fi.Size()-1); err != nil {
		return false
	}
	return b[0] != '\n'
}
