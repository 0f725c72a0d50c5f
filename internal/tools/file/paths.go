package file

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/zelvior/aidex/internal/tools"
)

// dirOf resolves a directory parameter.
func dirOf(env *tools.Env, p string) (string, *tools.Result) {
	abs, res := env.Resolve("path", p)
	if res != nil {
		return "", res
	}
	fi, err := env.Stat(abs)
	var r tools.Result
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r = tools.Failf(tools.CategoryNotFound, "directory %s does not exist", env.Rel(abs))
	case err != nil:
		r = tools.Failf(tools.CategoryExecution, "cannot stat %s: %v", env.Rel(abs), err)
	case !fi.IsDir():
		r = tools.Failf(tools.CategoryValidation, "%s is a file, not a directory: use read_file", env.Rel(abs))
	default:
		return abs, nil
	}
	return "", &r
}

type pathArgs struct {
	Path string `json:"path" jsonschema:"Path" tool:"path"`
}

type srcDstArgs struct {
	Source      string `json:"source" jsonschema:"Existing file" tool:"path"`
	Destination string `json:"destination" jsonschema:"New path (must not exist)" tool:"path"`
}

// existing loads the file at abs for a change: (nil, nil) when it does not
// exist, a Result when it cannot be changed or was not read first.
func existing(ctx context.Context, env *tools.Env, abs string) (*tools.TextFile, *tools.Result) {
	fi, err := env.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && fi.IsDir() {
		r := tools.Failf(tools.CategoryValidation, "%s is a directory; give a file path", env.Rel(abs))
		return nil, &r
	}
	tf, res := tools.LoadText(env, abs, "")
	if res != nil {
		return nil, res
	}
	if res := env.CheckFresh(ctx, abs, tf.Content); res != nil {
		return nil, res
	}
	return tf, nil
}

// resolveEntry resolves p for an operation on the directory entry itself
// (delete, move source): like Env.Resolve, but when p names a symlink whose
// target is allowed, the link itself is returned (not its target). A
// symlink leading out of the workspace is refused by Env.Resolve.
func resolveEntry(env *tools.Env, param, p string) (string, bool, *tools.Result) {
	target, res := env.Resolve(param, p)
	if res != nil {
		return "", false, res
	}
	clean := filepath.Clean(p)
	base := filepath.Base(clean)
	if target == env.Workspace.Root() || base == "." || base == ".." || base == string(filepath.Separator) {
		r := tools.Failf(tools.CategoryValidation, "%s: refusing to operate on the workspace root or a parent directory", param)
		return "", false, &r
	}
	dir, res := env.Resolve(param, filepath.Dir(clean))
	if res != nil {
		return "", false, res
	}
	entry := filepath.Join(dir, base)
	if fi, err := env.Lstat(entry); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return entry, true, nil
	}
	return target, false, nil
}

// destination resolves the destination of a move or copy: an existing
// directory means "into it"; an existing file is refused.
func destination(env *tools.Env, p, srcAbs string) (string, *tools.Result) {
	dst, res := env.Resolve("destination", p)
	if res != nil {
		return "", res
	}
	if fi, err := env.Stat(dst); err == nil && fi.IsDir() {
		if dst, res = env.Resolve("destination", filepath.Join(p, filepath.Base(srcAbs))); res != nil {
			return "", res
		}
	}
	if dst == srcAbs {
		r := tools.Failf(tools.CategoryValidation, "source and destination are the same file (%s); nothing to do", env.Rel(dst))
		return "", &r
	}
	if _, err := env.Lstat(dst); err == nil {
		r := tools.Failf(tools.CategoryValidation, "destination %s already exists: delete it first or choose another name", env.Rel(dst))
		return "", &r
	}
	return dst, nil
}
