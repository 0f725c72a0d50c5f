package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/session"
)

// The guarantee matrix (issue 29): every path a turn can take × every
// guarantee aidex makes about a turn, each cell checked against a scripted
// model. Adding a path is adding a row to matrixPaths; adding a guarantee
// is adding a column to matrixGuarantees. A cell that depends on work not
// yet landed is listed in the row's xfail with the reason: it must fail
// (so that the row is updated when the work lands) and does not fail the
// test.
//
// Every path gets the same user setup: hooks in ~/.claude/settings.json
// (PreToolUse, PostToolUse, Stop and SubagentStop record their input; the
// PreToolUse hook blocks "rm -rf"), a deny rule, an ask rule, yolo mode
// (so that only hooks, rules and the OS sandbox stand between a call and
// its effect), prices (so that the budget is charged) and a reasoning
// setting. The scripted model answers the path's prompt with the same
// tool calls: "rm -rf victim" (the hook must block it), "touch
// denied.txt" (denied by rule), "touch asked.txt" (asks by rule, and no
// one answers), "sh plant.sh" (writes outside the workspace: the OS
// sandbox must stop it) and a write_file of made.txt (runs: a checkpoint
// is taken first, PostToolUse fires once).

// matrixConfig is the top-level configuration every row shares.
const matrixConfig = `permission_mode = "yolo"
reasoning_effort = "high"
text_tool_calls = true
small_model = "fake/small"

[permissions]
deny = ["run_command(touch denied*)"]
ask = ["run_command(touch asked*)"]
`

// matrixPrices prices the scripted models (USD per 1M tokens).
const matrixPrices = `
[providers.fake.models.scripted]
input_price = 1.0
output_price = 2.0
[providers.fake.models.fb]
input_price = 1.0
output_price = 2.0
[providers.fake.models.a]
input_price = 1.0
output_price = 2.0
[providers.fake.models.b]
input_price = 1.0
output_price = 2.0
[providers.fake.models.planner]
input_price = 1.0
output_price = 2.0
[providers.fake.models.small]
input_price = 0.5
output_price = 1.0
`

// matrixHook records each hook input (event, then the JSON) and blocks
// Bash calls holding "rm -rf".
const matrixHook = `#!/bin/sh
input=$(cat)
printf '%s %s\n' "$1" "$input" >> "$HOOK_LOG"
case "$1:$input" in
  pre:*'rm -rf'*) echo "blocked by the user's hook: no rm -rf" >&2; exit 2 ;;
esac
exit 0
`

// workCalls are the tool calls the scripted model makes for the work.
func workCalls(outside string) []llmtest.Call {
	return []llmtest.Call{
		{Name: "run_command", Args: `{"command":"rm -rf victim"}`},
		{Name: "run_command", Args: `{"command":"touch denied.txt"}`},
		{Name: "run_command", Args: `{"command":"touch asked.txt"}`},
		{Name: "run_command", Args: `{"command":"sh plant.sh"}`},
		{Name: "write_file", Args: `{"path":"made.txt","content":"made\n"}`},
	}
}

// matrixRequest is what the scripted model reads of a request.
type matrixRequest struct {
	Model           string `json:"model"`
	ReasoningEffort string `json:"reasoning_effort"`
	Messages        []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (r matrixRequest) tool(name string) bool {
	return slices.ContainsFunc(r.Tools, func(t struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}) bool {
		return t.Function.Name == name
	})
}

// called reports whether the conversation holds a call of name.
func (r matrixRequest) called(name string) bool {
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			if c.Function.Name == name {
				return true
			}
		}
	}
	return false
}

func (r matrixRequest) last() (role, text string) {
	if len(r.Messages) == 0 {
		return "", ""
	}
	m := r.Messages[len(r.Messages)-1]
	return m.Role, contentText(m.Content)
}

// contentText is a message's text: a JSON string, or the text parts of a
// list of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// wrote reports whether an assistant message of this model's turn (since
// the last user message that is not a text-mode tool result) holds text.
func (r matrixRequest) wrote(text string) bool {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		got := contentText(m.Content)
		switch {
		case m.Role == "user" && !textResult(got):
			return false
		case m.Role == "assistant" && strings.Contains(got, text):
			return true
		}
	}
	return false
}

