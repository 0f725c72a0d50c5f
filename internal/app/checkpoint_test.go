package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/app/rewind"
	"github.com/zelvior/aidex/internal/checkpoint"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/session"
)

// yoloService starts a Service in yolo mode over a scripted model.
func yoloService(t *testing.T, turns ...llmtest.Turn) (*Service, string) {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\npermission_mode = \"yolo\""))
	env := home.Env
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	return svc, home.WS
}

// treeState maps every path under dir (folders and .git included) to its
// mode and the SHA-256 of its content (a symbolic link: its target).
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			sum := sha256.Sum256(data)
			v += " " + hex.EncodeToString(sum[:])
		}
		out[rel] = v
		return nil
	}))
	return out
}

// userGit runs git in ws as the user would (their own repository), with
// no optional locks so that status writes nothing.
func userGit(t *testing.T, ws string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=u", "-c", "user.email=u@x", "-c", "core.hooksPath=/dev/null"}, args...)...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return string(out)
}

func putFile(t *testing.T, ws, rel, content string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
	require.NoError(t, os.Chmod(p, mode))
}

// Acceptance: a run that changes files through run_command (sed -i, rm,
// touch) is rewound to before it: the workspace is byte-identical, modes
// included, the user's own .git is untouched, and the conversation is cut
// back to before the prompt. The rewind itself can be rewound.
func TestRewindUndoesShellChanges(t *testing.T) {
	cmd := `sed -i 's/alpha/ALPHA/' a.txt && rm run.sh sub/c.txt && touch new.txt && mkdir -p made/deep && echo x > made/deep/f`
	svc, ws := yoloService(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":` + quote(cmd) + `}`}}},
		llmtest.Turn{Text: "done"})
	ctx := context.Background()
	// aidex's own folder: the OS sandbox creates it (empty) to hold it
	// read-only, and checkpoints leave it out.
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".aidex"), 0o755))
	putFile(t, ws, "a.txt", "alpha\nbeta\n", 0o644)
	putFile(t, ws, "run.sh", "#!/bin/sh\necho run\n", 0o755)
	putFile(t, ws, "sub/c.txt", "c\n", 0o644)
	putFile(t, ws, ".gitignore", "*.log\n", 0o644)
	putFile(t, ws, "app.log", "log\n", 0o644)
	userGit(t, ws, "init", "-q")
	userGit(t, ws, "add", "a.txt", ".gitignore")
	userGit(t, ws, "commit", "-qm", "first")
	before, status := treeState(t, ws), userGit(t, ws, "status", "--porcelain")

	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	_, err = live.Run(ctx, prompt("change things"), func(agent.Event) {})
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(ws, "new.txt"))
	require.NoFileExists(t, filepath.Join(ws, "run.sh"))
	changed := treeState(t, ws)

	cps, err := live.Checkpoints(ctx)
	require.NoError(t, err)
	require.Len(t, cps, 1)
	require.Equal(t, "change things", cps[0].Prompt)
	require.Equal(t, 0, cps[0].Messages)
	require.Equal(t, []string{"a.txt", "made/deep/f", "new.txt", "run.sh", "sub/c.txt"}, cps[0].Files)

	res, err := live.Rewind(ctx, cps[0].ID, rewind.Both)
	require.NoError(t, err)
	require.Equal(t, before, treeState(t, ws), "the workspace is byte-identical, modes and .git included")
	require.Equal(t, status, userGit(t, ws, "status", "--porcelain"))
	require.Equal(t, []string{"a.txt", "run.sh", "sub/c.txt"}, res.Restored)
	require.Equal(t, []string{"made/deep/f", "new.txt"}, res.Deleted)
	require.Equal(t, 0, res.Messages)
	require.Empty(t, live.Info().Messages, "the conversation is cut back to before the prompt")
	stored, err := svc.Store().Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Empty(t, stored.Messages)

	require.NotEmpty(t, res.Undo)
	_, err = svc.Rewind(ctx, "", res.Undo, rewind.Code)
	require.NoError(t, err)
	delete(changed, "sub") // the folder rm left empty: git keeps no folders
	require.Equal(t, changed, treeState(t, ws), "rewinding to the rewind's checkpoint redoes the changes")
}

