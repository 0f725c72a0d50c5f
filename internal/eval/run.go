package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Config is what an attempt runs with: an agent ("aidex", or another
// agent's headless mode: claude, codex, gemini, opencode), a model
// ("PROVIDER/MODEL" or the agent's own name for it; "" = its default)
// and harness settings ("key=value", aidex's config keys).
type Config struct {
	Agent    string   `json:"agent"`
	Model    string   `json:"model,omitempty"`
	Settings []string `json:"settings,omitempty"`
}

// Label names the configuration in reports: "agent model k=v ...".
func (c Config) Label() string {
	parts := []string{c.Agent}
	if c.Model != "" {
		parts = append(parts, c.Model)
	}
	return strings.Join(append(parts, c.Settings...), " ")
}

// Attempt is one run of an agent on a task: its workspace (the agent's
// working directory), the instruction, the time limit and whether the
// task asks for network tools.
type Attempt struct {
	Task      Task
	Config    Config
	N         int // 1-based attempt number
	Workspace string
	Timeout   time.Duration
}

// AgentResult is what an agent reports of an attempt. CostKnown is
// false when the agent reports no cost; TokensKnown when it reports no
// tokens.
type AgentResult struct {
	SessionID    string  `json:"session_id,omitempty"`
	Turns        int     `json:"turns"`
	ToolCalls    int     `json:"tool_calls"`
	InputTokens  int     `json:"input_tokens"`
	CachedTokens int     `json:"cached_tokens"`
	OutputTokens int     `json:"output_tokens"`
	TokensKnown  bool    `json:"tokens_known"`
	CostUSD      float64 `json:"cost_usd"`
	CostKnown    bool    `json:"cost_known"`
	Answer       string  `json:"answer,omitempty"`
	// Error is why the agent ended without finishing ("" when it did):
	// its exit status, a timeout.
	Error string `json:"error,omitempty"`
	// Verified is aidex's verify before finishing outcome ("true",
	// "false", "none"; "" for other agents) and Harness the harness
	// settings the attempt had in force (aidex's headless JSON "harness"
	// object; absent for other agents): what `--setting harness.KEY=V`
	// changed, as the run recorded it.
	Verified string          `json:"verified,omitempty"`
	Harness  json.RawMessage `json:"harness,omitempty"`
}

// Agent runs one attempt in a.Workspace and reports it. An error is the
// harness's (the agent could not start); an attempt the agent failed is
// an AgentResult with Error set.
type Agent interface {
	Run(ctx context.Context, a Attempt) (AgentResult, error)
}

// VerifyOutcome is a command's end: OK for exit status 0.
type VerifyOutcome struct {
	OK       bool   `json:"ok"`
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output,omitempty"`
}

// Verifier runs command (a POSIX shell line) in workspace within
// timeout, in the sandbox: task setup scripts and verifiers are the
// task's code.
type Verifier interface {
	Verify(ctx context.Context, workspace, command string, timeout time.Duration) VerifyOutcome
}

// Result is one attempt's record (a line of results.jsonl).
type Result struct {
	Task    string      `json:"task"`
	Config  Config      `json:"config"`
	Attempt int         `json:"attempt"`
	Pass    bool        `json:"pass"`
	Skipped string      `json:"skipped,omitempty"`
	Agent   AgentResult `json:"agent"`
	// Verify is the verifier's end (its output cut to 4 KiB).
	Verify VerifyOutcome `json:"verify"`
	// Seconds is the attempt's wall time: the agent's part.
	Seconds float64 `json:"seconds"`
	// Diff is the attempt's diff file, relative to the run's folder.
	Diff string `json:"diff,omitempty"`
	// Error is the harness's failure (a workspace that could not be
	// made); the attempt counts as failed.
	Error string `json:"error,omitempty"`
}

// Runner runs suites. Agents returns the agent of a configuration; Dir
// is the run's folder (results.jsonl, diffs/, work/); Attempts per task
// and configuration (≥ 1), Parallel attempts at once (≥ 1). OnResult,
// when set, is called after each attempt (from the attempt's goroutine,
// one at a time).
type Runner struct {
	Agents   func(Config) (Agent, error)
	Verifier Verifier
	Dir      string
	Attempts int
	Parallel int
	OnResult func(Result)
	// KeepWorkspaces keeps each attempt's workspace (default: removed
	// once its diff is saved).
	KeepWorkspaces bool

	mu sync.Mutex
}

// Run runs every task with every configuration Attempts times and
// returns the results in completion order; they are also appended to
// Dir/results.jsonl as each attempt ends. Errors: an unknown agent; the
// results file cannot be written; ctx's end (the results so far are
// returned and kept).
func (r *Runner) Run(ctx context.Context, tasks []Task, configs []Config) ([]Result, error) {
	agents := map[string]Agent{}
	for _, c := range configs {
		a, err := r.Agents(c)
		if err != nil {
			return nil, err
		}
		agents[c.Label()] = a
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "diffs"), 0o755); err != nil {
		return nil, err
	}
	jobs := make(chan job)
	st := &runState{}
	var wg sync.WaitGroup
	for range max(r.Parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r.finish(st, r.attempt(ctx, agents[j.c.Label()], j.t, j.c, j.n))
			}
		}()
	}
	r.feed(ctx, jobs, tasks, configs)
	wg.Wait()
	if st.err == nil {
		st.err = ctx.Err()
	}
	return st.results, st.err
}

