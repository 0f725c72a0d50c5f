package imagegen

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/atomicfile"
)

// ErrRefused is wrapped by Save when the workspace confinement refuses the
// path.
var ErrRefused = errors.New("path refused")

// ErrExists is wrapped by Save when the file exists and overwrite is false.
var ErrExists = errors.New("file exists")

// Saved describes a saved image: Abs the absolute path, Rel the path shown
// to the user (workspace-relative when inside), Note a warning such as a
// file extension that does not match the image type ("" when none).
type Saved struct {
	Abs  string
	Rel  string
	Note string
}

// Workspace confines the paths Save writes to; tools.Resolver and
// *permission.Workspace satisfy it.
type Workspace interface {
	// Resolve returns the absolute path for p, or an error when p is
	// outside the workspace or otherwise refused.
	Resolve(p string) (string, error)
	// Rel returns abs as shown to the user (workspace-relative when
	// inside).
	Rel(abs string) string
}

// Checkpointer keeps the content of a file before Save replaces it, so
// /undo can restore it; tools.Checkpointer satisfies it.
type Checkpointer interface {
	// Save stores old, the content of path before the change (nil and
	// existed false when the change creates the file).
	Save(ctx context.Context, path string, old []byte, existed bool) error
}

// Save writes img.Data unchanged to path p through the workspace
// confinement ws (ws.Resolve), atomically (temp file + rename), creating
// parent directories. A path without an extension gets the one of
// img.MIME. An existing file is replaced only with overwrite; its old
// content goes to cp first (when cp is not nil) so /undo restores it; a
// checkpoint error writes nothing. Errors wrap ErrRefused (confinement),
// ErrExists, or an I/O error; a nil ws is an error.
func Save(ctx context.Context, ws Workspace, cp Checkpointer, p string, img Image, overwrite bool) (Saved, error) {
	if ws == nil {
		return Saved{}, errors.New("internal error: no workspace configured for saving images")
	}
	if strings.TrimSpace(p) == "" {
		return Saved{}, errors.New("output_path is empty: give a file path such as images/logo.png")
	}
	if filepath.Ext(p) == "" && !strings.HasSuffix(p, "/") {
		p += Ext(img.MIME)
	}
	abs, err := ws.Resolve(p)
	if err != nil {
		return Saved{}, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	s := Saved{Abs: abs, Rel: ws.Rel(abs), Note: extNote(abs, img.MIME)}
	old, err := os.ReadFile(abs)
	existed := err == nil
	switch {
	case existed && !overwrite:
		return Saved{}, fmt.Errorf("%s %w: choose another output_path, or set overwrite to replace it", s.Rel, ErrExists)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		if fi, serr := os.Stat(abs); serr == nil && fi.IsDir() {
			return Saved{}, fmt.Errorf("%s is a directory: give a file name inside it, such as %s/image%s", s.Rel, s.Rel, Ext(img.MIME))
		}
		return Saved{}, fmt.Errorf("read %s: %w", s.Rel, err)
	}
	if cp != nil {
		if err := cp.Save(ctx, abs, old, existed); err != nil {
			return Saved{}, fmt.Errorf("could not save a checkpoint of %s (nothing was written): %w", s.Rel, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return Saved{}, fmt.Errorf("create the directory of %s: %w", s.Rel, err)
	}
	if err := atomicfile.WriteFile(abs, img.Data, 0o644); err != nil {
		return Saved{}, fmt.Errorf("write %s: %w", s.Rel, err)
	}
	return s, nil
}

// extNote warns when the file extension names another image type than the
// bytes are (Pollinations answers JPEG whatever the name).
func extNote(abs, mime string) string {
	ext := strings.ToLower(filepath.Ext(abs))
	want := Ext(mime)
	if ext == "" || want == "" || ext == want || (ext == ".jpeg" && want == ".jpg") {
		return ""
	}
	return fmt.Sprintf("the image is %s but the file name ends in %s; the bytes were saved unchanged (rename it to %s if a program is strict about it)", mime, ext, want)
}
