package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/filelock"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

// startService starts a Service on a scripted model in temp directories.
func startService(t *testing.T, script *llmtest.Script, env map[string]string, ws string) *Service {
	t.Helper()
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: ws, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	return svc
}

// sessionEnv writes the scripted provider's config into a temp home.
func sessionEnv(t *testing.T, script *llmtest.Script) (map[string]string, string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CACHE_HOME": filepath.Join(home, "cache")}
	cfgDir := filepath.Join(home, "config", "aidex")
	require.NoError(t, os.MkdirAll(cfgDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"),
		[]byte(strings.Replace(testConfig, "%s", script.URL, 1)), 0o600))
	return env, t.TempDir()
}

func prompt(s string) []llm.Part { return []llm.Part{{Type: llm.PartText, Text: s}} }

// holdLock takes path's lock the way another aidex process does (the OS
// lock, then its pid in the file) and returns the release func.
func holdLock(t *testing.T, path string, pid int) func() {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	unlock, err := filelock.TryLock(path, 0o600)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o600))
	return unlock
}

// A run of a session another aidex holds is refused at once, naming the
// holder's pid; nothing reaches the model or the stored conversation. Once
// the holder is gone the run goes on.
func TestSessionRunRefusedWhileAnotherAidexHoldsIt(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "answer"})
	env, ws := sessionEnv(t, script)
	svc := startService(t, script, env, ws)
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()

	const otherPID = 424242
	release := holdLock(t, filepath.Join(svc.lockDir, sess.ID+".lock"), otherPID)
	_, err = live.Run(ctx, prompt("hello"), func(agent.Event) {})
	var inUse *sessionInUseError
	require.ErrorAs(t, err, &inUse)
	require.ErrorIs(t, err, ErrSessionInUse)
	require.Equal(t, "session "+sess.ID+" is in use by another aidex (pid 424242); wait for it to finish or start a new session", err.Error())
	require.Empty(t, script.Requests(), "nothing went to the model")
	stored, err := svc.Store().Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Empty(t, stored.Messages, "nothing was stored")

	release()
	done, err := live.Run(ctx, prompt("hello"), func(agent.Event) {})
	require.NoError(t, err)
	require.Equal(t, "answer", done.Result)
	data, _ := os.ReadFile(filepath.Join(svc.lockDir, sess.ID+".lock"))
	require.Empty(t, data, "the pid is cleared when the run ends")
}

// Two live sessions of one process on the same stored session: the second
// run is agent.ErrBusy, not "another aidex".
func TestSessionLockInProcessIsBusy(t *testing.T) {
	script := llmtest.NewScript(t)
	env, ws := sessionEnv(t, script)
	svc := startService(t, script, env, ws)
	release := holdLock(t, filepath.Join(svc.lockDir, "S1.lock"), os.Getpid())
	defer release()
	_, err := lockSession(svc.lockDir, "S1")
	require.ErrorIs(t, err, agent.ErrBusy)
	require.False(t, errors.Is(err, ErrSessionInUse))
}

// A live session continues the conversation as stored: when another aidex
// continued the session since this one's last run, the next run sends the
// model the whole conversation, in order, not this process's stale copy.
func TestSessionRunReloadsWhatAnotherAidexAdded(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "A1"}, llmtest.Turn{Text: "B1"}, llmtest.Turn{Text: "A2"})
	env, ws := sessionEnv(t, script)
	ctx := context.Background()
	svcA := startService(t, script, env, ws)
	sess, err := svcA.Pick(ctx, "", false)
	require.NoError(t, err)
	a, err := svcA.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer a.Close()
	_, err = a.Run(ctx, prompt("first from A"), func(agent.Event) {})
	require.NoError(t, err)

	svcB := startService(t, script, env, ws) // another aidex: aidex -c
	sessB, err := svcB.Pick(ctx, "", true)
	require.NoError(t, err)
	b, err := svcB.Session(ctx, sessB, SessionOptions{})
	require.NoError(t, err)
	defer b.Close()
	_, err = b.Run(ctx, prompt("from B"), func(agent.Event) {})
	require.NoError(t, err)

	_, err = a.Run(ctx, prompt("second from A"), func(agent.Event) {})
	require.NoError(t, err)
	last := string(script.Requests()[2])
	iA1, iB, iA2 := strings.Index(last, "first from A"), strings.Index(last, "from B"), strings.Index(last, "second from A")
	require.True(t, iA1 >= 0 && iB > iA1 && iA2 > iB, "A's second request lacks B's exchange or has it out of order:\n%s", last)
	stored, err := svcA.Store().Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Len(t, stored.Messages, 6)
	require.Len(t, a.Info().Messages, 6)
}