// job is one attempt to make.
type job struct {
	t Task
	c Config
	n int
}

// runState is what a run's attempts collect (guarded by Runner.mu).
type runState struct {
	results []Result
	err     error
}

// feed sends every attempt to jobs, then closes it (early when ctx ends).
func (r *Runner) feed(ctx context.Context, jobs chan<- job, tasks []Task, configs []Config) {
	defer close(jobs)
	for _, t := range tasks {
		for _, c := range configs {
			for n := 1; n <= max(r.Attempts, 1); n++ {
				select {
				case jobs <- job{t, c, n}:
				case <-ctx.Done():
					return
				}
			}
		}
	}
}

// finish appends res to results.jsonl and st, and tells OnResult.
func (r *Runner) finish(st *runState, res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st.results = append(st.results, res)
	if err := appendLine(filepath.Join(r.Dir, "results.jsonl"), res); err != nil && st.err == nil {
		st.err = err
	}
	if r.OnResult != nil {
		r.OnResult(res)
	}
}

// appendLine appends v as one JSON line to file.
func appendLine(file string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("record the result: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		_ = f.Close()
		return fmt.Errorf("record the result: %w", err)
	}
	return f.Close()
}

// attempt runs one attempt: the workspace, the setup script, the agent
// within the task's time limit, the diff, then the tests (copied in only
// now, so that the agent cannot read them) and the verifier.
func (r *Runner) attempt(ctx context.Context, ag Agent, t Task, c Config, n int) Result {
	res := Result{Task: t.ID, Config: c, Attempt: n}
	if t.Skip != "" {
		res.Skipped = t.Skip
		return res
	}
	dir := filepath.Join(r.Dir, "work", safeName(t.ID), fmt.Sprintf("%s-%d", safeName(c.Label()), n))
	ws := filepath.Join(dir, "workspace")
	if !r.KeepWorkspaces {
		defer os.RemoveAll(dir)
	}
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.Error = err.Error()
		return res
	}
	base, err := prepareWorkspace(ctx, t, ws)
	if err == nil {
		err = r.setup(ctx, t, ws)
	}
	if err != nil {
		res.Error = err.Error()
		return res
	}
	start := time.Now()
	actx, cancel := context.WithTimeout(ctx, t.AgentTimeout)
	res.Agent, err = ag.Run(actx, Attempt{Task: t, Config: c, N: n, Workspace: ws, Timeout: t.AgentTimeout})
	if actx.Err() == context.DeadlineExceeded && res.Agent.Error == "" {
		res.Agent.Error = fmt.Sprintf("timed out after %s ([agent] timeout_sec)", t.AgentTimeout)
	}
	cancel()
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if d, err := diff(ctx, ws, base); err == nil && d != "" {
		res.Diff = filepath.Join("diffs", fmt.Sprintf("%s.%s-%d.diff", safeName(t.ID), safeName(c.Label()), n))
		_ = os.WriteFile(filepath.Join(r.Dir, res.Diff), []byte(d), 0o644)
	}
	res.Verify, err = r.verify(ctx, t, dir, ws)
	if err != nil {
		res.Error = err.Error()
	}
	res.Pass = err == nil && res.Verify.OK
	return res
}

// setup runs the task's environment/setup.sh in ws, when it has one.
func (r *Runner) setup(ctx context.Context, t Task, ws string) error {
	script := filepath.Join(t.Dir, "environment", "setup.sh")
	if _, err := os.Stat(script); err != nil {
		return nil
	}
	out := r.Verifier.Verify(ctx, ws, "sh "+shellQuote(script), t.AgentTimeout)
	if !out.OK {
		return fmt.Errorf("environment/setup.sh failed (exit %d): %s", out.ExitCode, cut(out.Output, 2000))
	}
	return nil
}

// verify copies the task's tests beside the workspace and runs
// tests/test.sh in it (TESTS_DIR names the copy).
func (r *Runner) verify(ctx context.Context, t Task, dir, ws string) (VerifyOutcome, error) {
	tests := filepath.Join(dir, "tests")
	if err := copyTree(filepath.Join(t.Dir, "tests"), tests, nil); err != nil {
		return VerifyOutcome{}, fmt.Errorf("copy the tests: %w", err)
	}
	cmd := "TESTS_DIR=" + shellQuote(tests) + " sh " + shellQuote(filepath.Join(tests, "test.sh"))
	out := r.Verifier.Verify(ctx, ws, cmd, t.VerifierTimeout)
	out.Output = cut(out.Output, 4096)
	return out, nil
}

// safeName makes s a file name: letters, digits, '.', '-' and '_' kept,
// the rest '_', at most 80 bytes.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cut keeps the last n bytes of s (a verifier's verdict is at its end).
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// ReadResults reads a run's results.jsonl. Errors: an unreadable file,
// a line that is not a result (naming its number).
func ReadResults(runDir string) ([]Result, error) {
	data, err := os.ReadFile(filepath.Join(runDir, "results.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("read the run's results: %w", err)
	}
	var out []Result
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", filepath.Join(runDir, "results.jsonl"), i+1, err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, errors.New(runDir + ": the run has no results yet")
	}
	return out, nil
}

// ParseSetting splits "key=value". Errors: no '=' or an empty key.
func ParseSetting(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", "", fmt.Errorf("setting %q: want KEY=VALUE (a config key, e.g. edit_format=hashline)", s)
	}
	return strings.TrimSpace(k), v, nil
}
