package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

// pricedModel prices the scripted model through the config so that each
// scripted response (100 input tokens, 10 output) costs $0.10.
const pricedModel = "[providers.fake.models.scripted]\ninput_price = 1000\noutput_price = 0\n"

// TestE2EMaxCostStopsAfterACompleteToolCall is the acceptance
// test: a run that would cost $0.30 with --max-cost 0.10 stops with exit
// 5 after a complete tool call, and -c continues the session.
func TestE2EMaxCostStopsAfterACompleteToolCall(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Text: "Writing it.", Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"line one\nline two\n"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}},
		llmtest.Turn{Text: "Done: notes.txt has two lines."},
	)
	e := newE2E(t, srv, "openai", pricedModel)
	r := e.run(context.Background(), "-p", "write the notes", "--max-cost", "0.10", "--permission-mode", "auto-edit", "--output-format", "stream-json")
	require.Equal(t, ExitBudget, r.code, r.stderr)
	require.Equal(t, "line one\nline two\n", e.read("notes.txt"), "the tool call completed")
	require.Len(t, srv.Requests(), 1)
	evs := events(t, r.stdout)
	require.Equal(t, "session,waiting,text,budget,tool_call,tool_result,done", eventTypes(evs))
	var budget map[string]any
	for _, ev := range evs {
		if ev["type"] == "budget" {
			budget = ev["budget"].(map[string]any)
		}
	}
	require.Equal(t, "run", budget["limit"])
	require.Equal(t, true, budget["exhausted"])
	done := evs[len(evs)-1]["done"].(map[string]any)
	require.Equal(t, "budget", done["stop_reason"])
	require.InDelta(t, 0.10, done["cost_usd"], 1e-9)

	// A following run with a raised budget continues the session: its
	// first request carries the completed call's result.
	r = e.run(context.Background(), "-c", "-p", "go on", "--max-cost", "1", "--permission-mode", "auto-edit", "--output-format", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	require.Equal(t, "done", res["stop_reason"])
	require.InDelta(t, 0.30, res["cost_usd"], 1e-9, "the whole session cost $0.30")
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	require.Contains(t, string(reqs[1]), "line one", "the resumed request carries the write's result")
	require.Contains(t, string(reqs[1]), "go on")

	// An answer without tool calls ends the run as done even when it
	// passed the budget (nothing is left to stop); stderr says so.
	r = e.run(context.Background(), "-c", "-p", "more", "--max-cost", "0.05")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stderr, "aidex: budget: --max-cost reached: $0.1000 of $0.05")
}

func TestE2EMaxCostTextStopLine(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "list_directory", Args: `{"path":"."}`}}})
	e := newE2E(t, srv, "anthropic", pricedModel)
	r := e.run(context.Background(), "-p", "look", "--max-cost", "0.05")
	require.Equal(t, ExitBudget, r.code, r.stderr)
	require.Contains(t, r.stderr, "aidex: budget: --max-cost reached: $0.1000 of $0.05")
	require.Contains(t, r.stderr, "aidex: stopped by --max-cost after 1 model responses, at a step boundary")
}

func TestE2EBudgetConfigAndUsedUp(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	e := newE2E(t, srv, "anthropic", "[budget]\ndaily_usd = 0.15\n"+pricedModel)
	r := e.run(context.Background(), "-p", "first")
	require.Equal(t, 0, r.code, r.stderr)
	// 0.10 of 0.15 spent today (67%: no warning yet), then the answer
	// passes the limit.
	r = e.run(context.Background(), "-p", "second")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stderr, "budget.daily_usd reached: $0.2000 of $0.15")
	// A third run is refused before any request.
	r = e.run(context.Background(), "-p", "third", "--output-format", "json")
	require.Equal(t, ExitBudget, r.code)
	require.Contains(t, r.stdout, `"stop_reason": "budget"`)
	require.Contains(t, r.stdout, "budget.daily_usd is used up before this run")
	require.Len(t, srv.Requests(), 2)

	r = e.run(context.Background(), "-p", "x", "--max-cost", "lots")
	require.Equal(t, ExitUsage, r.code)
	require.Contains(t, r.stderr, `--max-cost takes an amount of US dollars such as 0.50 (0: no limit), not "lots"`)
}

