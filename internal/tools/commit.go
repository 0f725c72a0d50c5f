package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/zelvior/aidex/internal/atomicfile"
)

// change is one file change for commit.
type Change struct {
	Abs     string
	Old     []byte // current content (nil when !existed)
	Existed bool
	New     []byte
	Perm    fs.FileMode // for new files; existing files keep their mode
}

// commit writes a change: size cap, checkpoint, atomic write (parents
// created, mode kept), read stamp updated. It returns the unified diff.
func (env *Env) Commit(ctx context.Context, c Change) (string, *Result) {
	rel := env.Rel(c.Abs)
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
	if err := os.MkdirAll(filepath.Dir(c.Abs), 0o755); err != nil {
		r := Failf(CategoryExecution, "cannot create the parent directory of %s: %v", rel, err)
		return "", &r
	}
	perm := c.Perm
	if perm == 0 {
		perm = 0o644
	}
	if err := atomicfile.WriteFile(c.Abs, c.New, perm); err != nil {
		r := Failf(CategoryExecution, "cannot write %s (the old content is intact): %v", rel, err)
		return "", &r
	}
	if fi, err := os.Stat(c.Abs); err == nil {
		if err := env.MarkRead(ctx, c.Abs, c.New, fi.ModTime()); err != nil {
			r := Failf(CategoryExecution, "wrote %s but could not record it: %v", rel, err)
			return "", &r
		}
	}
	return MakeDiff(rel, string(c.Old), string(c.New)), nil
}

// makeDiff returns a unified diff of a change to rel, capped at
// MaxDiffBytes.
func MakeDiff(rel, old, new string) string {
	d := udiff.Unified("a/"+rel, "b/"+rel, old, new)
	if len(d) > MaxDiffBytes {
		d = CutUTF8(d, MaxDiffBytes) + "\n... diff truncated\n"
	}
	return d
}