// A rewind of an unknown id fails with rewind.ErrUnknownCheckpoint naming it.
func TestRewindUnknownCheckpoint(t *testing.T) {
	svc, _ := yoloService(t)
	_, err := svc.Rewind(context.Background(), "", "zzzzzzzz", rewind.Both)
	require.ErrorIs(t, err, rewind.ErrUnknownCheckpoint)
	require.ErrorContains(t, err, "zzzzzzzz")
}

// aidex undo restores what a command changed (the turn's checkpoint) in
// the last turn that changed files (a turn that changed nothing is passed
// over), and a second undo goes one turn further back.
func TestUndoRestoresShellChanges(t *testing.T) {
	svc, ws := yoloService(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo two > a.txt && rm b.txt"}`}}},
		llmtest.Turn{Text: "done"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo three > a.txt && touch c.txt"}`}}},
		llmtest.Turn{Text: "done"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"ls"}`}}},
		llmtest.Turn{Text: "done"})
	ctx := context.Background()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".aidex"), 0o755)) // as the OS sandbox makes it
	putFile(t, ws, "a.txt", "one\n", 0o644)
	putFile(t, ws, "b.txt", "b\n", 0o600)
	start := treeState(t, ws)
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	_, err = live.Run(ctx, prompt("first"), func(agent.Event) {})
	require.NoError(t, err)
	middle := treeState(t, ws)
	_, err = live.Run(ctx, prompt("second"), func(agent.Event) {})
	require.NoError(t, err)
	_, err = live.Run(ctx, prompt("third changes nothing"), func(agent.Event) {})
	require.NoError(t, err)

	undone, err := svc.Undo(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []session.Undone{{Path: filepath.Join(ws, "a.txt")}, {Path: filepath.Join(ws, "c.txt"), Deleted: true}}, undone)
	require.Equal(t, middle, treeState(t, ws))
	_, err = svc.Undo(ctx, "")
	require.NoError(t, err)
	require.Equal(t, start, treeState(t, ws))
	_, err = svc.Undo(ctx, "")
	require.ErrorIs(t, err, session.ErrNothingToUndo)
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// runOnce runs one prompt in a new live session of svc with o.
func runOnce(t *testing.T, svc *Service, o SessionOptions, text string) *Session {
	t.Helper()
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, o)
	require.NoError(t, err)
	t.Cleanup(live.Close)
	_, err = live.Run(ctx, prompt(text), func(agent.Event) {})
	require.NoError(t, err)
	return live
}

// One checkpoint per exchange, before its first command, however many
// commands the model runs; a turn of reads takes none, nor does aidex's
// bookkeeping (a note under .aidex/) or a dry run of a write.
func TestCheckpointWhen(t *testing.T) {
	t.Run("once per exchange", func(t *testing.T) {
		svc, ws := yoloService(t,
			llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo 1 > a.txt"}`}}},
			llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo 2 > b.txt"}`}}},
			llmtest.Turn{Text: "done"})
		putFile(t, ws, "a.txt", "0\n", 0o644)
		live := runOnce(t, svc, SessionOptions{}, "two commands")
		cps, err := live.Checkpoints(context.Background())
		require.NoError(t, err)
		require.Len(t, cps, 1)
		require.Equal(t, []string{"a.txt", "b.txt"}, cps[0].Files)
	})
	t.Run("reads only", func(t *testing.T) {
		svc, ws := yoloService(t,
			llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
			llmtest.Turn{Text: "done"})
		putFile(t, ws, "a.txt", "0\n", 0o644)
		live := runOnce(t, svc, SessionOptions{}, "read")
		cps, err := live.Checkpoints(context.Background())
		require.NoError(t, err)
		require.Empty(t, cps)
	})
	t.Run("bookkeeping", func(t *testing.T) {
		svc, _ := yoloService(t,
			llmtest.Turn{Calls: []llmtest.Call{{Name: "create_note", Args: `{"title":"t","content":"c"}`}}},
			llmtest.Turn{Text: "done"})
		live := runOnce(t, svc, SessionOptions{}, "note")
		cps, err := live.Checkpoints(context.Background())
		require.NoError(t, err)
		require.Empty(t, cps)
	})
	t.Run("dry run", func(t *testing.T) {
		svc, ws := yoloService(t,
			llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"new.txt","content":"x"}`}}},
			llmtest.Turn{Text: "done"})
		live := runOnce(t, svc, SessionOptions{AgentWrites: "dry-run"}, "write")
		require.NoFileExists(t, filepath.Join(ws, "new.txt"))
		cps, err := live.Checkpoints(context.Background())
		require.NoError(t, err)
		require.Empty(t, cps)
	})
}

// A workspace too large to snapshot does not stop the turn: the tool
// runs, its output says there is no checkpoint, and no other call of
// the turn tries again.
func TestTooLargeWorkspaceTurnGoesOn(t *testing.T) {
	svc, ws := yoloService(t)
	ctx := context.Background()
	for _, f := range []string{"a", "b", "c"} {
		putFile(t, ws, f, "x", 0o644)
	}
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	require.NoError(t, svc.Store().AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Parts: prompt("go")}, nil))
	h := &engine.TurnHook{Store: svc.Store(), SessionID: sess.ID, Open: func(ctx context.Context) (*checkpoint.Repo, error) {
		return checkpoint.Open(ctx, checkpoint.Options{StateDir: t.TempDir(), Workspace: ws, MaxFiles: 2})
	}}
	note, err := h.Before(ctx)
	require.NoError(t, err)
	require.Contains(t, note, "no checkpoint of this turn")
	require.Contains(t, note, ".gitignore")
	note, err = h.Before(ctx)
	require.NoError(t, err)
	require.Empty(t, note)
	cps, err := svc.Checkpoints(ctx, sess.ID)
	require.NoError(t, err)
	require.Empty(t, cps)
}

// A session of an earlier aidex (per-file checkpoints in the store, no
// turn checkpoint) still undoes.
func TestUndoOldPerFileCheckpoints(t *testing.T) {
	svc, ws := yoloService(t)
	ctx := context.Background()
	putFile(t, ws, "a.txt", "new\n", 0o644)
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	require.NoError(t, svc.Store().AppendMessage(ctx, sess.ID, llm.UserText("old turn"), nil))
	require.NoError(t, svc.Store().Checkpoints(sess.ID).Save(ctx, filepath.Join(ws, "a.txt"), []byte("old\n"), true))
	undone, err := svc.Undo(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, []session.Undone{{Path: filepath.Join(ws, "a.txt")}}, undone)
	data, err := os.ReadFile(filepath.Join(ws, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "old\n", string(data))
}

// Without git on PATH the file tools keep per-file checkpoints, so undo
// still restores what they wrote.
func TestUndoWithoutGit(t *testing.T) {
	svc, ws := yoloService(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"new.txt","content":"x\n"}`}}},
		llmtest.Turn{Text: "done"})
	t.Setenv("PATH", t.TempDir())
	live := runOnce(t, svc, SessionOptions{}, "write")
	require.FileExists(t, filepath.Join(ws, "new.txt"))
	cps, err := svc.Store().Snapshots(context.Background(), live.ID(), "")
	require.NoError(t, err)
	require.Empty(t, cps)
	undone, err := svc.Undo(context.Background(), "")
	require.NoError(t, err)
	require.Equal(t, []session.Undone{{Path: filepath.Join(ws, "new.txt"), Deleted: true}}, undone)
	require.NoFileExists(t, filepath.Join(ws, "new.txt"))
}

// When the shadow repository is gone (the state folder was cleared), the
// list still shows the checkpoints, without files, and a rewind to one
// says its snapshot is gone and changes nothing.
func TestCheckpointsAfterStateCleared(t *testing.T) {
	svc, ws := yoloService(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo 1 > a.txt"}`}}},
		llmtest.Turn{Text: "done"})
	live := runOnce(t, svc, SessionOptions{}, "change")
	ctx := context.Background()
	require.NoError(t, os.RemoveAll(filepath.Join(svc.Runtime().Config.Paths.StateDir, "checkpoints")))
	cps, err := live.Checkpoints(ctx)
	require.NoError(t, err)
	require.Len(t, cps, 1)
	require.Empty(t, cps[0].Files)
	_, err = live.Rewind(ctx, cps[0].ID, rewind.Code)
	require.ErrorContains(t, err, "its snapshot is not in")
	require.FileExists(t, filepath.Join(ws, "a.txt"))
	cps, err = live.Checkpoints(ctx)
	require.NoError(t, err)
	require.Len(t, cps, 1, "the failed rewind recorded no checkpoint")
}
