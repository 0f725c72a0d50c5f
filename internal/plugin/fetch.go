package plugin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/gitdir"
)

// IsGitURL reports whether src names a git repository rather than a
// folder: an https://, http://, ssh://, git:// or file:// URL, scp-like
// "user@host:path", or a name ending in ".git" that is no local folder.
func IsGitURL(src string) bool {
	for _, p := range []string{"https://", "http://", "ssh://", "git://", "file://", "git+ssh://"} {
		if strings.HasPrefix(src, p) {
			return true
		}
	}
	if at := strings.Index(src, "@"); at > 0 && strings.Contains(src[at:], ":") && !strings.Contains(src[:at], "/") {
		return true
	}
	if strings.HasSuffix(src, ".git") {
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			return true
		}
	}
	return false
}

// gitEnv is the environment of the git that clones: the caller's without
// its git config variables, plus no system config, no terminal prompt
// and gitdir.AlwaysConfig() (no hooks, no pager, no fsmonitor, no ext::
// transport) in the command scope, which beats every config file.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		u := strings.ToUpper(name)
		if strings.HasPrefix(u, "GIT_CONFIG") || u == "GIT_DIR" || u == "GIT_WORK_TREE" || u == "GIT_EXTERNAL_DIFF" ||
			u == "GIT_TEMPLATE_DIR" || u == "GIT_EXEC_PATH" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	kv := append(gitdir.AlwaysConfig(), [2]string{"protocol.file.allow", "always"}, [2]string{"submodule.recurse", "false"},
		[2]string{"core.symlinks", "true"})
	env = append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(kv)))
	for i, p := range kv {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, p[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, p[1]))
	}
	return env
}

// clone clones url's default branch (or ref, when not "") into dir with
// git, in gitEnv and with an empty template folder (no hooks copied), and
// returns the commit checked out. Errors: git is missing, the clone
// fails (git's message is included).
func clone(ctx context.Context, url, ref, dir string) (string, error) {
	if strings.HasPrefix(url, "-") || strings.Contains(url, "::") {
		return "", fmt.Errorf("plugin: %q is not a git URL aidex clones (give an https://, ssh:// or file:// URL)", url)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("plugin: cloning %s needs git on PATH: %w", url, err)
	}
	tmpl, err := os.MkdirTemp("", "aidex-git-template-")
	if err != nil {
		return "", fmt.Errorf("plugin: %w", err)
	}
	defer os.RemoveAll(tmpl)
	args := []string{"clone", "--quiet", "--depth", "1", "--no-recurse-submodules", "--template", tmpl}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	args = append(args, "--", url, dir)
	if _, err := runGit(ctx, git, "", args...); err != nil {
		return "", fmt.Errorf("plugin: clone %s: %w", url, err)
	}
	out, err := runGit(ctx, git, dir, "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("plugin: clone %s: %w", url, err)
	}
	return strings.TrimSpace(out), nil
}

// runGit runs git with args in dir (the caller's when "") in gitEnv.
func runGit(ctx context.Context, git, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, gitEnv(), nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// copyTree copies src's files and folders into dst (created), leaving
// out .git folders. A symbolic link whose target lies inside src is
// copied as what it points to; one that leaves src is left out, with a
// warning (a plugin brings only its own files). Errors: a file cannot be
// read or written; more than MaxFiles entries or MaxBytes bytes.
func copyTree(src, dst string) ([]string, error) {
	root, err := filepath.EvalSymlinks(src)
	if err != nil {
		return nil, fmt.Errorf("plugin: %w", err)
	}
	var warns []string
	files, total := 0, int64(0)
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if e.IsDir() && e.Name() == ".git" && path != root {
			return filepath.SkipDir
		}
		if files++; files > MaxFiles {
			return fmt.Errorf("more than %d files: is %s a plugin's folder?", MaxFiles, src)
		}
		target := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		from := path
		if e.Type()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(path)
			r, rerr := filepath.Rel(root, real)
			if err != nil || rerr != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				warns = append(warns, fmt.Sprintf("%s: a symbolic link that leaves the plugin's folder; not copied", path))
				return nil
			}
			if st, err := os.Stat(real); err != nil || st.IsDir() {
				warns = append(warns, fmt.Sprintf("%s: a symbolic link to a folder; not copied", path))
				return nil
			}
			from = real
		} else if !e.Type().IsRegular() {
			warns = append(warns, fmt.Sprintf("%s: not a regular file; not copied", path))
			return nil
		}
		n, err := copyFile(from, target, MaxBytes-total)
		total += n
		return err
	})
	if err != nil {
		return warns, fmt.Errorf("plugin: copy %s: %w", src, err)
	}
	return warns, nil
}

// copyFile copies a regular file (its executable bits kept), at most
// budget bytes.
func copyFile(from, to string, budget int64) (int64, error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() > budget {
		return 0, fmt.Errorf("over %d bytes in all", MaxBytes)
	}
	mode := os.FileMode(0o644)
	if st.Mode().Perm()&0o100 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, st.Size()))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
