// Package checkpoint keeps snapshots of a workspace in a shadow git
// repository: its own GIT_DIR under aidex's state directory
// ($XDG_STATE_HOME/aidex/checkpoints/<workspace-hash>), with the
// workspace as its work tree. The user's own repository (.git) is never
// read as a repository nor written: git skips every path named .git, and
// the shadow repository is always named explicitly (GIT_DIR), so git
// never discovers the user's.
//
// What is snapshotted: every file of the workspace git would add, that
// is the project's .gitignore files and the repository's
// .git/info/exclude are honoured, the user's global excludes
// (core.excludesFile, ~/.config/git/ignore) are not (a snapshot does not
// depend on who takes it), aidex's own .aidex/ folder is left out (its
// configuration, memory and notes are not code), and files over the size
// cap (10 MB by default) are left out. Nested repositories are left out
// as a whole. Symbolic links are kept as links, the executable bit as
// the mode.
//
// git always runs with a clean environment: no system or global
// configuration, no attributes outside the shadow repository's own (which
// turn every filter, end-of-line and encoding conversion off, so content
// is stored byte for byte), no hooks, no fsmonitor, no pager, no prompts.
//
// Snapshots are incremental: the shadow index is kept between snapshots,
// so git only stats the files of an unchanged tree and hashes only the
// changed ones. A snapshot of an unchanged tree reuses the last commit.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/zelvior/aidex/internal/filelock"
	"github.com/zelvior/aidex/internal/gitdir"
	"github.com/zelvior/aidex/internal/ospath"
)

// DefaultMaxFileSize is the size cap (bytes) of a snapshotted file when
// Options.MaxFileSize is 0: larger files are never snapshotted nor
// touched by a restore.
const DefaultMaxFileSize = 10 << 20

// ErrNoGit is wrapped by Open's error when git is not on PATH.
var ErrNoGit = errors.New("git is not installed (not found on PATH); checkpoints need git")

// DefaultMaxFiles is the most files one snapshot adds or updates when
// Options.MaxFiles is 0 (a first snapshot adds every file).
const DefaultMaxFiles = 100_000

// ErrTooLarge is wrapped by Snapshot's (and Restore's) error when more
// files than the limit are new or changed since the last snapshot: the
// workspace is likely a home folder, or holds an unignored dependency
// or build folder. Nothing was recorded.
var ErrTooLarge = errors.New("too many files to checkpoint")

// Options configure [Open].
type Options struct {
	// StateDir is aidex's state directory; the repository is
	// StateDir/checkpoints/<hash of the workspace path>.
	StateDir string
	// Workspace is the folder snapshotted (absolute).
	Workspace string
	// MaxFileSize caps a snapshotted file (bytes; 0: DefaultMaxFileSize).
	MaxFileSize int64
	// MaxFiles caps the files one snapshot adds or updates (0:
	// DefaultMaxFiles).
	MaxFiles int
	// Exclude are folders (absolute) never snapshotted nor touched when
	// they lie in the workspace: aidex's own data, state, cache and
	// configuration folders (a workspace that is the home folder holds
	// them, and the session database must never be rewound). The
	// repository's own folder is always excluded.
	Exclude []string
	// LockTimeout bounds the wait for another aidex's snapshot or restore
	// of the same workspace (0: 5 minutes; a first snapshot of a large
	// workspace may take that long).
	LockTimeout time.Duration
}

// Repo is the shadow repository of one workspace. Its methods may be
// called from several goroutines and processes: each takes the
// repository's lock (a file lock) for its whole work.
type Repo struct {
	git       string
	gitDir    string
	workTree  string
	maxSize   int64
	maxFiles  int
	lockWait  time.Duration
	userIgnor string // the user repository's info/exclude, or os.DevNull
}

// Dir returns the shadow repository's directory for workspace under
// stateDir: stateDir/checkpoints/ and the first 16 hex digits of the
// SHA-256 of the workspace's key (its absolute path as this OS compares
// paths: c:\code\proj and C:\Code\Proj share one repository on Windows).
func Dir(stateDir, workspace string) string { return dirIn(stateDir, workspace, ospath.Native()) }

// dirIn is Dir in path style st.
func dirIn(stateDir, workspace string, st ospath.Style) string {
	return hashDir(stateDir, st.Key(workspace))
}

// legacyDir is where aidex before workspace keys kept the repository: the
// hash of the cleaned path as spelled.
func legacyDir(stateDir, workspace string, st ospath.Style) string {
	return hashDir(stateDir, st.Clean(workspace))
}

func hashDir(stateDir, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(stateDir, "checkpoints", hex.EncodeToString(sum[:8]))
}

