package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRestoreBringsBackChangedDeletedAndRemovesNew(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, "a.txt", "alpha\n", 0o644)
	write(t, ws, "bin/run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(t, ws, "sub/deep/b.txt", "beta\n", 0o600)
	require.NoError(t, os.Symlink("a.txt", filepath.Join(ws, "link")))
	before := state(t, ws)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)

	write(t, ws, "a.txt", "changed\n", 0o644)
	require.NoError(t, os.Remove(filepath.Join(ws, "bin/run.sh")))
	require.NoError(t, os.RemoveAll(filepath.Join(ws, "sub")))
	require.NoError(t, os.Remove(filepath.Join(ws, "link")))
	require.NoError(t, os.Symlink("elsewhere", filepath.Join(ws, "link")))
	write(t, ws, "new/dir/new.txt", "new\n", 0o644)
	write(t, ws, "new.txt", "", 0o644)

	res, err := r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, before, state(t, ws))
	require.Equal(t, []string{"a.txt", "bin/run.sh", "link", "sub/deep/b.txt"}, res.Written)
	require.Equal(t, []string{"new.txt", "new/dir/new.txt"}, res.Deleted)
}

// A file is removed only when the snapshot lacks it and it is new since:
// a file the snapshot's rules ignored (the rule was dropped later) stays.
func TestRestoreRemovalRule(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, ".gitignore", "build/\n", 0o644)
	write(t, ws, "build/out.bin", "artifact\n", 0o644)
	write(t, ws, "src.go", "package x\n", 0o644)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)

	write(t, ws, ".gitignore", "", 0o644) // build/ is no longer ignored: the next snapshot has it
	write(t, ws, "added.go", "package y\n", 0o644)
	_, err = r.Snapshot(ctx, "later")
	require.NoError(t, err)

	res, err := r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, []string{"added.go"}, res.Deleted)
	require.Equal(t, []string{"build/out.bin"}, res.Kept)
	require.Equal(t, []string{".gitignore"}, res.Written)
	require.FileExists(t, filepath.Join(ws, "build/out.bin"), "it existed at the snapshot, ignored")
}

// Ignored files are neither snapshotted nor touched: changed, created or
// deleted after the snapshot, they stay as they are.
func TestIgnoredFilesNeverTouched(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, ".gitignore", "*.log\n/.env\n", 0o644)
	write(t, ws, "app.log", "one\n", 0o644)
	write(t, ws, ".env", "SECRET=1\n", 0o600)
	write(t, ws, "main.go", "package main\n", 0o644)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)
	write(t, ws, "app.log", "two\n", 0o644)
	write(t, ws, "new.log", "new\n", 0o644)
	require.NoError(t, os.Remove(filepath.Join(ws, ".env")))
	write(t, ws, "main.go", "package changed\n", 0o644)

	res, err := r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, []string{"main.go"}, res.Written)
	require.Empty(t, res.Deleted)
	require.Equal(t, "two\n", read(t, ws, "app.log"))
	require.Equal(t, "new\n", read(t, ws, "new.log"))
	require.NoFileExists(t, filepath.Join(ws, ".env"), "an ignored file is not snapshotted, so not brought back")
}

// Files over the size cap are never snapshotted nor touched: a big file
// created, changed or grown past the cap is left as it is.
func TestOverCapFilesNeverTouched(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 16)
	write(t, ws, "small.txt", "small\n", 0o644)
	write(t, ws, "grows.txt", "tiny\n", 0o644)
	write(t, ws, "big.bin", "0123456789abcdefXYZ", 0o644)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)
	files, err := r.Changed(ctx, cp, "")
	require.NoError(t, err)
	require.Empty(t, files)

	write(t, ws, "big.bin", "changed, still over the cap", 0o644)
	write(t, ws, "grows.txt", "now well over sixteen bytes", 0o644)
	write(t, ws, "new-big.bin", "new and over the sixteen-byte cap", 0o644)
	write(t, ws, "small.txt", "edited\n", 0o644)
	res, err := r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, []string{"small.txt"}, res.Written)
	require.Empty(t, res.Deleted)
	require.Equal(t, []string{"grows.txt"}, res.Kept)
	require.Equal(t, "changed, still over the cap", read(t, ws, "big.bin"))
	require.Equal(t, "now well over sixteen bytes", read(t, ws, "grows.txt"))
	require.Equal(t, "new and over the sixteen-byte cap", read(t, ws, "new-big.bin"))
	require.Equal(t, "small\n", read(t, ws, "small.txt"))
}

