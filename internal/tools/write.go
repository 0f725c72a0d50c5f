package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/zelvior/aidex/internal/kind"
)

type writeArgs struct {
	Path    string `json:"path" jsonschema:"File to write" tool:"path"`
	Content string `json:"content" jsonschema:"Full new content"`
}

type appendArgs struct {
	Path    string `json:"path" jsonschema:"File to append to" tool:"path"`
	Content string `json:"content" jsonschema:"Text to append"`
}

type pathArgs struct {
	Path string `json:"path" jsonschema:"Path" tool:"path"`
}

type srcDstArgs struct {
	Source      string `json:"source" jsonschema:"Existing file" tool:"path"`
	Destination string `json:"destination" jsonschema:"New path (must not exist)" tool:"path"`
}

func writeTools() []Def {
	return []Def{
		Define(Spec{Name: "write_file", Kind: kind.Write, Standard: true,
			Description: "Create or overwrite a file with content (parent dirs created). Read an existing file first.", DryRun: true},
			func(ctx context.Context, env *Env, a writeArgs) Result { return writeFile(ctx, env, a) }),
		Define(Spec{Name: "append_file", Kind: kind.Write,
			Description: "Append text to a file (created if missing), starting on a new line.", DryRun: true},
			func(ctx context.Context, env *Env, a appendArgs) Result { return appendFile(ctx, env, a) }),
		Define(Spec{Name: "create_directory", Kind: kind.Write, Description: "Create a directory and its parents."},
			func(ctx context.Context, env *Env, a pathArgs) Result { return createDir(env, a.Path) }),
		Define(Spec{Name: "delete_file", Kind: kind.Write,
			Description: "Delete a file, a symlink (not its target) or an empty directory."},
			func(ctx context.Context, env *Env, a pathArgs) Result { return deleteFile(ctx, env, a.Path) }),
		Define(Spec{Name: "move_file", Kind: kind.Write,
			Description: "Move or rename a file. An existing directory as destination moves the file into it."},
			func(ctx context.Context, env *Env, a srcDstArgs) Result { return moveFile(ctx, env, a) }),
		Define(Spec{Name: "copy_file", Kind: kind.Write,
			Description: "Copy a file. An existing directory as destination copies the file into it."},
			func(ctx context.Context, env *Env, a srcDstArgs) Result { return copyFile(ctx, env, a) }),
	}
}

// existing loads the file at abs for a change: (nil, nil) when it does not
// exist, a Result when it cannot be changed or was not read first.
func existing(ctx context.Context, env *Env, abs string) (*textFile, *Result) {
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && fi.IsDir() {
		r := Failf(CategoryValidation, "%s is a directory; give a file path", env.rel(abs))
		return nil, &r
	}
	tf, res := loadText(env, abs, "")
	if res != nil {
		return nil, res
	}
	if res := env.checkFresh(ctx, abs, tf.content); res != nil {
		return nil, res
	}
	return tf, nil
}

func writeFile(ctx context.Context, env *Env, a writeArgs) Result {
	abs, res := env.resolve("path", a.Path)
	if res != nil {
		return *res
	}
	tf, res := existing(ctx, env, abs)
	if res != nil {
		return *res
	}
	c := change{abs: abs, new: []byte(a.Content)}
	if tf != nil {
		old := string(tf.content)
		content := a.Content
		if eolOf(old) == "\r\n" && !strings.Contains(content, "\r\n") {
			content = withEOL(content, "\r\n")
		}
		if strings.HasPrefix(old, utf8BOM) && !strings.HasPrefix(content, utf8BOM) {
			content = utf8BOM + content
		}
		if content == old {
			return Failf(CategoryValidation, "write_file: the content is identical to %s already; nothing to change", tf.rel)
		}
		c = change{abs: abs, old: tf.content, existed: true, new: []byte(content), perm: tf.info.Mode().Perm()}
	}
	diff, res := env.commit(ctx, c)
	if res != nil {
		return *res
	}
	rel := env.rel(abs)
	n := len(splitLinesKeep(string(c.new)))
	verb := "Created"
	if c.existed {
		verb = "Overwrote"
	}
	return Success(fmt.Sprintf("%s %s (%d lines, %d bytes)", verb, rel, n, len(c.new)),
		&Meta{Path: rel, Diff: diff, Lines: n})
}

func appendFile(ctx context.Context, env *Env, a appendArgs) Result {
	if a.Content == "" {
		return Failf(CategoryValidation, "append_file: content is empty; nothing to append")
	}
	abs, res := env.resolve("path", a.Path)
	if res != nil {
		return *res
	}
	tf, res := existing(ctx, env, abs)
	if res != nil {
		return *res
	}
	c := change{abs: abs, new: []byte(a.Content)}
	if tf != nil {
		old := string(tf.content)
		eol := eolOf(old)
		add := withEOL(a.Content, eol)
		if old != "" && !strings.HasSuffix(old, "\n") {
			add = eol + add
		}
		c = change{abs: abs, old: tf.content, existed: true, new: []byte(old + add), perm: tf.info.Mode().Perm()}
	}
	diff, res := env.commit(ctx, c)
	if res != nil {
		return *res
	}
	rel := env.rel(abs)
	added := len(c.new) - len(c.old)
	return Success(fmt.Sprintf("Appended %d bytes to %s (now %d bytes)", added, rel, len(c.new)),
		&Meta{Path: rel, Diff: diff, Lines: len(splitLinesKeep(a.Content))})
}