// adoptLegacy moves the repository an older aidex kept for this spelling
// of workspace to its keyed directory when that does not exist yet, so
// checkpoints taken before survive (a no-op where keys are the cleaned
// path, as on Linux).
func adoptLegacy(stateDir, workspace string, st ospath.Style) {
	dir, old := dirIn(stateDir, workspace, st), legacyDir(stateDir, workspace, st)
	if dir == old {
		return
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if fi, err := os.Stat(old); err == nil && fi.IsDir() {
		_ = os.Rename(old, dir) // on failure a new repository starts
	}
}

// Open returns the shadow repository of o.Workspace, creating it when
// missing. Errors: ErrNoGit (wrapped); a workspace that is not a
// directory; git's and the file system's.
func Open(ctx context.Context, o Options) (*Repo, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoGit, err)
	}
	ws, err := filepath.Abs(o.Workspace)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: workspace %s: %w", o.Workspace, err)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("checkpoints: workspace %s is not a directory", ws)
	}
	if o.StateDir == "" {
		return nil, errors.New("checkpoints: no state directory configured")
	}
	adoptLegacy(o.StateDir, ws, ospath.Native())
	r := &Repo{git: bin, gitDir: Dir(o.StateDir, ws), workTree: ws, maxSize: o.MaxFileSize, lockWait: o.LockTimeout,
		userIgnor: os.DevNull}
	if r.maxSize <= 0 {
		r.maxSize = DefaultMaxFileSize
	}
	if r.maxFiles = o.MaxFiles; r.maxFiles <= 0 {
		r.maxFiles = DefaultMaxFiles
	}
	if r.lockWait <= 0 {
		r.lockWait = 5 * time.Minute
	}
	if user := gitdir.Find(ws); user.Exists() {
		if ex := filepath.Join(user.CommonDir, "info", "exclude"); isRegular(ex) {
			r.userIgnor = ex
		}
	}
	if err := r.init(ctx); err != nil {
		return nil, err
	}
	if err := r.writeExcludes(o.Exclude); err != nil {
		return nil, err
	}
	return r, nil
}

// GitDir returns the shadow repository's directory.
func (r *Repo) GitDir() string { return r.gitDir }

// Workspace returns the work tree (absolute, symbolic links resolved).
func (r *Repo) Workspace() string { return r.workTree }

// MaxFileSize returns the size cap of a snapshotted file in bytes.
func (r *Repo) MaxFileSize() int64 { return r.maxSize }

// shadowAttributes turn off every conversion a work tree's
// .gitattributes could ask for (info/attributes wins over them), so a
// blob is the file's bytes and a restore writes them back unchanged.
const shadowAttributes = "* -text -filter -ident -working-tree-encoding !eol\n"

// shadowExclude leaves aidex's own folder out of the snapshots.
const shadowExclude = "/.aidex/\n"

// init creates the repository when it has no HEAD yet.
func (r *Repo) init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(r.gitDir, "HEAD")); err == nil {
		return nil
	}
	if err := os.MkdirAll(r.gitDir, 0o700); err != nil {
		return fmt.Errorf("checkpoints: create %s: %w", r.gitDir, err)
	}
	return r.locked(ctx, func() error {
		if _, err := os.Stat(filepath.Join(r.gitDir, "HEAD")); err == nil {
			return nil
		}
		if _, err := r.run(ctx, nil, "init", "--quiet", "--bare", r.gitDir); err != nil {
			return err
		}
		for _, kv := range [][2]string{{"core.bare", "false"}, {"core.logAllRefUpdates", "false"}} {
			if _, err := r.run(ctx, nil, "config", kv[0], kv[1]); err != nil {
				return err
			}
		}
		info := filepath.Join(r.gitDir, "info")
		if err := os.MkdirAll(info, 0o700); err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		if err := os.WriteFile(filepath.Join(info, "attributes"), []byte(shadowAttributes), 0o600); err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		return nil
	})
}