// Permissions come back exactly (0600, 0640, 0755, 0700), for deleted
// and for changed files, and a change of the executable bit is undone.
func TestRestoreKeepsModes(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, "secret", "s\n", 0o600)
	write(t, ws, "group", "g\n", 0o640)
	write(t, ws, "tool.sh", "#!/bin/sh\n", 0o755)
	write(t, ws, "private.sh", "#!/bin/sh\n", 0o700)
	write(t, ws, "plain", "p\n", 0o644)
	before := state(t, ws)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)
	for _, f := range []string{"secret", "private.sh"} {
		require.NoError(t, os.Remove(filepath.Join(ws, f)))
	}
	write(t, ws, "group", "changed\n", 0o666)
	require.NoError(t, os.Chmod(filepath.Join(ws, "tool.sh"), 0o644))
	require.NoError(t, os.Chmod(filepath.Join(ws, "plain"), 0o755))
	_, err = r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, before, state(t, ws))
}

// Symbolic links are kept as links (their target, not what they point
// at), and a link put where a folder was is not followed by a restore:
// the folder comes back, the link's target is untouched.
func TestRestoreSymlinks(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	outside := t.TempDir()
	write(t, ws, "dir/file.txt", "inside\n", 0o644)
	require.NoError(t, os.Symlink("dir/file.txt", filepath.Join(ws, "link")))
	require.NoError(t, os.Symlink("../nowhere", filepath.Join(ws, "dangling")))
	before := state(t, ws)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)

	require.NoError(t, os.RemoveAll(filepath.Join(ws, "dir")))
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "dir")))
	require.NoError(t, os.Remove(filepath.Join(ws, "link")))
	write(t, ws, "link", "now a file\n", 0o644)
	require.NoError(t, os.Remove(filepath.Join(ws, "dangling")))

	_, err = r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, before, state(t, ws))
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing was written through the link")
}

// The user's own repository is never touched nor used: its .git is
// byte-identical after snapshots and a restore, it is not in the
// snapshot, and a filter its config and .gitattributes name never runs.
// Content is stored byte for byte whatever .gitattributes says.
func TestUserRepositoryUntouched(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	marker := filepath.Join(t.TempDir(), "filter-ran")
	gitIn(t, ws, "init", "-q")
	gitIn(t, ws, "config", "filter.evil.clean", "touch "+marker+"; cat")
	gitIn(t, ws, "config", "filter.evil.smudge", "touch "+marker+"; cat")
	write(t, ws, ".gitattributes", "*.txt filter=evil\n* text eol=crlf\n", 0o644)
	write(t, ws, "a.txt", "line one\nline two\r\n", 0o644)
	gitIn(t, ws, "add", "-A")
	gitIn(t, ws, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "c")
	require.NoError(t, os.Remove(marker))
	before := state(t, ws)

	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)
	out, err := r.run(ctx, nil, "ls-tree", "-r", "--name-only", cp)
	require.NoError(t, err)
	require.Equal(t, ".gitattributes\na.txt\n", string(out))
	write(t, ws, "a.txt", "changed\n", 0o644)
	_, err = r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, before, state(t, ws), "byte for byte, .git included")
	require.NoFileExists(t, marker, "no filter of the user's repository ran")
}

// A nested repository is left out of the snapshots and never touched.
func TestNestedRepositoryLeftAlone(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, "top.txt", "top\n", 0o644)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)
	write(t, ws, "vendor/lib/x.go", "package lib\n", 0o644)
	gitIn(t, filepath.Join(ws, "vendor/lib"), "init", "-q")
	_, err = r.Snapshot(ctx, "later")
	require.NoError(t, err)
	res, err := r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Empty(t, res.Deleted)
	require.FileExists(t, filepath.Join(ws, "vendor/lib/x.go"))
}

// An unchanged workspace reuses the last snapshot; Changed lists what
// differs between snapshots and with the workspace now.
func TestSnapshotIncremental(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, "a.txt", "a\n", 0o644)
	first, err := r.Snapshot(ctx, "one")
	require.NoError(t, err)
	again, err := r.Snapshot(ctx, "two")
	require.NoError(t, err)
	require.Equal(t, first, again)
	write(t, ws, "b.txt", "b\n", 0o644)
	second, err := r.Snapshot(ctx, "three")
	require.NoError(t, err)
	require.NotEqual(t, first, second)
	files, err := r.Changed(ctx, first, second)
	require.NoError(t, err)
	require.Equal(t, []string{"b.txt"}, files)
	require.NoError(t, os.Remove(filepath.Join(ws, "a.txt")))
	files, err = r.Changed(ctx, second, "")
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, files)
	_, err = r.Restore(ctx, "0123456789012345678901234567890123456789")
	require.ErrorContains(t, err, "is not a snapshot")
}

// More new or changed files than the limit: ErrTooLarge, nothing
// recorded; once they are ignored, the snapshot goes through.
func TestSnapshotTooLarge(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	r, err := Open(ctx, Options{StateDir: t.TempDir(), Workspace: ws, MaxFiles: 3})
	require.NoError(t, err)
	for i := range 5 {
		write(t, ws, filepath.Join("deps", string(rune('a'+i))), "x", 0o644)
	}
	_, err = r.Snapshot(ctx, "big")
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorContains(t, err, ".gitignore")
	write(t, ws, ".gitignore", "deps/\n", 0o644)
	_, err = r.Snapshot(ctx, "ok")
	require.NoError(t, err)
}