// Ralph holds a task session's lock while it runs it: `aidex -c` on that
// session is refused meanwhile.
func TestRalphEngineHoldsSessionLock(t *testing.T) {
	script := llmtest.NewScript(t)
	env, ws := sessionEnv(t, script)
	svc := startService(t, script, env, ws)
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	b := svc.RalphBackend(false)
	_, closeEng, err := b.Engine(ctx, ralph.EngineRequest{SessionID: sess.ID})
	require.NoError(t, err)
	_, err = lockSession(svc.lockDir, sess.ID)
	require.ErrorIs(t, err, agent.ErrBusy)
	closeEng()
	unlock, err := lockSession(svc.lockDir, sess.ID)
	require.NoError(t, err)
	unlock()
}

// A session resumed with -c is not loaded a second time by its first run
// (a long session's resume paid for decoding it twice): the run continues
// the copy Pick loaded, as nothing changed the session since. The proof:
// an edit to the copy in memory (not a thing aidex does) reaches the model.
func TestResumedSessionFirstRunKeepsTheLoadedCopy(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "A1"}, llmtest.Turn{Text: "B1"})
	env, ws := sessionEnv(t, script)
	ctx := context.Background()
	svcA := startService(t, script, env, ws)
	sess, err := svcA.Pick(ctx, "", false)
	require.NoError(t, err)
	a, err := svcA.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	_, err = a.Run(ctx, prompt("first from A"), func(agent.Event) {})
	require.NoError(t, err)
	a.Close()

	svcB := startService(t, script, env, ws) // aidex -c
	sessB, err := svcB.Pick(ctx, "", true)
	require.NoError(t, err)
	b, err := svcB.Session(ctx, sessB, SessionOptions{})
	require.NoError(t, err)
	defer b.Close()
	sessB.Messages[0].Parts[0].Text = "copy held in memory"
	_, err = b.Run(ctx, prompt("from B"), func(agent.Event) {})
	require.NoError(t, err)
	require.Contains(t, string(script.Requests()[1]), "copy held in memory", "the first run reloaded the session Pick had loaded")
}

// A session resumed with -c and changed by another aidex before its first
// run is reloaded by that run: the model gets the other's exchange.
func TestResumedSessionChangedBeforeFirstRunIsReloaded(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "A1"}, llmtest.Turn{Text: "A2"}, llmtest.Turn{Text: "B1"})
	env, ws := sessionEnv(t, script)
	ctx := context.Background()
	svcA := startService(t, script, env, ws)
	sess, err := svcA.Pick(ctx, "", false)
	require.NoError(t, err)
	a, err := svcA.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer a.Close()
	_, err = a.Run(ctx, prompt("first from A"), func(agent.Event) {})
	require.NoError(t, err)

	svcB := startService(t, script, env, ws) // aidex -c, left at its prompt
	sessB, err := svcB.Pick(ctx, "", true)
	require.NoError(t, err)
	b, err := svcB.Session(ctx, sessB, SessionOptions{})
	require.NoError(t, err)
	defer b.Close()
	_, err = a.Run(ctx, prompt("second from A"), func(agent.Event) {})
	require.NoError(t, err)
	_, err = b.Run(ctx, prompt("from B"), func(agent.Event) {})
	require.NoError(t, err)
	last := string(script.Requests()[2])
	require.True(t, strings.Contains(last, "second from A") && strings.Index(last, "from B") > strings.Index(last, "second from A"),
		"B's first request lacks A's later exchange:\n%s", last)
	require.Len(t, b.Info().Messages, 6)
}
