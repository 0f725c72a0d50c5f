package eval

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitIdentity lets the attempt's own commits work on a machine with no
// git identity configured.
func gitIdentity() []string {
	return []string{"-c", "user.name=aidex eval", "-c", "user.email=eval@aidex.invalid", "-c", "commit.gpgsign=false"}
}

// git runs git in dir and returns its standard output. Errors: git's
// exit, with its standard error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append(gitIdentity(), args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// prepareWorkspace makes the attempt's workspace ws (which must not
// exist) and returns the commit its diff is taken against: a clone of
// the task's repository at its commit (sharing the repository's objects,
// writing nothing into it), or a copy of environment/ (without its
// Dockerfile and setup.sh) made a repository of its own. Errors: the
// copy's, git's.
func prepareWorkspace(ctx context.Context, t Task, ws string) (string, error) {
	if t.GitRepo != "" {
		if _, err := git(ctx, filepath.Dir(ws), "clone", "--quiet", "--shared", "--no-checkout", t.GitRepo, ws); err != nil {
			return "", err
		}
		if _, err := git(ctx, ws, "checkout", "--quiet", "--detach", t.GitCommit); err != nil {
			return "", err
		}
		if err := hide(ctx, ws, t.Hide); err != nil {
			return "", err
		}
		base, err := git(ctx, ws, "rev-parse", "HEAD")
		return strings.TrimSpace(base), err
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return "", err
	}
	env := filepath.Join(t.Dir, "environment")
	if _, err := os.Stat(env); err == nil {
		if err := copyTree(env, ws, func(rel string) bool { return rel == "Dockerfile" || rel == "setup.sh" }); err != nil {
			return "", fmt.Errorf("copy the environment: %w", err)
		}
	}
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "-A"}, {"commit", "--quiet", "--allow-empty", "-m", "the task's starting files"}} {
		if _, err := git(ctx, ws, args...); err != nil {
			return "", err
		}
	}
	base, err := git(ctx, ws, "rev-parse", "HEAD")
	return strings.TrimSpace(base), err
}

// hide removes the paths from the clone ws and commits that, so the
// attempt's diff does not count them. A path must stay inside ws.
func hide(ctx context.Context, ws string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	for _, p := range paths {
		clean := filepath.Clean(filepath.FromSlash(p))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return fmt.Errorf("[environment] hide: %q is not a path inside the repository", p)
		}
		if err := os.RemoveAll(filepath.Join(ws, clean)); err != nil {
			return err
		}
	}
	_, err := git(ctx, ws, "commit", "--quiet", "-a", "--allow-empty", "-m", "the task's tests, left out until the agent finishes")
	return err
}

// diff returns the attempt's changes to ws since base, binary files
// included, untracked files counted.
func diff(ctx context.Context, ws, base string) (string, error) {
	if _, err := git(ctx, ws, "add", "-A"); err != nil {
		return "", err
	}
	return git(ctx, ws, "diff", "--cached", "--binary", base)
}

// copyTree copies the regular files, folders and symbolic links of src
// into dst, skipping the paths (relative, slash-separated) skip names.
func copyTree(src, dst string, skip func(rel string) bool) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		if skip != nil && skip(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil
	})
}

// copyFile copies src to dst with src's permission bits.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