// cmdBlock is the assistant command block (text-call mode) the scripted
// model writes after its work calls: it runs only where the engine parses
// the model's text calls as configured (text_tool_calls).
const cmdBlock = "%%CMD%% command=\"touch\" arguments=\"cmd.txt\"\n%%END%%\n"

// textResult reports whether text is the tool results of a text-mode
// call, as the engine writes them back (a user message).
func textResult(text string) bool {
	return strings.Contains(text, "<tool_response")
}

// matrixModel answers every row: a 429 for model "down" (the fallback
// row), a plan for a request without write tools (the architect), a task
// call for the subagent row's first prompt, the work calls for a user
// message, and after tool results complete_task (Ralph) or an answer.
func matrixModel(outside string) func(body []byte, n int) llmtest.Turn {
	return func(body []byte, _ int) llmtest.Turn {
		var r matrixRequest
		_ = json.Unmarshal(body, &r)
		role, text := r.last()
		switch {
		case r.Model == "down":
			return llmtest.Turn{Status: 429, ErrorBody: `{"error":{"message":"rate limited","type":"rate_limit_error"}}`}
		case len(r.Tools) == 0:
			return llmtest.Turn{Text: "a title"} // a side job
		case role == "tool" && r.tool("write_file") && !r.wrote("%%CMD%%"):
			return llmtest.Turn{Text: "One more:\n" + cmdBlock}
		case (role == "tool" || textResult(text)) && r.tool("complete_task") && !r.called("complete_task"):
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"made it"}`}}}
		case role == "tool" || textResult(text):
			return llmtest.Turn{Text: "done"}
		case !r.tool("write_file"):
			return llmtest.Turn{Text: "Plan: create made.txt."}
		case strings.Contains(text, "delegate") && r.tool("task"):
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: `{"description":"work","prompt":"SUBTASK: do the work"}`}}}
		}
		return llmtest.Turn{Calls: workCalls(outside)}
	}
}

// matrixRow is one path: its extra configuration and how it runs a turn
// whose prompt is prompt. canAnswer: someone can answer ask_user there.
type matrixRow struct {
	name      string
	config    string
	prompt    string
	canAnswer bool
	subagent  bool
	// sideJobs: the path's turn gives the small model side jobs (a
	// first prompt long enough to get a title).
	sideJobs bool
	// run runs the turn and returns the events its front end showed.
	run func(t *testing.T, e *e2e, prompt string) []map[string]any
	// noEvents names why the front end shows no event stream to check
	// (its output is the answer alone, or its protocol has no model
	// field); "" means the events must be there.
	noEvents string
	xfail    map[string]string
}

// matrixCell is what a row's run left: the workspace, the hook log, the
// requests the model got and the store.
type matrixCell struct {
	row     matrixRow
	e       *e2e
	outside string
	hooks   []hookRecord
	reqs    []matrixRequest
	store   []session.Summary
	msgs    map[string][]string // session id -> models of its assistant messages
	charged map[string]float64  // model id -> USD the store recorded for it
	checks  int                 // snapshots
	shown   []map[string]any    // the events the front end showed
}

// hookRecord is one line of the hook log.
type hookRecord struct {
	event string
	input map[string]any
}

func (c *matrixCell) events(event string) []hookRecord {
	var out []hookRecord
	for _, h := range c.hooks {
		if h.event == event {
			out = append(out, h)
		}
	}
	return out
}

func (c *matrixCell) exists(name string) bool {
	_, err := os.Stat(filepath.Join(c.e.ws, name))
	return err == nil
}

// workRequests are the requests that offered tools (not side jobs).
func (c *matrixCell) workRequests() []matrixRequest {
	var out []matrixRequest
	for _, r := range c.reqs {
		if len(r.Tools) > 0 && r.Model != "down" {
			out = append(out, r)
		}
	}
	return out
}

// madeTheCalls reports whether some request carried the results of the
// work calls: the model did ask for them (so that a missing effect is the
// guarantee's doing, not a call never made).
func (c *matrixCell) madeTheCalls() error {
	for _, r := range c.reqs {
		if role, text := r.last(); role == "tool" && strings.Contains(text, "made") || strings.Contains(string(mustJSON(r)), "denied.txt") {
			return nil
		}
	}
	return fmt.Errorf("the model's work calls never ran (%d requests)", len(c.reqs))
}

// matrixGuarantees are the columns: each returns nil when the guarantee
// held in the cell.
var matrixGuarantees = []struct {
	name  string
	check func(c *matrixCell) error
}{
	{"PreToolUse fires", func(c *matrixCell) error {
		if err := c.madeTheCalls(); err != nil {
			return err
		}
		for _, h := range c.events("pre") {
			if h.input["tool_name"] == "Write" {
				return nil
			}
		}
		return fmt.Errorf("no PreToolUse for the write (%d pre records)", len(c.events("pre")))
	}},
	{"PreToolUse blocks", func(c *matrixCell) error {
		if !c.exists("victim/keep") {
			return fmt.Errorf("rm -rf ran: the hook's block did not hold")
		}
		return c.madeTheCalls()
	}},
	{"PostToolUse once per call", func(c *matrixCell) error {
		seen := map[string]int{}
		for _, h := range c.events("post") {
			id := fmt.Sprintf("%v/%v", h.input["session_id"], h.input["tool_use_id"])
			seen[id]++
		}
		if len(seen) == 0 {
			return fmt.Errorf("no PostToolUse")
		}
		for id, n := range seen {
			if n != 1 {
				var all []string
				for _, h := range c.events("post") {
					all = append(all, fmt.Sprintf("%v %v %v", h.input["session_id"], h.input["tool_use_id"], h.input["tool_name"]))
				}
				return fmt.Errorf("PostToolUse fired %d times for %s (%v)", n, id, all)
			}
		}
		return nil
	}},
	{"Stop fires", func(c *matrixCell) error {
		if len(c.events("stop")) == 0 {
			return fmt.Errorf("no Stop hook")
		}
		if c.row.subagent && len(c.events("substop")) == 0 {
			return fmt.Errorf("no SubagentStop hook")
		}
		return nil
	}},
	{"deny rule holds", func(c *matrixCell) error {
		if c.exists("denied.txt") {
			return fmt.Errorf("a command a deny rule names ran")
		}
		return c.madeTheCalls()
	}},
	{"ask rule holds", func(c *matrixCell) error {
		if c.exists("asked.txt") {
			return fmt.Errorf("a command an ask rule names ran unanswered")
		}
		return c.madeTheCalls()
	}},
	{"OS sandbox applies", func(c *matrixCell) error {
		if _, err := os.Stat(filepath.Join(c.outside, "planted")); err == nil {
			return fmt.Errorf("a command wrote outside the workspace")
		}
		return c.madeTheCalls()
	}},
	{"checkpoint before the first change", func(c *matrixCell) error {
		if !c.exists("made.txt") {
			return fmt.Errorf("the write did not happen")
		}
		if c.checks == 0 {
			return fmt.Errorf("no checkpoint was taken")
		}
		return nil
	}},
	{"budget charged", func(c *matrixCell) error {
		total := 0.0
		for _, s := range c.store {
			total += s.CostUSD
		}
		if total <= 0 {
			return fmt.Errorf("no cost recorded (%d sessions)", len(c.store))
		}
		return nil
	}},
	{"MCP tools offered", func(c *matrixCell) error {
		reqs := c.workRequests()
		if len(reqs) == 0 {
			return fmt.Errorf("no request offered tools")
		}
		for _, r := range reqs {
			if !r.tool("mcp__self__read_file") && !r.tool("tool_search") {
				return fmt.Errorf("model %s: the MCP server's tool is not offered", r.Model)
			}
		}
		return nil
	}},
	{"ask_user offered where someone answers", func(c *matrixCell) error {
		reqs := c.workRequests()
		if len(reqs) == 0 {
			return fmt.Errorf("no request offered tools")
		}
		for _, r := range reqs {
			if r.tool("ask_user") != c.row.canAnswer {
				return fmt.Errorf("model %s: ask_user offered = %v, want %v", r.Model, r.tool("ask_user"), c.row.canAnswer)
			}
		}
		return nil
	}},
	{"text-call mode follows the model", func(c *matrixCell) error {
		ran := map[string]bool{}
		for _, r := range c.workRequests() {
			// A model whose native work calls ran (not the architect's
			// read-only plan, nor a parallel proposal another model's
			// answer replaced) must have its command block run too.
			switch role, text := r.last(); {
			case role == "tool" && r.tool("write_file"):
				ran[r.Model] = ran[r.Model] || false
			case role == "user" && textResult(text) && strings.Contains(text, "run_command"):
				ran[r.Model] = true
			}
		}
		if len(ran) == 0 {
			return fmt.Errorf("no request offered write_file")
		}
		for model, ok := range ran {
			if !ok {
				return fmt.Errorf("model %s: its %%%%CMD%%%% block did not run (text_tool_calls = true)", model)
			}
		}
		if !c.exists("cmd.txt") {
			return fmt.Errorf("the %%%%CMD%%%% block's command left no cmd.txt")
		}
		return nil
	}},
	{"events carry the model", func(c *matrixCell) error {
		if c.row.noEvents != "" {
			return nil // not applicable: the reason is the row's noEvents
		}
		work := 0
		for _, ev := range c.shown {
			switch ev["type"] {
			case "waiting", "text", "reasoning", "tool_call", "tool_result", "usage":
				if m, _ := ev["model"].(string); m == "" {
					return fmt.Errorf("a %v event without its model: %v", ev["type"], ev)
				}
				if ev["type"] == "tool_call" {
					work++
				}
			}
		}
		if work == 0 {
			return fmt.Errorf("no tool_call event among the %d events shown", len(c.shown))
		}
		return nil
	}},
	{"side jobs on the small model, charged to it", func(c *matrixCell) error {
		jobs := 0
		for _, r := range c.reqs {
			if len(r.Tools) > 0 || r.Model == "down" {
				continue
			}
			if r.Model != "small" {
				return fmt.Errorf("a side job (a request without tools) went to %q, not small_model", r.Model)
			}
			jobs++
		}
		switch {
		case jobs == 0 && c.row.sideJobs:
			return fmt.Errorf("no side job reached the small model (%d requests)", len(c.reqs))
		case jobs > 0 && c.charged["fake/small"] <= 0:
			return fmt.Errorf("%d side jobs ran on the small model and none was charged to it (charged: %v)", jobs, c.charged)
		}
		return nil
	}},
	{"reasoning settings follow the model", func(c *matrixCell) error {
		for _, r := range c.workRequests() {
			if r.ReasoningEffort != "high" {
				return fmt.Errorf("model %s: reasoning_effort %q, want the configured \"high\"", r.Model, r.ReasoningEffort)
			}
		}
		return nil
	}},
	{"messages stored with their model", func(c *matrixCell) error {
		n := 0
		for id, models := range c.msgs {
			for _, m := range models {
				if m == "" {
					return fmt.Errorf("session %s: an assistant message without its model", id)
				}
				n++
			}
		}
		if n == 0 {
			return fmt.Errorf("no assistant message stored")
		}
		return nil
	}},
}

// matrixPaths are the rows.
func matrixPaths() []matrixRow {
	headless := func(extra ...string) func(t *testing.T, e *e2e, prompt string) []map[string]any {
		return func(t *testing.T, e *e2e, prompt string) []map[string]any {
			r := e.run(context.Background(), append([]string{"-p", prompt}, extra...)...)
			if r.code != 0 && r.code != 3 {
				t.Logf("exit %d: %s", r.code, r.stderr)
			}
			return jsonLines(r.stdout)
		}
	}
	// streamed runs a headless turn whose events are printed as JSON lines.
	streamed := func(extra ...string) func(t *testing.T, e *e2e, prompt string) []map[string]any {
		return headless(append([]string{"--output-format", "stream-json"}, extra...)...)
	}
	const plain = "its output is the answer alone"
	return []matrixRow{
		{name: "headless -p", run: headless(), noEvents: plain},
		{name: "headless stream-json output", run: streamed()},
		{name: "exec", noEvents: plain, run: func(t *testing.T, e *e2e, prompt string) []map[string]any {
			if r := e.run(context.Background(), "exec", prompt); r.code != 0 {
				t.Logf("exit %d: %s", r.code, r.stderr)
			}
			return nil
		}},
		{name: "stream-json input", canAnswer: true, run: func(t *testing.T, e *e2e, prompt string) []map[string]any {
			p := e.startStream()
			p.send(userLine(prompt))
			var shown []map[string]any
			for {
				// The ask rule's approval: the user says no.
				seen := p.until(func(m map[string]any) bool { return pendingApproval(m) || m["type"] == "done" })
				shown = append(shown, seen...)
				last := seen[len(seen)-1]
				if last["type"] == "done" {
					break
				}
				p.send(`{"type":"approval","id":"` + last["approval"].(map[string]any)["id"].(string) + `","decision":"deny"}`)
			}
			p.finish()
			return shown
		}},
		{name: "terminal UI", canAnswer: true, run: tuiTurn, noEvents: "a screen, checked by the TUI's own model labels tests"},
		{name: "line mode", canAnswer: true, noEvents: "text on a terminal", run: func(t *testing.T, e *e2e, prompt string) []map[string]any {
			plainRun(e, prompt+"\n", nil)
			return nil
		}},
		{name: "MCP aidex_run", run: mcpAidexRun, noEvents: "aidex_run returns the answer alone"},
		{name: "ACP prompt", run: acpPrompt, noEvents: "ACP's session/update has no model field"},
		// The web keeps shell tools off unless the user turns them on.
		{name: "web chat", config: "web_allow_shell_tools = true", canAnswer: true, run: webChat},
		{name: "custom command", prompt: "/work", run: streamed()},
		// A first prompt of more than 8 words gets a title from the small
		// model, in the background of the turn.
		{name: "small-model side jobs (title)", prompt: "please do the work this repository needs now, with care", sideJobs: true, run: streamed()},
		{name: "architect (both phases)", config: `architect_model = "fake/planner"`, run: streamed()},
		{name: "multi round-robin", run: streamed("--models", "fake/a,fake/b", "--multi", "round-robin")},
		{name: "multi sequential", run: streamed("--models", "fake/a,fake/b", "--multi", "sequential")},
		{name: "multi parallel", run: streamed("--models", "fake/a,fake/b", "--multi", "parallel", "--keep", "all")},
		{name: "fallback after a 429", config: `fallback_models = ["fake/fb"]`, run: streamed("--model", "fake/down")},
		{name: "subagent (task)", prompt: "delegate the work", subagent: true, run: streamed()},
		{name: "ralph task on a worker", noEvents: "Ralph logs its task's outcome, not events", run: func(t *testing.T, e *e2e, prompt string) []map[string]any {
			if r := e.run(context.Background(), "ralph", "add", prompt, "-c", "made.txt exists"); r.code != 0 {
				t.Fatalf("ralph add: exit %d: %s", r.code, r.stderr)
			}
			if r := e.run(context.Background(), "ralph", "run", "--workers", "2", "--merge", "--permission-mode", "yolo", "--verify", "true"); r.code != 0 {
				t.Logf("ralph run --workers: exit %d: %s\n%s", r.code, r.stderr, e.run(context.Background(), "ralph", "show", "T-001").stdout)
			}
			return nil
		}},
		{name: "ralph task", noEvents: "Ralph logs its task's outcome, not events", run: func(t *testing.T, e *e2e, prompt string) []map[string]any {
			if r := e.run(context.Background(), "ralph", "add", prompt, "-c", "made.txt exists"); r.code != 0 {
				t.Fatalf("ralph add: exit %d: %s", r.code, r.stderr)
			}
			if r := e.run(context.Background(), "ralph", "run", "--permission-mode", "yolo", "--verify", "true"); r.code != 0 {
				t.Logf("ralph run: exit %d: %s", r.code, r.stderr)
			}
			return nil
		}},
	}
}

// jsonLines parses the JSON objects of out's lines (other lines are
// skipped: plain output has none).
func jsonLines(out string) []map[string]any {
	var evs []map[string]any
	for _, line := range strings.Split(out, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil {
			evs = append(evs, ev)
		}
	}
	return evs
}

// TestGuaranteeMatrix runs every path and checks every guarantee.
func TestGuaranteeMatrix(t *testing.T) {
	for _, row := range matrixPaths() {
		t.Run(row.name, func(t *testing.T) {
			cell := runMatrixRow(t, row)
			var failed []string
			for _, g := range matrixGuarantees {
				err := g.check(cell)
				reason, xfail := row.xfail[g.name]
				switch {
				case err != nil && !xfail:
					failed = append(failed, fmt.Sprintf("%s: %v", g.name, err))
				case err == nil && xfail:
					failed = append(failed, fmt.Sprintf("%s: holds now (expected to fail: %s): remove it from the row's xfail", g.name, reason))
				}
			}
			if len(failed) > 0 {
				t.Errorf("%d of %d guarantees broken on path %q:\n  %s", len(failed), len(matrixGuarantees), row.name, strings.Join(failed, "\n  "))
			}
		})
	}
}

// runMatrixRow sets up a workspace with the shared user setup, runs row's
// turn and collects what it left.
func runMatrixRow(t *testing.T, row matrixRow) *matrixCell {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", row.config+"\n"+matrixConfig)
	// Outside the workspace and the temp folder (which sandboxed commands
	// may write): a folder beside the test's sources.
	outside, err := os.MkdirTemp(".", ".matrix-outside-")
	if err != nil {
		t.Fatal(err)
	}
	if outside, err = filepath.Abs(outside); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(outside) })
	srv.Route = matrixModel(outside)
	// Prices go into the provider table newE2E wrote last.
	cfgPath := filepath.Join(e.home, ".config", "aidex", "config.toml")
	var cfg []byte
	// An MCP server of the user's: aidex itself (this test binary) serving
	// its read_file.
	mcpServer := fmt.Sprintf("\n[mcp_servers.self]\ncommand = %q\nargs = [\"-w\", %q, \"mcp\", \"serve\", \"--profile\", \"readonly\"]\n"+
		"env = { %s = \"1\" }\nenabled_tools = [\"read_file\"]\ntrust_annotations = true\n", os.Args[0], e.ws, childEnv)
	cfg, err = os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, append(cfg, matrixPrices+mcpServer...), 0o600); err != nil {
		t.Fatal(err)
	}
	hookLog := filepath.Join(e.home, "hooks.log")
	hook := filepath.Join(e.home, "hook.sh")
	if err := os.WriteFile(hook, []byte(matrixHook), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := map[string]any{"hooks": map[string]any{}}
	for event, arg := range map[string]string{"PreToolUse": "pre", "PostToolUse": "post", "Stop": "stop", "SubagentStop": "substop"} {
		settings["hooks"].(map[string]any)[event] = []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": fmt.Sprintf("HOOK_LOG=%q sh %q %s", hookLog, hook, arg)}}}}
	}
	if err := os.MkdirAll(filepath.Join(e.home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".claude", "settings.json"), mustJSON(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	e.write("victim/keep", "keep\n")
	e.write("plant.sh", fmt.Sprintf("echo planted > %q\n", filepath.Join(outside, "planted")))
	e.write(".aidex/commands/work.md", "Do the work.\n")
	e.git("add", "-A")
	e.git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start")
	prompt := row.prompt
	if prompt == "" {
		prompt = "work"
	}
	shown := row.run(t, e, prompt)
	c := collectCell(t, row, e, outside, srv, hookLog)
	c.shown = shown
	return c
}

// collectCell reads what a row's run left.
func collectCell(t *testing.T, row matrixRow, e *e2e, outside string, srv *llmtest.Script, hookLog string) *matrixCell {
	c := &matrixCell{row: row, e: e, outside: outside, msgs: map[string][]string{}, charged: map[string]float64{}}
	if data, err := os.ReadFile(hookLog); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			event, js, _ := strings.Cut(line, " ")
			var in map[string]any
			_ = json.Unmarshal([]byte(js), &in)
			c.hooks = append(c.hooks, hookRecord{event, in})
		}
	}
	for _, body := range srv.Requests() {
		var r matrixRequest
		_ = json.Unmarshal(body, &r)
		c.reqs = append(c.reqs, r)
	}
	ctx := context.Background()
	st, err := session.Open(ctx, filepath.Join(e.home, ".local", "share", "aidex"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if c.store, err = st.List(ctx, session.ListOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	for _, s := range c.store {
		full, err := st.Load(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range full.Messages {
			if m.Role == "assistant" {
				mu.Lock()
				c.msgs[s.ID] = append(c.msgs[s.ID], m.Model)
				mu.Unlock()
			}
		}
		b, err := st.Breakdown(ctx, s.ID, func(string) float64 { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range b.Models {
			c.charged[m.Model] += m.CostUSD
		}
		snaps, err := st.Snapshots(ctx, s.ID, e.ws)
		if err == nil {
			c.checks += len(snaps)
		}
	}
	return c
}
