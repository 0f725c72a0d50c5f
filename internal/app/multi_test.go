package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/app/multi"
	turns "github.com/zelvior/aidex/internal/app/turn"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ralph"
)

// multiModels are the three models of the tests, on two wire formats:
// OpenAI chat ("oa") and Anthropic ("an").
var multiModels = []string{"oa/a1", "oa/a2", "an/c1"}

// modelServer scripts the models of both providers: each request is
// recorded (by model) and answered "answer of MODEL" unless fail names
// the model (an HTTP 500), after hold lets it go.
type modelServer struct {
	mu       sync.Mutex
	requests map[string][]string // model → request bodies
	fail     map[string]bool
	// call names the models whose first answer is a read_file call of
	// the path given (OpenAI models only).
	call map[string]string
	// hold, when set, is called before each answer (the parallel
	// barrier); an error answers HTTP 500 with it.
	hold func() error
}

func (ms *modelServer) handle(anthropic bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			_, _ = io.WriteString(w, `{"data":[{"id":"a1"},{"id":"a2"},{"id":"c1"}]}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		ms.mu.Lock()
		ms.requests[req.Model] = append(ms.requests[req.Model], string(body))
		fail, hold := ms.fail[req.Model], ms.hold
		path := ms.call[req.Model]
		first := len(ms.requests[req.Model]) == 1
		ms.mu.Unlock()
		if hold != nil {
			if err := hold(); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		if fail {
			http.Error(w, `{"error":{"message":"scripted failure"}}`, http.StatusInternalServerError)
			return
		}
		text := "answer of " + req.Model
		w.Header().Set("Content-Type", "application/json")
		if path != "" && first && !anthropic {
			args, _ := json.Marshal(map[string]string{"path": path})
			fmt.Fprintf(w, `{"id":"c","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"reading %s","tool_calls":[{"id":"call_%s","type":"function","function":{"name":"read_file","arguments":%q}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`,
				req.Model, path, req.Model, string(args))
			return
		}
		if anthropic {
			fmt.Fprintf(w, `{"id":"m","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":5}}`, req.Model, text)
			return
		}
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, req.Model, text)
	}
}

func (ms *modelServer) bodies(model string) []string {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return append([]string(nil), ms.requests[model]...)
}

