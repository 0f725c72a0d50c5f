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

	res, err := live.Rewind(ctx, cps[0].ID, RewindBoth)
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
	_, err = svc.Rewind(ctx, "", res.Undo, RewindCode)
	require.NoError(t, err)
	delete(changed, "sub") // the folder rm left empty: git keeps no folders
	require.Equal(t, changed, treeState(t, ws), "rewinding to the rewind's checkpoint redoes the changes")
}

// A rewind of an unknown id fails with ErrUnknownCheckpoint naming it.
func TestRewindUnknownCheckpoint(t *testing.T) {
	svc, _ := yoloService(t)
	_, err := svc.Rewind(context.Background(), "", "zzzzzzzz", RewindBoth)
	require.ErrorIs(t, err, ErrUnknownCheckpoint)
	require.ErrorContains(t, err, "zzzzzzzz")
}

// aidex undo restores what a command changed (the turn's checkpoint), and
// a second undo goes one turn further back.
func TestUndoRestoresShellChanges(t *testing.T) {
	svc, ws := yoloService(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo two > a.txt && rm b.txt"}`}}},
		llmtest.Turn{Text: "done"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo three > a.txt && touch c.txt"}`}}},
		llmtest.Turn{Text: "done"})
	ctx := context.Background()
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

	undone, err := svc.Undo(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []session.Undone{{Path: filepath.Join(ws, "a.txt")}, {Path: filepath.Join(ws, "c.txt"), Deleted: true}}, undone)
	require.Equal(t, middle, treeState(t, ws))
	_, err = svc.Undo(ctx, "")
	require.NoError(t, err)
	require.Equal(t, start, treeState(t, ws))
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
