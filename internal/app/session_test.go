package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// newTestService starts a Service over a scripted model with two models
// (m1, m2) of provider "fake".
func newTestService(t *testing.T, turns ...llmtest.Turn) *Service {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1", "m2"}, "max_retries = 0"))
	ws, env := home.WS, home.Env
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: ws, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	return svc
}

// A stored session taken up after a model switch records the model it
// now runs on (the session list shows it).
func TestSessionRecordsTheCurrentModel(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	_, err = svc.SwitchModel(ctx, "m2")
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	info, err := svc.Store().Info(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, "m2", info.Model)
}

// While a run goes on, a second run, a rebuild and a switch of stored
// session are refused with agent.ErrBusy: they would run two engines on
// one conversation or close the tools of the running one.
func TestSessionRefusesWhileRunning(t *testing.T) {
	svc := newTestService(t, llmtest.Turn{Text: "thinking", Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	done := make(chan error, 1)
	go func() {
		_, err := live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(agent.Event) {})
		done <- err
	}()
	require.Eventually(t, func() bool { return errors.Is(live.idle(), agent.ErrBusy) }, 10*time.Second, 10*time.Millisecond)
	_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "again"}}, func(agent.Event) {})
	require.ErrorIs(t, err, agent.ErrBusy)
	require.NoError(t, svc.SetMode("plan"))
	require.ErrorIs(t, live.Refresh(ctx), agent.ErrBusy)
	require.ErrorIs(t, live.Use(ctx, sess), agent.ErrBusy)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.NoError(t, live.Refresh(context.Background()), "after the run, the switch applies")
}