// A workspace that holds aidex's own folders (the home folder) never
// snapshots nor rewinds them, nor the shadow repository itself.
func TestOwnFoldersExcluded(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "aidex")
	data := filepath.Join(home, ".local", "share", "aidex")
	write(t, home, ".local/share/aidex/aidex.db", "db v1", 0o600)
	write(t, home, "notes.txt", "n\n", 0o644)
	r, err := Open(ctx, Options{StateDir: state, Workspace: home, Exclude: []string{data, state}})
	require.NoError(t, err)
	cp, err := r.Snapshot(ctx, "one")
	require.NoError(t, err)
	out, err := r.run(ctx, nil, "ls-tree", "-r", "--name-only", cp)
	require.NoError(t, err)
	require.Equal(t, "notes.txt\n", string(out))
	write(t, home, ".local/share/aidex/aidex.db", "db v2", 0o600)
	write(t, home, "notes.txt", "changed\n", 0o644)
	_, err = r.Snapshot(ctx, "two")
	require.NoError(t, err)
	res, err := r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, []string{"notes.txt"}, res.Written)
	require.Equal(t, "db v2", read(t, home, ".local/share/aidex/aidex.db"))
}

// A linked worktree's .git file is left out like a .git folder.
func TestGitFileLeftOut(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, ".git", "gitdir: /elsewhere/.git/worktrees/x\n", 0o644)
	write(t, ws, "a.txt", "a\n", 0o644)
	cp, err := r.Snapshot(ctx, "one")
	require.NoError(t, err)
	out, err := r.run(ctx, nil, "ls-tree", "-r", "--name-only", cp)
	require.NoError(t, err)
	require.Equal(t, "a.txt\n", string(out))
}

// A .gitignore new since the snapshot does not decide what is removed:
// a file it un-ignores that the snapshot's rules ignore is kept.
func TestRestoreNewIgnoreFileRulesNotApplied(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, ".gitignore", "*.log\n", 0o644)
	write(t, ws, "logs/old.log", "may have been here\n", 0o644)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)
	write(t, ws, "logs/.gitignore", "!*.log\n", 0o644)
	write(t, ws, "logs/new.log", "new\n", 0o644)
	res, err := r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, []string{"logs/.gitignore"}, res.Deleted)
	require.Equal(t, []string{"logs/new.log", "logs/old.log"}, res.Kept)
	require.FileExists(t, filepath.Join(ws, "logs/old.log"))
}

// A git killed while it held the shadow index's lock (a crash, SIGKILL)
// leaves index.lock behind; the next snapshot, which holds the
// repository's own lock, removes it instead of failing for good.
func TestSnapshotAfterStaleIndexLock(t *testing.T) {
	r, ws := open(t, 1<<20)
	ctx := context.Background()
	write(t, ws, "a.txt", "one", 0o644)
	if _, err := r.Snapshot(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.GitDir(), "index.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "a.txt", "two", 0o644)
	second, err := r.Snapshot(ctx, "second")
	if err != nil {
		t.Fatalf("snapshot after a stale index.lock: %v", err)
	}
	if files, err := r.Changed(ctx, second, ""); err != nil || len(files) != 0 {
		t.Errorf("the second snapshot does not hold the change: %v %v", files, err)
	}
}

// Checkpoint git reads none of the user's repository config, whatever
// program key it sets (issue 42): fsmonitor, hooks, pager, aliases.
func TestRepositoryConfigRunsNothingDuringCheckpoints(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	marker := filepath.Join(t.TempDir(), "ran")
	gitIn(t, ws, "init", "-q")
	prog := "sh -c 'echo ran >> " + marker + "'"
	for _, kv := range [][2]string{{"core.fsmonitor", prog}, {"core.pager", prog}, {"core.hooksPath", ".hooks"},
		{"diff.external", prog}, {"core.alternateRefsCommand", prog}} {
		gitIn(t, ws, "config", kv[0], kv[1])
	}
	write(t, ws, ".hooks/post-index-change", "#!/bin/sh\necho hook >> "+marker+"\n", 0o755)
	write(t, ws, ".git/hooks/post-index-change", "#!/bin/sh\necho hook >> "+marker+"\n", 0o755)
	write(t, ws, "a.txt", "a\n", 0o644)
	cp, err := r.Snapshot(ctx, "one")
	require.NoError(t, err)
	write(t, ws, "a.txt", "b\n", 0o644)
	_, err = r.Changed(ctx, cp, "")
	require.NoError(t, err)
	_, err = r.Restore(ctx, cp)
	require.NoError(t, err)
	require.NoFileExists(t, marker)
}
