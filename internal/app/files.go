package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/permission"
)

// ErrInvalidPath is wrapped by [Files.Resolve]'s error when a path is
// empty or malformed (not outside the workspace: that is a refusal).
var ErrInvalidPath = permission.ErrInvalidPath

// errProtected is wrapped by [Files.CheckWrite]'s error when a path is
// protected (.git, .aidex, editor and agent config folders, aidex's config
// files): a change there always needs an approval in a session.
var errProtected = errors.New("protected path")

// Files is a front end's confined view of the workspace, for the user's
// own file actions (the web UI's file browser and editor, saving a
// generated image): paths resolve like the tools' (symlinks resolved
// component by component; "../", absolute paths and links that leave the
// workspace are refused).
type Files struct {
	ws *permission.Workspace
}

// Files returns the workspace view; web applies the web UI's confinement
// (always confined, whatever confine says). Errors: the workspace cannot
// be opened.
func (rt *Runtime) Files(web bool) (*Files, error) {
	ws, err := rt.NewWorkspace(web)
	if err != nil {
		return nil, err
	}
	return &Files{ws: ws}, nil
}

// Resolve returns the absolute, symlink-resolved path of p ("" means the
// workspace root). Errors: outside the workspace, or malformed (wrapping
// ErrInvalidPath).
func (f *Files) Resolve(p string) (string, error) {
	if p == "" {
		p = "."
	}
	return f.ws.Resolve(p)
}

// Rel returns abs relative to the workspace root, slash-separated.
func (f *Files) Rel(abs string) string { return f.ws.Rel(abs) }

// CheckWrite refuses a write to p (as given; abs is its resolved path)
// when it changes a protected location, checked both as written and
// resolved so a symlinked .aidex is caught too. The error wraps
// ErrProtected and tells the user to edit it by hand.
func (f *Files) CheckWrite(p, abs string) error {
	if protectedPath(f.ws, []string{p}, []string{abs}) == "" {
		return nil
	}
	return protectedError(p)
}

// protectedError is the refusal of a write to a protected path; it
// matches ErrProtected.
type protectedError string

func (e protectedError) Error() string {
	return fmt.Sprintf("%s is a protected path (.git, .aidex, editor or aidex config): the web UI does not change it; edit it by hand outside aidex web", string(e))
}

func (e protectedError) Is(target error) bool { return target == errProtected }

// SaveImage writes img to p in the workspace through the tools' commit
// (atomic, confined); overwrite allows replacing a file. It returns the
// workspace-relative path written. Errors: those of imagegen.Save
// (imagegen.ErrRefused, imagegen.ErrExists, I/O).
func (f *Files) SaveImage(ctx context.Context, p string, img imagegen.Image, overwrite bool) (imagegen.Saved, error) {
	return imagegen.Save(ctx, f.ws, nil, p, img, overwrite)
}
