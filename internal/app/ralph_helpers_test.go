package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/session"
)

// fixture is a workspace with a Service whose model is a scripted server.
type fixture struct {
	t       testing.TB
	ws      string
	env     map[string]string
	script  *llmtest.Script
	svc     *ralph.Service
	backend *ralphBackend
	store   *session.Store
	mu      sync.Mutex
	events  []ralph.Event
}

// testConfig is the global config of the fixtures: the scripted provider,
// no retries, auto-edit so the agent may write in the workspace.
const testConfig = `provider = "fake"
model = "m"
stream = true
max_retries = 0
permission_mode = "auto-edit"

[providers.fake]
type = "openai"
base_url = "%s"
`

func newFixture(t testing.TB, turns ...llmtest.Turn) *fixture {
	t.Helper()
	f := &fixture{t: t, script: llmtest.NewScript(t, turns...)}
	home := t.TempDir()
	f.ws = t.TempDir()
	f.env = map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_DATA_HOME":   filepath.Join(home, "data"),
		"XDG_STATE_HOME":  filepath.Join(home, "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, "cache"),
	}
	cfgDir := filepath.Join(home, "config", "aidex")
	require.NoError(t, os.MkdirAll(cfgDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"),
		[]byte(strings.Replace(testConfig, "%s", f.script.URL, 1)), 0o600))
	ctx := context.Background()
	rt, err := Load(ctx, Options{Workspace: f.ws, Getenv: func(k string) string { return f.env[k] }})
	require.NoError(t, err)
	f.store, err = session.Open(ctx, rt.Config.Paths.DataDir)
	require.NoError(t, err)
	t.Cleanup(func() { f.store.Close() })
	f.backend = &ralphBackend{Runtime: staticRuntime(rt), Sessions: f.store}
	f.svc = ralph.NewService(ralph.Options{Workspace: rt.Workspace, Backend: f.backend})
	return f
}

func (f *fixture) emit(ev ralph.Event) {
	f.mu.Lock()
	f.events = append(f.events, ev)
	f.mu.Unlock()
}

// of returns the events of one type.
func (f *fixture) of(typ ralph.EventType) []ralph.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ralph.Event
	for _, ev := range f.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func (f *fixture) add(tasks ...ralph.Task) []ralph.Task {
	f.t.Helper()
	out, err := f.svc.Add(context.Background(), tasks...)
	require.NoError(f.t, err)
	return out
}

func (f *fixture) task(id string) ralph.Task {
	f.t.Helper()
	t, err := f.svc.Get(id)
	require.NoError(f.t, err)
	return t
}

// requestText returns the request bodies' text, to look for prompts.
func (f *fixture) request(i int) string {
	f.t.Helper()
	reqs := f.script.Requests()
	require.Greater(f.t, len(reqs), i, "only %d requests", len(reqs))
	var v any
	require.NoError(f.t, json.Unmarshal(reqs[i], &v))
	b, _ := json.Marshal(v)
	return string(b)
}

func complete(status, summary string) llmtest.Call {
	b, _ := json.Marshal(map[string]string{"status": status, "summary": summary})
	return llmtest.Call{Name: "complete_task", Args: string(b)}
}