func createDir(env *Env, path string) Result {
	abs, res := env.resolve("path", path)
	if res != nil {
		return *res
	}
	rel := env.rel(abs)
	if fi, err := os.Stat(abs); err == nil {
		if fi.IsDir() {
			return Success(fmt.Sprintf("Directory %s already exists", rel), &Meta{Path: rel})
		}
		return Failf(CategoryValidation, "%s exists and is not a directory", rel)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return Failf(CategoryExecution, "cannot create directory %s: %v", rel, err)
	}
	return Success(fmt.Sprintf("Created directory %s", rel), &Meta{Path: rel})
}

// resolveEntry resolves p for an operation on the directory entry itself
// (delete, move source): like resolve, but when p names a symlink whose
// target is allowed, the link itself is returned (not its target). A
// symlink leading out of the workspace is refused by resolve.
func resolveEntry(env *Env, param, p string) (string, bool, *Result) {
	target, res := env.resolve(param, p)
	if res != nil {
		return "", false, res
	}
	clean := filepath.Clean(p)
	base := filepath.Base(clean)
	if target == env.Workspace.Root() || base == "." || base == ".." || base == string(filepath.Separator) {
		r := Failf(CategoryValidation, "%s: refusing to operate on the workspace root or a parent directory", param)
		return "", false, &r
	}
	dir, res := env.resolve(param, filepath.Dir(clean))
	if res != nil {
		return "", false, res
	}
	entry := filepath.Join(dir, base)
	if fi, err := os.Lstat(entry); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return entry, true, nil
	}
	return target, false, nil
}

func deleteFile(ctx context.Context, env *Env, path string) Result {
	abs, isLink, res := resolveEntry(env, "path", path)
	if res != nil {
		return *res
	}
	rel := env.rel(abs)
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Failf(CategoryNotFound, "%s does not exist", rel)
	case err != nil:
		return Failf(CategoryExecution, "cannot stat %s: %v", rel, err)
	case isLink:
		if err := os.Remove(abs); err != nil {
			return Failf(CategoryExecution, "cannot remove symlink %s: %v", rel, err)
		}
		return Success(fmt.Sprintf("Removed the symlink %s (its target is untouched)", rel), &Meta{Path: rel})
	case fi.IsDir():
		if err := os.Remove(abs); err != nil {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				return Failf(CategoryValidation, "directory %s is not empty: delete_file removes files and "+
					"empty directories only; delete the files in it first", rel)
			}
			return Failf(CategoryExecution, "cannot remove directory %s: %v", rel, err)
		}
		return Success(fmt.Sprintf("Removed the empty directory %s", rel), &Meta{Path: rel})
	case !fi.Mode().IsRegular():
		return Failf(CategoryValidation, "%s is not a regular file (%s); delete_file will not remove it", rel, fi.Mode().Type())
	}
	content, _, err := readRegular(abs)
	if err != nil {
		return Failf(CategoryExecution, "cannot read %s to checkpoint it (nothing was deleted): %v", rel, err)
	}
	if !isBinary(content) { // binary files cannot be read with read_file, so they need no read
		if res := env.checkFresh(ctx, abs, content); res != nil {
			return *res
		}
	}
	if res := env.checkpoint(ctx, abs, content, true); res != nil {
		return *res
	}
	if err := os.Remove(abs); err != nil {
		return Failf(CategoryExecution, "cannot delete %s: %v", rel, err)
	}
	env.forget(ctx, abs)
	meta := &Meta{Path: rel}
	if !isBinary(content) {
		meta.Diff = makeDiff(rel, string(content), "")
	}
	return Success(fmt.Sprintf("Deleted %s (%d bytes)", rel, len(content)), meta)
}

func (env *Env) forget(ctx context.Context, abs string) {
	if env.Reads != nil {
		_ = env.Reads.Forget(ctx, abs) // best effort: a stale record only forces a re-read
	}
}

// destination resolves the destination of a move or copy: an existing
// directory means "into it"; an existing file is refused.
func destination(env *Env, p, srcAbs string) (string, *Result) {
	dst, res := env.resolve("destination", p)
	if res != nil {
		return "", res
	}
	if fi, err := os.Stat(dst); err == nil && fi.IsDir() {
		if dst, res = env.resolve("destination", filepath.Join(p, filepath.Base(srcAbs))); res != nil {
			return "", res
		}
	}
	if dst == srcAbs {
		r := Failf(CategoryValidation, "source and destination are the same file (%s); nothing to do", env.rel(dst))
		return "", &r
	}
	if _, err := os.Lstat(dst); err == nil {
		r := Failf(CategoryValidation, "destination %s already exists: delete it first or choose another name", env.rel(dst))
		return "", &r
	}
	return dst, nil
}

