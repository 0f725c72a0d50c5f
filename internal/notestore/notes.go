// Package notestore (the note store; the tool is internal/tools/notes) keeps Markdown notes in the workspace: Create writes
// <workspace>/.aidex/notes/<slug>.md with YAML front matter (title, date,
// tags) for the create_note tool (internal/tools/notes), and List reads
// them back for the front ends' /notes and `aidex notes list`.
//
// A note file looks like:
//
//	---
//	title: Release checklist
//	date: "2026-01-02T15:04:05Z"
//	tags: [release, ci]
//	---
//
//	Body in Markdown.
//
// Files are written atomically (temp file, then hard link or rename) and
// never overwrite an existing note: a taken slug gets -2, -3, ...
// Everything goes through os.Root on the workspace, so a .aidex or
// .aidex/notes symlinked out of the workspace is refused.
package notestore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Dir is the notes directory relative to the workspace root.
const Dir = ".aidex/notes"

// Limits of notes.
const (
	// MaxNoteBytes caps a note's content (1 MiB).
	MaxNoteBytes = 1 << 20
	maxTitle     = 200 // bytes
	maxSlug      = 60  // bytes
	maxTags      = 20
	maxAttempts  = 100 // slugs tried: slug, slug-2, ... slug-100
	headerBytes  = 8 << 10
)

// Note is one note's metadata. Path is workspace-relative
// (".aidex/notes/<slug>.md"); Date is the creation time from the front
// matter (zero when missing or unparsable).
type Note struct {
	Title string    `json:"title"`
	Date  time.Time `json:"date"`
	Tags  []string  `json:"tags,omitempty"`
	Slug  string    `json:"slug"`
	Path  string    `json:"path"`
}

type frontMatter struct {
	Title string   `yaml:"title"`
	Date  string   `yaml:"date"`
	Tags  []string `yaml:"tags,flow"`
}

// Slug turns a title into a file name stem: lower-case ASCII letters and
// digits with single '-' between words, at most 60 bytes; "note" when
// nothing is left.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= maxSlug {
				break
			}
			continue
		}
		dash = true
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "note"
	}
	return s
}

// Create writes a new note under workspace (an absolute directory) and
// returns it. title must be non-empty (200 bytes at most), content at most
// MaxNoteBytes; tags are trimmed and deduplicated (20 at most). now is the
// note's date. Errors: bad input (the message names the field), a notes
// directory leading outside the workspace, I/O.
func Create(ctx context.Context, workspace, title, content string, tags []string, now time.Time) (Note, error) {
	if err := ctx.Err(); err != nil {
		return Note{}, err
	}
	fm, err := header(title, content, tags, now)
	if err != nil {
		return Note{}, err
	}
	raw, err := yaml.Marshal(fm)
	if err != nil {
		return Note{}, fmt.Errorf("encode front matter: %w", err)
	}
	body := strings.TrimRight(content, "\n")
	data := []byte("---\n" + string(raw) + "---\n\n" + body + "\n")
	r, err := os.OpenRoot(workspace)
	if err != nil {
		return Note{}, fmt.Errorf("open workspace: %w", err)
	}
	defer r.Close()
	if err := r.MkdirAll(Dir, 0o755); err != nil {
		return Note{}, fmt.Errorf("create %s: %w", Dir, err)
	}
	slug, err := writeNew(r, Slug(fm.Title), data)
	if err != nil {
		return Note{}, err
	}
	return Note{Title: fm.Title, Date: now.UTC().Truncate(time.Second), Tags: fm.Tags, Slug: slug, Path: path.Join(Dir, slug+".md")}, nil
}

func header(title, content string, tags []string, now time.Time) (frontMatter, error) {
	title = strings.Join(strings.Fields(title), " ")
	switch {
	case title == "":
		return frontMatter{}, errors.New("the note title is empty: give a short title")
	case len(title) > maxTitle:
		return frontMatter{}, fmt.Errorf("the note title is %d bytes; keep it under %d", len(title), maxTitle)
	case len(content) > MaxNoteBytes:
		return frontMatter{}, fmt.Errorf("the note content is %d bytes, over the %d-byte limit", len(content), MaxNoteBytes)
	case !utf8.ValidString(title + content):
		return frontMatter{}, errors.New("the note is not valid UTF-8")
	case len(tags) > maxTags:
		return frontMatter{}, fmt.Errorf("%d tags given; at most %d", len(tags), maxTags)
	}
	fm := frontMatter{Title: title, Date: now.UTC().Truncate(time.Second).Format(time.RFC3339)}
	for _, t := range tags {
		t = strings.Join(strings.Fields(t), " ")
		if t != "" && !slices.Contains(fm.Tags, t) {
			fm.Tags = append(fm.Tags, t)
		}
	}
	return fm, nil
}

// writeNew writes data to Dir/<slug>.md, or slug-2, slug-3, ... when taken,
// never replacing a file, and returns the slug used.
func writeNew(r *os.Root, slug string, data []byte) (string, error) {
	tmp := path.Join(Dir, ".aidex-tmp-"+randomHex())
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("write note: %w", err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	defer r.Remove(tmp) //nolint:errcheck // gone after a rename; a leftover link is harmless
	if werr != nil {
		return "", fmt.Errorf("write note: %w", werr)
	}
	for i := 1; i <= maxAttempts; i++ {
		s := slug
		if i > 1 {
			s = fmt.Sprintf("%s-%d", slug, i)
		}
		name := path.Join(Dir, s+".md")
		err := r.Link(tmp, name)
		if err == nil {
			return s, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// No hard links on this file system: check, then rename.
		if _, serr := r.Lstat(name); serr == nil {
			continue
		}
		if rerr := r.Rename(tmp, name); rerr != nil {
			return "", fmt.Errorf("write note %s: %w", name, rerr)
		}
		return s, nil
	}
	return "", fmt.Errorf("notes %s.md to %s-%d.md all exist: choose another title", slug, slug, maxAttempts)
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// List returns the notes of workspace, newest first (by front-matter
// date, then by slug). Files without front matter are listed with their
// slug as title. A missing notes directory gives an empty list.
func List(workspace string) ([]Note, error) {
	r, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	defer r.Close()
	entries, err := fs.ReadDir(r.FS(), Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", Dir, err)
	}
	var out []Note
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".") {
			continue
		}
		n := readHeader(r, path.Join(Dir, name))
		n.Slug, n.Path = strings.TrimSuffix(name, ".md"), path.Join(Dir, name)
		if n.Title == "" {
			n.Title = n.Slug
		}
		out = append(out, n)
	}
	slices.SortStableFunc(out, func(a, b Note) int {
		if c := b.Date.Compare(a.Date); c != 0 {
			return c
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	return out, nil
}

// readHeader parses the front matter at the top of a note (best effort).
func readHeader(r *os.Root, name string) Note {
	f, err := r.Open(name)
	if err != nil {
		return Note{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), headerBytes)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "---" {
		return Note{}
	}
	var buf bytes.Buffer
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "---" {
			var fm frontMatter
			if yaml.Unmarshal(buf.Bytes(), &fm) != nil {
				return Note{}
			}
			d, _ := time.Parse(time.RFC3339, fm.Date)
			return Note{Title: fm.Title, Date: d, Tags: fm.Tags}
		}
		if buf.Len() > headerBytes {
			break
		}
		buf.WriteString(sc.Text() + "\n")
	}
	return Note{}
}
