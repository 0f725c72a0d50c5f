package tools

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"time"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Change is one file change for Env.Commit.
type Change struct {
	// Abs is the file, absolute (as returned by Env.Resolve).
	Abs string
	// Old is the current content (nil when !Existed).
	Old []byte
	// Existed is false when the change creates the file.
	Existed bool
	// New is the content to write, at most MaxWriteBytes.
	New []byte
	// Perm is the mode of a new file (0 means 0644); give an existing
	// file's own mode to keep it.
	Perm fs.FileMode
}

// Commit writes a change: size cap (MaxWriteBytes), checkpoint, atomic
// write confined to the workspace (WriteAtomic; parent directories
// created), read stamp updated. It returns the
// unified diff (MakeDiff). With DryRun it only returns the diff. Failures
// are ready Results (CategoryValidation for the size cap, else
// CategoryExecution); nothing is written then.
func (env *Env) Commit(ctx context.Context, c Change) (string, *Result) {
	rel := env.Rel(c.Abs)
	if env.EnsureTrailingNewline {
		c.New = withTrailingNewline(c.New)
	}
	if len(c.New) > MaxWriteBytes {
		r := Failf(CategoryValidation, "refusing to write %d bytes to %s: the limit is %d MiB per call",
			len(c.New), rel, MaxWriteBytes>>20)
		return "", &r
	}
	if env.DryRun {
		return MakeDiff(rel, string(c.Old), string(c.New)), nil
	}
	if r := env.Checkpoint(ctx, c.Abs, c.Old, c.Existed); r != nil {
		return "", r
	}
	if err := env.MkdirAll(filepath.Dir(c.Abs), 0o755); err != nil {
		r := Failf(CategoryExecution, "cannot create the parent directory of %s: %v", rel, err)
		return "", &r
	}
	perm := c.Perm
	if perm == 0 {
		perm = 0o644
	}
	if r := env.write(ctx, c.Abs, c.New, perm); r != nil {
		return "", r
	}
	mtime := time.Now()
	if fi, err := env.Stat(c.Abs); err == nil {
		mtime = fi.ModTime()
	}
	if err := env.MarkRead(ctx, c.Abs, c.New, mtime); err != nil {
		r := Failf(CategoryExecution, "wrote %s but could not record it: %v", rel, err)
		return "", &r
	}
	return MakeDiff(rel, string(c.Old), string(c.New)), nil
}

// write writes data to abs through the editor when it takes the write,
// else atomically to the disk.
func (env *Env) write(ctx context.Context, abs string, data []byte, perm fs.FileMode) *Result {
	if env.Editor != nil {
		ok, err := env.Editor.WriteText(ctx, abs, data)
		if err != nil {
			r := Failf(CategoryExecution, "cannot write %s through the editor: %v", env.Rel(abs), err)
			return &r
		}
		if ok {
			return nil
		}
	}
	if err := env.WriteAtomic(abs, data, perm); err != nil {
		r := Failf(CategoryExecution, "cannot write %s (the old content is intact): %v", env.Rel(abs), err)
		return &r
	}
	return nil
}

// withTrailingNewline ends text content (valid UTF-8 without NUL bytes)
// with a newline: "\r\n" when its lines end so, else "\n". Empty and
// binary content is returned as it is.
func withTrailingNewline(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' || bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return b
	}
	eol := "\n"
	if bytes.Contains(b, []byte("\r\n")) {
		eol = "\r\n"
	}
	return append(append(make([]byte, 0, len(b)+2), b...), eol...)
}

// MakeDiff returns a unified diff of a change to rel, capped at
// MaxDiffBytes.
func MakeDiff(rel, old, new string) string {
	d := udiff.Unified("a/"+rel, "b/"+rel, old, new)
	if len(d) > MaxDiffBytes {
		d = CutUTF8(d, MaxDiffBytes) + "\n... diff truncated\n"
	}
	return d
}