func moveFile(ctx context.Context, env *Env, a srcDstArgs) Result {
	src, isLink, res := resolveEntry(env, "source", a.Source)
	if res != nil {
		return *res
	}
	srel := env.rel(src)
	fi, err := os.Lstat(src)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Failf(CategoryNotFound, "source %s does not exist", srel)
	case err != nil:
		return Failf(CategoryExecution, "cannot stat %s: %v", srel, err)
	case fi.IsDir():
		return Failf(CategoryValidation, "%s is a directory: move_file moves files only", srel)
	case !isLink && !fi.Mode().IsRegular():
		return Failf(CategoryValidation, "%s is not a regular file (%s)", srel, fi.Mode().Type())
	}
	dst, res := destination(env, a.Destination, src)
	if res != nil {
		return *res
	}
	drel := env.rel(dst)
	var content []byte
	if !isLink {
		if content, _, err = readRegular(src); err != nil {
			return Failf(CategoryExecution, "cannot read %s to checkpoint it (nothing was moved): %v", srel, err)
		}
		if res := env.checkpoint(ctx, src, content, true); res != nil {
			return *res
		}
		if res := env.checkpoint(ctx, dst, nil, false); res != nil {
			return *res
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return Failf(CategoryExecution, "cannot create the parent directory of %s: %v", drel, err)
	}
	if err := os.Rename(src, dst); err != nil {
		if isLink || !errors.Is(err, syscall.EXDEV) {
			return Failf(CategoryExecution, "cannot move %s to %s: %v", srel, drel, err)
		}
		if res := copyAcross(env, src, dst, content, fi.Mode().Perm()); res != nil {
			return *res
		}
	}
	env.moveStamp(ctx, src, dst)
	return Success(fmt.Sprintf("Moved %s to %s", srel, drel), &Meta{Path: drel, Files: []string{srel, drel}})
}

// copyAcross finishes a move across file systems: write dst, remove src.
func copyAcross(env *Env, src, dst string, content []byte, perm fs.FileMode) *Result {
	if err := writeNew(dst, content, perm); err != nil {
		r := Failf(CategoryExecution, "cannot move %s to %s: %v", env.rel(src), env.rel(dst), err)
		return &r
	}
	if err := os.Remove(src); err != nil {
		r := Failf(CategoryExecution, "copied %s to %s but cannot remove the source: %v", env.rel(src), env.rel(dst), err)
		return &r
	}
	return nil
}

// moveStamp carries a read record from src to dst (the content did not
// change, so a fresh read of src is a fresh read of dst).
func (env *Env) moveStamp(ctx context.Context, src, dst string) {
	if env.Reads == nil {
		return
	}
	if s, ok, err := env.Reads.LastRead(ctx, src); err == nil && ok {
		_ = env.Reads.RecordRead(ctx, dst, s) // best effort: a missing record only forces a re-read
	}
	_ = env.Reads.Forget(ctx, src)
}

func writeNew(dst string, content []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		os.Remove(dst)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(dst)
		return err
	}
	return nil
}

func copyFile(ctx context.Context, env *Env, a srcDstArgs) Result {
	src, res := env.resolve("source", a.Source)
	if res != nil {
		return *res
	}
	srel := env.rel(src)
	fi, err := os.Stat(src)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Failf(CategoryNotFound, "source %s does not exist", srel)
	case err != nil:
		return Failf(CategoryExecution, "cannot stat %s: %v", srel, err)
	case fi.IsDir():
		return Failf(CategoryValidation, "%s is a directory: copy_file copies files only", srel)
	case !fi.Mode().IsRegular():
		return Failf(CategoryValidation, "%s is not a regular file (%s)", srel, fi.Mode().Type())
	case fi.Size() > MaxWriteBytes:
		return Failf(CategoryValidation, "%s is %d bytes, over the %d MiB limit of copy_file", srel, fi.Size(), MaxWriteBytes>>20)
	}
	content, _, err := readRegular(src)
	if err != nil {
		return Failf(CategoryExecution, "cannot read %s: %v", srel, err)
	}
	dst, res := destination(env, a.Destination, src)
	if res != nil {
		return *res
	}
	drel := env.rel(dst)
	if res := env.checkpoint(ctx, dst, nil, false); res != nil {
		return *res
	}
	if err := writeNew(dst, content, fi.Mode().Perm()); err != nil {
		return Failf(CategoryExecution, "cannot copy %s to %s: %v", srel, drel, err)
	}
	meta := &Meta{Path: drel, Files: []string{drel}}
	if !isBinary(content) {
		meta.Diff = makeDiff(drel, "", string(content))
	}
	return Success(fmt.Sprintf("Copied %s to %s (%d bytes)", srel, drel, len(content)), meta)
}