func TestE2EEstimate(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "fallback_models = [\"fake/backup\", \"fake/unpriced\", \"fake/free\"]\n"+pricedModel+
		"[providers.fake.models.backup]\ninput_price = 2000\noutput_price = 4000\n"+
		"[providers.fake.models.free]\ninput_price = 0\noutput_price = 0\n")
	r := e.run(context.Background(), "-p", strings.Repeat("word ", 400), "--estimate")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, srv.Requests(), "the model is not called")
	require.Contains(t, r.stdout, "next request: ~")
	require.Contains(t, r.stdout, "fake/scripted: $")
	require.Contains(t, r.stdout, "fake/backup (fallback): $")
	require.Contains(t, r.stdout, "+ $4.00 per 1,000 output tokens ($2000 / $4000 per million tokens)")
	require.Contains(t, r.stdout, "fake/free (fallback): $0 per turn", "a model priced at 0 is free, not unknown")
	require.Contains(t, r.stdout, `fake/unpriced (fallback): price unknown (set input_price and output_price in [providers.fake.models."unpriced"])`)
	r = e.run(context.Background(), "-p", "hello", "--estimate", "--output-format", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var est struct {
		InputTokens int `json:"input_tokens"`
		Models      []struct {
			Model    string  `json:"model"`
			InputUSD float64 `json:"input_usd"`
			Known    bool    `json:"price_known"`
		} `json:"models"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &est))
	require.Greater(t, est.InputTokens, 100, "system prompt and tool definitions count")
	require.Equal(t, "fake/scripted", est.Models[0].Model)
	require.True(t, est.Models[0].Known)
	require.InDelta(t, float64(est.InputTokens)*1000/1e6, est.Models[0].InputUSD, 1e-9)
	// Each active model of a conversation mode is priced too.
	r = e.run(context.Background(), "-p", "hello", "--estimate", "--models", "fake/scripted,fake/other", "--multi", "parallel")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "fake/other (active): ")
	// No session is left behind.
	r = e.run(context.Background(), "sessions", "list")
	require.Contains(t, r.stdout, "no sessions yet")
	require.Empty(t, srv.Requests())
}

func TestE2ESessionsShowBreakdown(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"big.txt"}`}}},
		llmtest.Turn{Text: "It is big."},
	)
	e := newE2E(t, srv, "openai", pricedModel)
	e.write("big.txt", strings.Repeat("0123456789\n", 400))
	r := e.run(context.Background(), "-p", "read big.txt", "--output-format", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	r = e.run(context.Background(), "sessions", "show", res["session_id"].(string))
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "## Usage and cost")
	require.Contains(t, r.stdout, "fake/scripted · 2 responses · input 200 · output 20 tokens · $0.2000")
	require.Contains(t, r.stdout, "#1 · prompt 1 · fake/scripted · input 100 · output 10 tokens · $0.1000")
	// read_file's result (over 1000 tokens: the lines are numbered) was carried by one later request at $1000 per million.
	require.Regexp(t, `read_file · 1 results · \d{4} tokens · carried \d{4} tokens · ~\$1\.\d\d`, r.stdout)
}

// ralphPriced is newRalphEnv with the scripted model priced at $0.10 a
// response.
func ralphPriced(t *testing.T, turns ...llmtest.Turn) *ralphEnv {
	e := newRalphEnv(t, turns...)
	f := filepath.Join(e.env["XDG_CONFIG_HOME"], "aidex", "config.toml")
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f, append(data, "\n[providers.fake.models.m]\ninput_price = 1000\n"...), 0o600))
	return e
}

func TestRalphMaxCostStopsBetweenTasks(t *testing.T) {
	e := ralphPriced(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"a\n"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{completeCall("done", "wrote a.txt")}},
		llmtest.Turn{Text: "finished"},
	)
	_, _, _ = e.run("", "ralph", "add", "first", "-p", "P0")
	_, _, _ = e.run("", "ralph", "add", "second", "-p", "P1")
	code, out, errOut := e.run("", "ralph", "run", "--permission-mode", "auto-edit", "--max-cost", "0.15")
	require.Equal(t, ExitBudget, code, out+errOut)
	require.Contains(t, errOut, "stopped by the budget after 1 task(s), $0.2000 spent; 1 task(s) pending")
	require.Contains(t, out, "$ budget: --max-cost reached")
	tasks := e.tasks()
	require.Equal(t, ralph.StatusDone, tasks[0].Status, "the task at work finished its step and reported")
	require.Equal(t, ralph.StatusPending, tasks[1].Status, "no task starts once the budget is spent")
	require.Len(t, e.script.Requests(), 2)
}

func TestRalphBudgetStopsATaskAtAStepBoundary(t *testing.T) {
	e := ralphPriced(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"a\n"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{completeCall("done", "wrote a.txt")}},
	)
	_, _, _ = e.run("", "ralph", "add", "first")
	code, out, errOut := e.run("", "ralph", "run", "--permission-mode", "auto-edit", "--max-cost", "0.05", "--json")
	require.Equal(t, ExitBudget, code, out+errOut)
	data, err := os.ReadFile(filepath.Join(e.ws, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "a\n", string(data), "the step's tool call completed")
	tasks := e.tasks()
	require.Equal(t, ralph.StatusPending, tasks[0].Status, "a task its budget stopped is pending again")
	require.Contains(t, tasks[0].Result, "stopped by the budget")
	require.Contains(t, out, `"reason":"budget"`)
	require.Len(t, e.script.Requests(), 1)
}
