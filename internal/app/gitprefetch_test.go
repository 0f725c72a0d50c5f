package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// With PrefetchGit the first system prompt gets the git line read while
// the service started; a later prompt reads git again and sees changes
// made since.
func TestPrefetchedGitLineIsUsedOnceThenReadAgain(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	env, ws := sessionEnv(t, script)
	gitRepo(t, ws)
	ctx := context.Background()
	svc, err := Start(ctx, StartOptions{Options: Options{Workspace: ws, Getenv: func(k string) string { return env[k] }}, PrefetchGit: true})
	require.NoError(t, err)
	defer svc.Close()
	run := func() string {
		t.Helper()
		sess, err := svc.Pick(ctx, "", false)
		require.NoError(t, err)
		live, err := svc.Session(ctx, sess, SessionOptions{})
		require.NoError(t, err)
		defer live.Close()
		_, err = live.Run(ctx, prompt("hi"), func(agent.Event) {})
		require.NoError(t, err)
		reqs := script.Requests()
		return string(reqs[len(reqs)-1])
	}
	require.Contains(t, run(), "branch main, clean")
	require.NoError(t, os.WriteFile(filepath.Join(ws, "new.txt"), []byte("x"), 0o644))
	second := run()
	require.Contains(t, second, "branch main, 1 changed file")
	require.False(t, strings.Contains(second, "branch main, clean"), "the second prompt reused the prefetched line")
}

// A service closed before any prompt stops its git prefetch (goleak in
// TestMain checks that nothing is left running).
func TestUnusedGitPrefetchStopsOnClose(t *testing.T) {
	script := llmtest.NewScript(t)
	env, ws := sessionEnv(t, script)
	gitRepo(t, ws)
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: ws, Getenv: func(k string) string { return env[k] }}, PrefetchGit: true})
	require.NoError(t, err)
	require.NoError(t, svc.Close())
}

// take hands the line out once, and only for its workspace.
func TestGitPrefetchTake(t *testing.T) {
	p := &gitPrefetch{workspace: "/w", done: make(chan struct{}), line: "branch x, clean", cancel: func() {}}
	close(p.done)
	if _, ok := p.take(context.Background(), "/other"); ok {
		t.Fatal("took another workspace's line")
	}
	if line, ok := p.take(context.Background(), "/w"); !ok || line != "branch x, clean" {
		t.Fatalf("take = %q, %v", line, ok)
	}
	if _, ok := p.take(context.Background(), "/w"); ok {
		t.Fatal("took the line twice")
	}
	var none *gitPrefetch
	if _, ok := none.take(context.Background(), "/w"); ok {
		t.Fatal("nil prefetch gave a line")
	}
}