// multiSession starts a service over both providers (the current model
// oa/a1) and a live session with the three models active in mode.
func multiSession(t testing.TB, mode multi.Mode, o SessionOptions) (*Session, *modelServer) {
	t.Helper()
	ms := &modelServer{requests: map[string][]string{}, fail: map[string]bool{}, call: map[string]string{}}
	oa := httptest.NewServer(ms.handle(false))
	an := httptest.NewServer(ms.handle(true))
	t.Cleanup(oa.Close)
	t.Cleanup(an.Close)
	cfg := fmt.Sprintf("provider = \"oa\"\nmodel = \"a1\"\nstream = false\nmax_retries = 0\nmulti_mode = %q\nmulti_models = [\"oa/a1\", \"oa/a2\", \"an/c1\"]\n"+
		"[providers.oa]\ntype = \"openai\"\nbase_url = %q\napi_key = \"k\"\nmodels = [\"a1\", \"a2\"]\n"+
		"[providers.an]\ntype = \"anthropic\"\nbase_url = %q\napi_key = \"k\"\nmodels = [\"c1\"]\n", mode, oa.URL, an.URL)
	home := apptest.NewHome(t, cfg)
	env := home.Env
	ctx := context.Background()
	svc, err := Start(ctx, StartOptions{Options: Options{Workspace: home.WS, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, o)
	require.NoError(t, err)
	t.Cleanup(live.Close)
	require.Equal(t, multiModels, live.Multi().IDs())
	require.NoError(t, os.WriteFile(filepath.Join(home.WS, "a.txt"), []byte("contents of a"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(home.WS, "b.txt"), []byte("contents of b"), 0o644))
	return live, ms
}

// turnEvents runs one turn and returns its events.
func turnEvents(t *testing.T, live *Session, prompt string) ([]agent.Event, *agent.DoneInfo, error) {
	t.Helper()
	var mu sync.Mutex
	var evs []agent.Event
	d, err := live.Run(context.Background(), []llm.Part{{Type: llm.PartText, Text: prompt}}, func(ev agent.Event) {
		mu.Lock()
		evs = append(evs, ev)
		mu.Unlock()
	})
	return evs, d, err
}

// answers returns the stored session's assistant messages as
// "MODEL: TEXT".
func answers(t *testing.T, live *Session) []string {
	t.Helper()
	s, err := live.svc.Store().Load(context.Background(), live.ID())
	require.NoError(t, err)
	var out []string
	for _, m := range s.Messages {
		if m.Role == llm.RoleAssistant {
			out = append(out, m.Model+": "+m.Text())
		}
	}
	return out
}

// countOf counts the events of type typ (and, when not "", model).
func countOf(evs []agent.Event, typ agent.EventType, model string) int {
	n := 0
	for _, ev := range evs {
		if ev.Type == typ && (model == "" || ev.Model == model) {
			n++
		}
	}
	return n
}

// Round-robin: each turn is answered by the next model, across both wire
// formats; each turn has one session and one done event.
func TestRoundRobinRotates(t *testing.T) {
	live, _ := multiSession(t, multi.RoundRobin, SessionOptions{})
	var results []string
	for i := range 4 {
		evs, d, err := turnEvents(t, live, fmt.Sprintf("q%d", i))
		require.NoError(t, err)
		require.Equal(t, 1, countOf(evs, agent.EventSession, ""))
		require.Equal(t, 1, countOf(evs, agent.EventDone, ""))
		results = append(results, d.Result)
	}
	require.Equal(t, []string{"answer of a1", "answer of a2", "answer of c1", "answer of a1"}, results)
	require.Equal(t, []string{"oa/a1: answer of a1", "oa/a2: answer of a2", "an/c1: answer of c1", "oa/a1: answer of a1"}, answers(t, live))
}

// Round-robin: a failing model hands the turn to the next one.
func TestRoundRobinSkipsAFailingModel(t *testing.T) {
	live, ms := multiSession(t, multi.RoundRobin, SessionOptions{})
	ms.fail["a1"] = true
	evs, d, err := turnEvents(t, live, "q")
	require.NoError(t, err)
	require.Equal(t, "answer of a2", d.Result)
	require.Equal(t, 1, countOf(evs, agent.EventError, "oa/a1"), "the failure is shown, labelled")
	for _, ev := range evs {
		require.False(t, ev.Type == agent.EventError && ev.Error.Fatal, "a handed-over failure is not fatal: %+v", ev.Error)
	}
	require.Equal(t, []string{"oa/a2: answer of a2"}, answers(t, live))
	_, d, err = turnEvents(t, live, "q2")
	require.NoError(t, err)
	require.Equal(t, "answer of c1", d.Result, "the rotation goes on after the model that answered")
}

// Sequential: every model answers in order and sees the earlier answers
// in its request (Anthropic's too); the last answer is the turn's.
func TestSequentialSeesEarlierAnswers(t *testing.T) {
	live, ms := multiSession(t, multi.Sequential, SessionOptions{})
	evs, d, err := turnEvents(t, live, "explain")
	require.NoError(t, err)
	require.Equal(t, "answer of c1", d.Result)
	require.NotContains(t, ms.bodies("a1")[0], "answer of")
	a2 := ms.bodies("a2")[0]
	require.Contains(t, a2, "answer of a1")
	require.Contains(t, a2, "review it and improve it")
	c1 := ms.bodies("c1")[0]
	require.Contains(t, c1, "answer of a1")
	require.Contains(t, c1, "answer of a2")
	require.Contains(t, c1, "oa/a1, oa/a2, in that order")
	require.Equal(t, []string{"oa/a1: answer of a1", "oa/a2: answer of a2", "an/c1: answer of c1"}, answers(t, live))
	for _, id := range multiModels {
		require.Equal(t, 1, countOf(evs, agent.EventText, id), id)
		require.Equal(t, 1, countOf(evs, agent.EventUsage, id), id)
	}
	// The next turn's requests carry the whole exchange, roles alternating.
	_, _, err = turnEvents(t, live, "more")
	require.NoError(t, err)
	require.Contains(t, ms.bodies("c1")[1], "answer of a2")
}

// Sequential: a failing model leaves the others' answers.
func TestSequentialKeepsOthersWhenOneFails(t *testing.T) {
	live, ms := multiSession(t, multi.Sequential, SessionOptions{})
	ms.fail["a2"] = true
	evs, d, err := turnEvents(t, live, "explain")
	require.NoError(t, err)
	require.Equal(t, "answer of c1", d.Result)
	require.Equal(t, 1, countOf(evs, agent.EventError, "oa/a2"))
	require.Equal(t, []string{"oa/a1: answer of a1", "an/c1: answer of c1"}, answers(t, live))
}

// barrier holds each request until n have arrived; past the timeout it
// fails the request (so a sequential implementation fails the test
// instead of hanging it).
func barrier(n int, timeout time.Duration) func() error {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return func() error {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return nil
		case <-time.After(timeout):
			return fmt.Errorf("only some of the %d requests arrived: the models were not asked at once", n)
		}
	}
}

// Parallel: the three requests are in flight at once (each is held until
// all arrived); without a chooser the first successful answer in list
// order alone goes into the history.
func TestParallelAsksAtOnceAndKeepsFirst(t *testing.T) {
	live, ms := multiSession(t, multi.Parallel, SessionOptions{})
	ms.hold = barrier(3, 10*time.Second)
	evs, d, err := turnEvents(t, live, "q")
	require.NoError(t, err)
	require.Equal(t, "answer of a1", d.Result)
	for _, id := range multiModels {
		require.Len(t, ms.bodies(strings.TrimPrefix(id[strings.Index(id, "/")+1:], "")), 1, id)
		require.Equal(t, 1, countOf(evs, agent.EventText, id), "each answer streams labelled: %s", id)
		require.Equal(t, 1, countOf(evs, agent.EventUsage, id), "each model's cost is counted: %s", id)
	}
	require.Equal(t, []string{"oa/a1: answer of a1"}, answers(t, live))
	require.Equal(t, 3, d.Turns)
}

// Parallel with --keep all: every answer goes into the history, in list
// order; one model failing leaves the others'.
func TestParallelKeepAllAndFailure(t *testing.T) {
	live, ms := multiSession(t, multi.Parallel, SessionOptions{KeepAll: true})
	ms.fail["a1"] = true
	evs, d, err := turnEvents(t, live, "q")
	require.NoError(t, err)
	require.Equal(t, "answer of c1", d.Result)
	require.Equal(t, 1, countOf(evs, agent.EventError, "oa/a1"))
	require.Equal(t, []string{"oa/a2: answer of a2", "an/c1: answer of c1"}, answers(t, live))
}

// chooseLast is a Chooser that keeps the last answer and records what
// it was offered.
type chooseLast struct{ offered []multi.Candidate }

func (c *chooseLast) Choose(_ context.Context, answers []multi.Candidate) ([]int, error) {
	c.offered = answers
	return []int{len(answers) - 1}, nil
}

// Parallel with a chooser (the TUI's key, the web's button): the chosen
// answer alone is kept.
func TestParallelChooserKeepsChosen(t *testing.T) {
	c := &chooseLast{}
	live, _ := multiSession(t, multi.Parallel, SessionOptions{Chooser: c})
	_, d, err := turnEvents(t, live, "q")
	require.NoError(t, err)
	require.Equal(t, "answer of c1", d.Result)
	require.Len(t, c.offered, 3)
	require.Equal(t, "oa/a2", c.offered[1].Model)
	require.Equal(t, []string{"an/c1: answer of c1"}, answers(t, live))
}

// Parallel: only the kept answer's tool calls run; its model goes on
// with the results.
func TestParallelRunsOnlyKeptCalls(t *testing.T) {
	live, ms := multiSession(t, multi.Parallel, SessionOptions{Chooser: &chooseLast{}})
	live.mu.Lock()
	live.multi.cfg.Models = live.multi.cfg.Models[:2] // the two OpenAI models: both call a tool
	live.mu.Unlock()
	ms.call["a1"], ms.call["a2"] = "a.txt", "b.txt"
	evs, d, err := turnEvents(t, live, "read")
	require.NoError(t, err)
	require.Equal(t, "answer of a2", d.Result)
	require.Len(t, ms.bodies("a1"), 1, "the discarded answer's model is not asked again")
	bodies := ms.bodies("a2")
	require.Len(t, bodies, 2)
	require.Contains(t, bodies[1], "contents of b", "the kept call ran and its result went back")
	require.NotContains(t, bodies[1], "contents of a", "the discarded call did not run")
	require.Equal(t, 1, countOf(evs, agent.EventToolResult, "oa/a2"))
	require.Equal(t, 0, countOf(evs, agent.EventToolResult, "oa/a1"))
	require.Equal(t, []string{"oa/a2: reading b.txt", "oa/a2: answer of a2"}, answers(t, live))
}

// Ralph's task runs go through the active models too; with no one to
// choose, a parallel turn keeps the first successful answer in list
// order.
func TestRalphKeepsFirstSuccessful(t *testing.T) {
	live, ms := multiSession(t, multi.Parallel, SessionOptions{})
	ms.fail["a1"] = true
	b := live.svc.RalphBackend(false)
	ctx := context.Background()
	sess, err := b.NewSession(ctx)
	require.NoError(t, err)
	run, closeRun, err := b.Engine(ctx, ralph.EngineRequest{SessionID: sess.ID})
	require.NoError(t, err)
	defer closeRun()
	d, err := run.Run(ctx, sess, []llm.Part{{Type: llm.PartText, Text: "task"}}, func(agent.Event) {})
	require.NoError(t, err)
	require.Equal(t, "answer of a2", d.Result)
	require.Len(t, ms.bodies("c1"), 1, "every model was asked")
	var kept []string
	for _, m := range sess.Messages {
		if m.Role == llm.RoleAssistant {
			kept = append(kept, m.Model)
		}
	}
	require.Equal(t, []string{"oa/a2"}, kept)
}

// Each active model's engine keeps the session's tools, but its memory
// tools are its own (the model's family folder) and image input follows
// the model.
func TestModelEnginesScopeMemory(t *testing.T) {
	live, _ := multiSession(t, multi.Sequential, SessionOptions{})
	base := live.Engine()
	engs, err := modelEngines(context.Background(), base, live.Multi().Models, sessionModels{live}.runtime, func(rt *Runtime, base *agent.Engine) (*agent.OpenModel, error) {
		return onModel(rt, ClientOptions{}, live.svc.Store(), base.Tools)
	})
	require.NoError(t, err)
	require.Len(t, engs, 3)
	baseTS := base.Tools.(*toolSet)
	for i, e := range engs {
		ts, ok := e.Tools.(*toolSet)
		require.True(t, ok)
		require.Same(t, baseTS.env, ts.env, "the session's environment")
		require.Same(t, ts.memory, ts.registryFor("remember"), "model %d: the memory tools (and their aliases) are the model's", i)
		require.Same(t, baseTS.reg, ts.registryFor("read_file"))
		c, bad := e.Tools.Prepare("save_memory", []byte(`{"content":"x"}`))
		require.Nil(t, bad)
		require.Equal(t, "save_memory", c.Name)
	}
	require.Equal(t, "an/c1", engs[2].Config.Model.ID())
}

// The front ends' conversation modes (app/multi) and the turn
// strategies' (app/turn) are one set of names.
func TestMultiModesAreTheTurnsModes(t *testing.T) {
	require.Equal(t, turns.RoundRobin, string(multi.RoundRobin))
	require.Equal(t, turns.Sequential, string(multi.Sequential))
	require.Equal(t, turns.Parallel, string(multi.Parallel))
}
