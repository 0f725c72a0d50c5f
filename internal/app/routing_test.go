package app

import (
	"context"
	"encoding/json"
	"fmt"
	turns "github.com/zelvior/aidex/internal/app/turn"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/session"
)

// routed starts a service over home and a live session of a new
// conversation in it; events are collected.
type routed struct {
	svc    *Service
	ls     *Session
	mu     sync.Mutex
	events []agent.Event
}

func startRouted(t *testing.T, home *apptest.Home, o SessionOptions) *routed {
	t.Helper()
	ctx := context.Background()
	env := home.Env
	svc, err := Start(ctx, StartOptions{Options: Options{Workspace: home.WS, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	ls, err := svc.Session(ctx, sess, o)
	require.NoError(t, err)
	t.Cleanup(ls.Close)
	return &routed{svc: svc, ls: ls}
}

func (r *routed) emit(ev agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *routed) run(t *testing.T, prompt string) *agent.DoneInfo {
	t.Helper()
	done, err := r.ls.Run(context.Background(), []llm.Part{{Type: llm.PartText, Text: prompt}}, r.emit)
	require.NoError(t, err)
	return done
}

func (r *routed) ofType(typ agent.EventType) []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, ev := range r.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// otherProvider is config of a second provider NAME of wire type typ at url
// with models.
func otherProvider(name, typ, url string, models ...string) string {
	return fmt.Sprintf("\n[providers.%s]\ntype = %q\nbase_url = %q\napi_key = \"k\"\nmodels = [%q]\n", name, typ, url, strings.Join(models, `", "`))
}

func TestFallbackModelAnswersAfterRateLimit(t *testing.T) {
	first := llmtest.NewScript(t, llmtest.Turn{Status: 429, ErrorBody: `{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}`})
	second := llmtest.NewScript(t, llmtest.Turn{Text: "answered by the fallback"})
	cfg := apptest.FakeProvider(first.URL, []string{"m1"}, `max_retries = 0
fallback_models = ["other/claude-x"]`) + otherProvider("other", "anthropic", second.URL, "claude-x")
	r := startRouted(t, apptest.NewHome(t, cfg), SessionOptions{})

	done := r.run(t, "hello")
	require.Equal(t, "answered by the fallback", done.Result)
	require.Equal(t, agent.StopDone, done.StopReason)
	require.Len(t, first.Requests(), 1)
	require.Len(t, second.Requests(), 1)
	require.Contains(t, string(second.Requests()[0]), `"model":"claude-x"`)
	require.Contains(t, string(second.Requests()[0]), "hello", "the fallback continues the same turn")

	notices := r.ofType(agent.EventNotice)
	require.Len(t, notices, 1)
	n := notices[0].Notice
	require.Equal(t, agent.NoticeFallback, n.Kind)
	require.Equal(t, "fake/m1", n.From)
	require.Equal(t, "other/claude-x", n.To)
	require.Equal(t, "rate_limit", n.ErrorKind)
	for _, ev := range r.ofType(agent.EventText) {
		require.Equal(t, "other/claude-x", ev.Model)
	}

	stored, err := r.svc.Store().Load(context.Background(), r.ls.ID())
	require.NoError(t, err)
	last := stored.Messages[len(stored.Messages)-1]
	require.Equal(t, llm.RoleAssistant, last.Role)
	require.Equal(t, "other/claude-x", last.Model)
	require.Equal(t, "answered by the fallback", last.Text())

	// The next prompt tries the main model first again.
	r.run(t, "again")
	require.Len(t, first.Requests(), 2)
}

func TestSmallModelDefaults(t *testing.T) {
	price := func(in, out float64) *catalog.Price { return &catalog.Price{Input: in, Output: out} }
	rt := &Runtime{Config: config.Defaults(), Provider: catalog.Provider{Name: "p", BaseURL: "https://api.example.com",
		Models: []catalog.Model{{ID: "big", Price: price(3, 15)}, {ID: "mini", Price: price(0.25, 1)}, {ID: "unknown"}}}, Model: "big"}
	spec, src := rt.modelRoom().smallModel()
	require.Equal(t, "p/mini", spec)
	require.Equal(t, "cheapest", src)

	rt.Model = "mini"
	spec, src = rt.modelRoom().smallModel()
	require.Equal(t, "p/mini", spec)
	require.Equal(t, "main", src)

	rt.Model = "big"
	rt.Provider.Type = "ollama"
	spec, src = rt.modelRoom().smallModel()
	require.Equal(t, "p/big", spec, "a local provider keeps the main model: no second model is loaded")
	require.Equal(t, "main", src)

	rt.Config.SmallModel = "mini"
	spec, src = rt.modelRoom().smallModel()
	require.Equal(t, "p/mini", spec)
	require.Equal(t, "config", src)
}

// modelOf returns a request body's model and tool names.
func modelOf(t *testing.T, body []byte) (string, []string) {
	var req struct {
		Model string `json:"model"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	return req.Model, names
}

// architectScript is a model server for an architect turn: "planner"
// reads greet.txt, then answers a plan; "m1" writes greet.txt, then
// says so. It records the architect's first offered tools and the
// editor's first request.
type architectScript struct {
	*llmtest.Script
	mu           sync.Mutex
	seen         map[string]int
	archTools    []string
	editorBodies []string
}

func newArchitectScript(t *testing.T) *architectScript {
	a := &architectScript{Script: llmtest.NewScript(t), seen: map[string]int{}}
	a.Route = func(body []byte, _ int) llmtest.Turn {
		model, tools := modelOf(t, body)
		a.mu.Lock()
		defer a.mu.Unlock()
		a.seen[model]++
		switch {
		case model == "planner" && a.seen[model] == 1:
			a.archTools = tools
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"greet.txt"}`}}}
		case model == "planner":
			return llmtest.Turn{Text: "PLAN: write greet.txt with the single line goodbye"}
		case model == "m1" && a.seen[model] == 1:
			a.editorBodies = append(a.editorBodies, string(body))
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"greet.txt","content":"goodbye\n"}`}}}
		}
		return llmtest.Turn{Text: "wrote greet.txt"}
	}
	return a
}

func TestArchitectPlansReadOnlyThenEditorEdits(t *testing.T) {
	script := newArchitectScript(t)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1", "planner"}, `max_retries = 0
permission_mode = "auto-edit"
architect_model = "planner"`))
	require.NoError(t, os.WriteFile(filepath.Join(home.WS, "greet.txt"), []byte("hello\n"), 0o644))
	r := startRouted(t, home, SessionOptions{})

	done := r.run(t, "say goodbye instead")
	require.Equal(t, agent.StopDone, done.StopReason)
	require.Equal(t, "wrote greet.txt", done.Result)
	require.Equal(t, 4, done.Turns, "both phases' turns")

	// (task stays: its subagents inherit the read-only tools.)
	script.mu.Lock()
	archTools, editorBodies := script.archTools, script.editorBodies
	script.mu.Unlock()
	require.Contains(t, archTools, "read_file")
	for _, name := range archTools {
		require.NotContains(t, []string{"write_file", "edit_file", "multi_edit", "apply_patch", "delete_file", "move_file", "run_command", "run_python", "git_commit"}, name,
			"the architect's request offers %s", name)
	}
	require.Len(t, editorBodies, 1)
	require.Contains(t, editorBodies[0], "PLAN: write greet.txt with the single line goodbye", "the editor's request carries the plan")
	require.Contains(t, editorBodies[0], "write_file")

	data, err := os.ReadFile(filepath.Join(home.WS, "greet.txt"))
	require.NoError(t, err)
	require.Equal(t, "goodbye\n", string(data), "the edit landed")

	// One session and one done event; two labelled phases.
	require.Len(t, r.ofType(agent.EventSession), 1)
	require.Len(t, r.ofType(agent.EventDone), 1)
	var phases []string
	for _, n := range r.ofType(agent.EventNotice) {
		phases = append(phases, n.Notice.Phase+" "+n.Notice.To)
	}
	require.Equal(t, []string{"architect fake/planner", "editor fake/m1"}, phases)
	for _, ev := range r.ofType(agent.EventToolCall) {
		want := map[string]string{"read_file": turns.PhaseArchitect, "write_file": turns.PhaseEditor}[ev.ToolCall.Name]
		require.Equal(t, want, ev.Phase, ev.ToolCall.Name)
	}
	stored, err := r.svc.Store().Load(context.Background(), r.ls.ID())
	require.NoError(t, err)
	var models []string
	for _, m := range stored.Messages {
		if m.Role == llm.RoleAssistant {
			models = append(models, m.Model)
		}
	}
	require.Equal(t, []string{"fake/planner", "fake/planner", "fake/m1", "fake/m1"}, models)
}

func TestSmallModelTitlesNewSessionInBackground(t *testing.T) {
	script := llmtest.NewScript(t)
	var mu sync.Mutex
	var titleReqs []string
	script.Route = func(body []byte, _ int) llmtest.Turn {
		model, tools := modelOf(t, body)
		if model == "tiny" {
			mu.Lock()
			titleReqs = append(titleReqs, string(body))
			mu.Unlock()
			require.Empty(t, tools, "a side job offers no tools")
			return llmtest.Turn{Text: "\"Fix the flaky greeting test.\""}
		}
		return llmtest.Turn{Text: "the answer"}
	}
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1", "tiny"}, "max_retries = 0\nsmall_model = \"tiny\""))
	r := startRouted(t, home, SessionOptions{})
	prompt := "the greeting test fails now and then on CI, please find out why and make it reliable"
	done := r.run(t, prompt)
	require.Equal(t, "the answer", done.Result, "the small model never writes the answer")
	r.ls.jobs.Wait()

	mu.Lock()
	require.Len(t, titleReqs, 1)
	require.Contains(t, titleReqs[0], "make it reliable")
	mu.Unlock()
	info, err := r.svc.Store().Info(context.Background(), r.ls.ID())
	require.NoError(t, err)
	require.Equal(t, "Fix the flaky greeting test", info.Title)

	// A second prompt of the session asks for no title.
	r.run(t, "and now also explain what the retry loop in the test helper does exactly")
	r.ls.jobs.Wait()
	mu.Lock()
	require.Len(t, titleReqs, 1)
	mu.Unlock()

	summary, model, err := r.ls.Summarize(context.Background())
	require.NoError(t, err)
	require.Equal(t, "fake/tiny", model)
	require.NotEmpty(t, summary)
	// The side jobs' usage is the small model's in the per-model breakdown.
	b, err := r.svc.Breakdown(context.Background(), r.ls.ID())
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(b.Models, func(m session.ModelCost) bool { return m.Model == "fake/tiny" }), "models %+v", b.Models)
	mu.Lock()
	require.Len(t, titleReqs, 2)
	require.Contains(t, titleReqs[1], "[user] the greeting test fails", "the summary request carries the transcript")
	mu.Unlock()
}

func TestNoTitleJobForLocalMainModelOrShortPrompt(t *testing.T) {
	rt := &Runtime{Config: config.Defaults(), Provider: catalog.Provider{Name: "ollama", Type: "ollama"}, Model: "qwen3"}
	require.False(t, wantsTitle(rt, "a long prompt that has many more words than any title would ever need"))
	rt.Config.SmallModel = "qwen3:0.6b"
	require.True(t, wantsTitle(rt, "a long prompt that has many more words than any title would ever need"))
	require.False(t, wantsTitle(rt, "fix the build"), "a short prompt is its own title")
}

// BenchmarkArchitectEngine measures what an architect turn adds before
// its first request to get the architect's read-only engine: "turn" is
// every turn after the first of a runtime generation (the engine is
// kept), "build" the first (registry, policy, system prompt with the git
// summary).
func BenchmarkArchitectEngine(b *testing.B) {
	script := llmtest.NewScript(b)
	home := apptest.NewHome(b, apptest.FakeProvider(script.URL, []string{"m1", "planner"}, "architect_model = \"planner\""))
	ctx := context.Background()
	env := home.Env
	svc, err := Start(ctx, StartOptions{Options: Options{Workspace: home.WS, Getenv: func(k string) string { return env[k] }}})
	require.NoError(b, err)
	defer svc.Close()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(b, err)
	ls, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(b, err)
	defer ls.Close()
	rt := svc.Runtime()
	b.Run("turn", func(b *testing.B) {
		for range b.N {
			if _, err := (turnPrep{ls}).architect(ctx, sess.ID, ls.Engine()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("build", func(b *testing.B) {
		for range b.N {
			d := &derived{}
			if _, err := d.architect(ctx, func(ctx context.Context) (*agent.Engine, func(), error) {
				art, err := rt.modelRoom().withModel(rt.Config.ArchitectModel, "architect_model")
				if err != nil {
					return nil, nil, err
				}
				o := ls.engineOptions(sess.ID)
				o.ReadOnly = true
				return art.Engine(ctx, o)
			}); err != nil {
				b.Fatal(err)
			}
			d.close()
		}
	})
}