// writeExcludes writes the shadow repository's info/exclude: aidex's own
// folder, and each of dirs (and the repository itself) that lies inside
// the workspace, as an anchored pattern. Unchanged content is not
// rewritten.
func (r *Repo) writeExcludes(dirs []string) error {
	var b strings.Builder
	b.WriteString(shadowExclude)
	for _, d := range append([]string{r.gitDir}, dirs...) {
		if d == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		rel, err := filepath.Rel(r.workTree, d)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		b.WriteString("/" + escapePattern(filepath.ToSlash(rel)) + "/\n")
	}
	path := filepath.Join(r.gitDir, "info", "exclude")
	if old, err := os.ReadFile(path); err == nil && string(old) == b.String() {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	if err := writeState(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	return nil
}

// escapePattern escapes the characters gitignore patterns treat as
// special, so a folder name matches literally.
func escapePattern(p string) string {
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`\*?[]!# `, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// safeConfig is set on every git command line (it beats the repository's
// own configuration): no hooks, no fsmonitor, no pager, no signing, no
// automatic maintenance, content byte for byte, modes and symbolic links
// kept.
var safeConfig = [...]string{
	"core.hooksPath=" + os.DevNull,
	"core.fsmonitor=false",
	"core.pager=cat",
	"core.autocrlf=false",
	"core.safecrlf=false",
	"core.symlinks=true",
	"core.filemode=true",
	"core.quotePath=false",
	"core.attributesFile=" + os.DevNull,
	"core.untrackedCache=false",
	"core.splitIndex=false",
	"commit.gpgSign=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"safe.directory=*",
	"index.skipHash=false",
}

// env is git's whole environment: nothing of aidex's is passed on but
// PATH.
func (r *Repo) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"LC_ALL=C",
		"HOME=" + r.gitDir,
		"XDG_CONFIG_HOME=" + r.gitDir,
		"GIT_DIR=" + r.gitDir,
		"GIT_WORK_TREE=" + r.workTree,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=aidex", "GIT_AUTHOR_EMAIL=aidex@localhost",
		"GIT_COMMITTER_NAME=aidex", "GIT_COMMITTER_EMAIL=aidex@localhost",
	}
}

// run runs git with args in the work tree, stdin as its input; it
// returns stdout. Errors name the subcommand and carry git's message.
func (r *Repo) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := r.command(ctx, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), fmt.Errorf("checkpoints: git %s: %s: %w", args[0], msg, err)
	}
	return out.Bytes(), nil
}

// command is git with the safe settings and environment, running args in
// the work tree.
func (r *Repo) command(ctx context.Context, args ...string) *exec.Cmd {
	neutral := gitdir.AlwaysConfig()
	argv := make([]string, 0, 2*len(safeConfig)+2*len(neutral)+len(args)+3)
	for _, kv := range neutral { // the table every git aidex runs uses
		argv = append(argv, "-c", kv[0]+"="+kv[1])
	}
	for _, c := range safeConfig {
		argv = append(argv, "-c", c)
	}
	argv = append(argv, "-c", "core.excludesFile="+r.userIgnor, "--no-pager")
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, r.git, argv...)
	// On cancellation git gets SIGTERM, on which it removes its lock files
	// (index.lock); SIGKILL, the default, left a stale index.lock that
	// failed every later snapshot of the workspace.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Dir = r.workTree
	cmd.Env = r.env()
	if args[0] == "init" {
		cmd.Env = withoutWorkTree(cmd.Env)
	}
	return cmd
}

func withoutWorkTree(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "GIT_WORK_TREE=") && !strings.HasPrefix(e, "GIT_DIR=") {
			out = append(out, e)
		}
	}
	return out
}

// locked runs fn holding the repository's lock, waiting for another
// holder up to the lock timeout.
func (r *Repo) locked(ctx context.Context, fn func() error) error {
	path := filepath.Join(r.gitDir, "aidex.lock")
	deadline := time.Now().Add(r.lockWait)
	for {
		unlock, err := filelock.TryLock(path, 0o600)
		if err == nil {
			defer unlock()
			r.removeStaleIndexLock()
			return fn()
		}
		if !errors.Is(err, filelock.ErrLocked) {
			return fmt.Errorf("checkpoints: lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("checkpoints: %s is locked by another aidex for over %s; retry when it is done", r.gitDir, r.lockWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// removeStaleIndexLock removes the shadow index's index.lock left by a git
// that was killed (a crash, SIGKILL): every git that writes the index runs
// under the repository's lock, which the caller holds, so a lock file now
// is stale, and git would refuse every later write.
func (r *Repo) removeStaleIndexLock() {
	_ = os.Remove(filepath.Join(r.gitDir, "index.lock"))
}

// overCap reports whether the workspace file rel (slash-separated) is a
// regular file over the size cap; exists is false when it is gone.
func (r *Repo) overCap(rel string) (over, exists bool) {
	fi, err := os.Lstat(filepath.Join(r.workTree, filepath.FromSlash(rel)))
	if err != nil {
		return false, !errors.Is(err, fs.ErrNotExist)
	}
	return fi.Mode().IsRegular() && fi.Size() > r.maxSize, true
}

// writeState replaces one of the repository's own state files (the tip,
// the index's tree, the permissions map) by a rename, without the fsync
// of atomicfile: they are rebuilt from the repository when lost, and a
// snapshot must stay cheap.
func writeState(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), perm)); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// isRegular reports whether p is a regular file (symbolic links followed).
func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
