package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/eval"
)

// newEvalCmd is `aidex eval`: task suites run against models, agents and
// harness settings (internal/eval, docs/eval.md).
func newEvalCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Measure models, agents and harness settings on task suites (your repository's own history too)",
		Long: `Run task suites in the Terminal-Bench 2 (Harbor) layout against models,
other agents and harness settings, and report pass rates, cost, tokens and
time (docs/eval.md).

  aidex eval mine                      tasks from this repository's history
  aidex eval run SUITE --model A --model B --attempts 3
  aidex eval report RUN [--html report.html]
  aidex eval compare RUN_A RUN_B       the tasks that flipped

Attempts run headless in yolo inside the OS sandbox, in throw-away
workspaces under aidex's state folder (no one is there to approve; the
sandbox is what contains them). Network tools (web_fetch, MCP servers) are
off unless a task's [environment] network = true.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newEvalRunCmd(a), newEvalReportCmd(a), newEvalCompareCmd(a), newEvalMineCmd(a))
	return cmd
}

// evalDir is aidex's folder of eval runs and mined suites.
func (a *cliApp) evalDir() (string, error) {
	rt, err := a.catalogOnly()
	if err != nil {
		return "", err
	}
	return filepath.Join(rt.Config.Paths.StateDir, "eval"), nil
}

// runDir resolves RUN: a folder path, or a run id under the eval folder.
func (a *cliApp) runDir(run string) (string, error) {
	if fi, err := os.Stat(run); err == nil && fi.IsDir() {
		return run, nil
	}
	base, err := a.evalDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "runs", run)
	if _, err := os.Stat(filepath.Join(dir, "results.jsonl")); err != nil {
		return "", usageErr("no eval run %q (a run's folder, or an id under %s)", run, filepath.Join(base, "runs"))
	}
	return dir, nil
}

// evalRunFlags are `aidex eval run`'s.
type evalRunFlags struct {
	agents, models, settings []string
	attempts, parallel       int
	keep                     bool
}

func newEvalRunCmd(a *cliApp) *cobra.Command {
	var f evalRunFlags
	cmd := &cobra.Command{
		Use:   "run SUITE",
		Short: "Run a suite's tasks with each model/agent, then print the report",
		Long: `Run every task of SUITE (a task folder, or a folder of them) with each
configuration: every --agent (aidex by default; claude, codex, gemini and
opencode run through their headless modes when installed) with every --model,
each --setting (a config key=value) applied to aidex's runs. Each attempt runs
in its own workspace (a clone of a mined task's repository, or a copy of the
task's environment), within the task's time limit; then its tests run, in the
sandbox. Results go to a run folder under aidex's state folder as they come
(results.jsonl, one diff per attempt); the report is printed at the end.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.evalRun(cmd.Context(), args[0], &f) },
	}
	fl := cmd.Flags()
	repeatedVar(fl, &f.agents, "agent", "agent to run: aidex (default), claude, codex, gemini or opencode (repeatable)")
	repeatedVar(fl, &f.models, "model", "model (PROVIDER/MODEL for aidex; the agent's own name for others; repeatable; default: the configured one)")
	repeatedVar(fl, &f.settings, "setting", "harness setting for aidex's attempts: a config KEY=VALUE, as --set takes it (repeatable)")
	fl.IntVar(&f.attempts, "attempts", 1, "attempts per task and configuration (pass@k uses them all)")
	fl.IntVar(&f.parallel, "parallel", 1, "attempts run at once")
	fl.BoolVar(&f.keep, "keep-workspaces", false, "keep each attempt's workspace (default: removed once its diff is saved)")
	return cmd
}

// evalConfigs is the configurations of f: every agent with every model.
func evalConfigs(f *evalRunFlags) ([]eval.Config, error) {
	for _, s := range f.settings {
		if _, _, err := eval.ParseSetting(s); err != nil {
			return nil, usageErr("--setting: %v", err)
		}
	}
	agents, models := f.agents, f.models
	if len(agents) == 0 {
		agents = []string{"aidex"}
	}
	if len(models) == 0 {
		models = []string{""}
	}
	var out []eval.Config
	for _, ag := range agents {
		if ag != "aidex" {
			if _, err := eval.Command(ag, "", ""); err != nil {
				return nil, usageErr("--agent: %v", err)
			}
		}
		for _, m := range models {
			c := eval.Config{Agent: ag, Model: m}
			if ag == "aidex" {
				c.Settings = f.settings
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// evalRun is `aidex eval run`.
func (a *cliApp) evalRun(ctx context.Context, suite string, f *evalRunFlags) error {
	configs, err := evalConfigs(f)
	if err != nil {
		return err
	}
	if f.attempts < 1 || f.parallel < 1 {
		return usageErr("--attempts and --parallel must be at least 1")
	}
	tasks, err := eval.LoadSuite(suite)
	if err != nil {
		return usageErr("%v", err)
	}
	rt, err := a.catalogOnly()
	if err != nil {
		return err
	}
	base := filepath.Join(rt.Config.Paths.StateDir, "eval")
	id := "run-" + time.Now().UTC().Format("20060102-150405") + fmt.Sprintf("-%04x", time.Now().Nanosecond()&0xffff)
	dir := filepath.Join(base, "runs", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	meta, _ := json.MarshalIndent(map[string]any{"suite": suite, "configs": configs, "attempts": f.attempts, "started": time.Now().UTC()}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "run.json"), meta, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.proc.Stderr, "aidex eval: %d tasks × %d configurations × %d attempts → %s\n", len(tasks), len(configs), f.attempts, dir)
	r := &eval.Runner{Dir: dir, Attempts: f.attempts, Parallel: f.parallel, KeepWorkspaces: f.keep, Verifier: runtimeVerifier{rt},
		Agents: func(c eval.Config) (eval.Agent, error) {
			if c.Agent == "aidex" {
				return aidexAgent{a: a}, nil
			}
			return eval.External{Name: c.Agent, Confine: func(cmd *exec.Cmd, ws string) error {
				_, err := rt.ConfineIn(cmd, ws)
				return err
			}}, nil
		},
		OnResult: func(res eval.Result) { fmt.Fprintln(a.proc.Stderr, "  "+resultLine(res)) },
	}
	results, err := r.Run(ctx, tasks, configs)
	if len(results) > 0 {
		if werr := eval.Summarize(results).WriteText(a.proc.Stdout); werr != nil && err == nil {
			err = werr
		}
		fmt.Fprintf(a.proc.Stdout, "\nrun: %s (aidex eval report %s)\n", id, id)
	}
	return err
}

// resultLine is an attempt's progress line.
func resultLine(res eval.Result) string {
	verdict := "FAIL"
	switch {
	case res.Skipped != "":
		verdict = "skipped: " + res.Skipped
	case res.Pass:
		verdict = "pass"
	case res.Error != "":
		verdict = "error: " + res.Error
	case res.Agent.Error != "":
		verdict = "FAIL (" + res.Agent.Error + ")"
	}
	return fmt.Sprintf("%s · %s #%d: %s (%.1fs)", res.Task, res.Config.Label(), res.Attempt, verdict, res.Seconds)
}

// runtimeVerifier runs setup scripts, verifiers and mining test commands
// in the sandbox of the attempt's own workspace.
type runtimeVerifier struct{ rt *catalogView }

func (v runtimeVerifier) Verify(ctx context.Context, ws, command string, timeout time.Duration) eval.VerifyOutcome {
	ok, code, out := v.rt.VerifyIn(ctx, ws, command, timeout)
	return eval.VerifyOutcome{OK: ok, ExitCode: code, Output: out}
}

// aidexAgent runs an attempt as `aidex -p` does, in this process: yolo
// in the sandbox (no one is there to approve), the configuration's model
// and settings, network tools off unless the task asks for them.
type aidexAgent struct{ a *cliApp }

func (g aidexAgent) Run(ctx context.Context, at eval.Attempt) (eval.AgentResult, error) {
	args := []string{"-w", at.Workspace, "-p", at.Task.Instruction, "--output-format", "json", "--permission-mode", "yolo"}
	if at.Config.Model != "" {
		args = append(args, "--model", at.Config.Model)
	}
	for _, s := range at.Config.Settings {
		args = append(args, "--set", s)
	}
	if !at.Task.Network {
		args = append(args, "--deny", "web_fetch", "--deny", "mcp__*")
	}
	var out, errb bytes.Buffer
	code := Main(Process{Context: ctx, Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: g.a.proc.Getenv, Version: g.a.proc.Version})
	var r jsonResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		if code == ExitUsage {
			return eval.AgentResult{}, fmt.Errorf("aidex: %s", strings.TrimSpace(errb.String()))
		}
		return eval.AgentResult{Error: fmt.Sprintf("aidex exited %d: %s", code, cutTail(errb.String(), 500))}, nil
	}
	res := eval.AgentResult{SessionID: r.SessionID, Turns: r.Turns, ToolCalls: len(r.ToolCalls), Answer: r.Result,
		InputTokens: r.Usage.InputTokens, CachedTokens: r.Usage.CacheReadTokens, OutputTokens: r.Usage.OutputTokens, TokensKnown: true,
		CostUSD: r.CostUSD, CostKnown: true, Verified: r.Verified}
	if r.Harness != nil {
		res.Harness, _ = json.Marshal(r.Harness)
	}
	if code != ExitOK {
		res.Error = fmt.Sprintf("aidex exited %d (%s)", code, r.StopReason)
	}
	return res, nil
}

// cutTail keeps the last n bytes of s, trimmed.
func cutTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func newEvalReportCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	var html string
	cmd := &cobra.Command{
		Use:   "report RUN...",
		Short: "Report runs: pass@1, pass@k, cost per task and per solved task, tokens, time; --html for a page with a chart",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			var all []eval.Result
			for _, run := range args {
				dir, err := a.runDir(run)
				if err != nil {
					return err
				}
				rs, err := eval.ReadResults(dir)
				if err != nil {
					return err
				}
				all = append(all, rs...)
			}
			rep := eval.Summarize(all)
			if html != "" {
				if err := writeHTMLReport(rep, html, strings.Join(args, ", ")); err != nil {
					return err
				}
				fmt.Fprintf(a.proc.Stderr, "aidex eval: wrote %s\n", html)
			}
			if asJSON {
				return json.NewEncoder(a.proc.Stdout).Encode(rep)
			}
			return rep.WriteText(a.proc.Stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&html, "html", "", "also write the report as one self-contained HTML `FILE` (chart of pass rate against cost)")
	return cmd
}

// writeHTMLReport writes rep's page to file.
func writeHTMLReport(rep eval.Report, file, title string) error {
	var b bytes.Buffer
	if err := rep.WriteHTML(&b, "aidex eval: "+title); err != nil {
		return err
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}

func newEvalCompareCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare RUN_A RUN_B",
		Short: "Show the tasks that flipped between two runs",
		Args:  cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			var runs [2][]eval.Result
			for i, run := range args {
				dir, err := a.runDir(run)
				if err != nil {
					return err
				}
				if runs[i], err = eval.ReadResults(dir); err != nil {
					return err
				}
			}
			flips := eval.Compare(runs[0], runs[1])
			if asJSON {
				return json.NewEncoder(a.proc.Stdout).Encode(flips)
			}
			if len(flips) == 0 {
				fmt.Fprintln(a.proc.Stdout, "no task flipped")
			}
			for _, fl := range flips {
				sign := "-"
				if fl.Gained {
					sign = "+"
				}
				fmt.Fprintf(a.proc.Stdout, "%s %s  %s: %s → %s\n", sign, fl.Task, fl.Config, fl.A, fl.B)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the flips as JSON")
	return cmd
}

func newEvalMineCmd(a *cliApp) *cobra.Command {
	var o eval.MineOptions
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "mine",
		Short: "Write tasks from this repository's history: commits whose tests fail on the parent and pass on the commit",
		Long: `Find the commits of the workspace's repository whose own test changes fail
on the parent commit and pass on the commit, and write a task for each: the
instruction is the commit message, the workspace the parent commit without
the commit's test files, the verifier those files put back and the test
command run. Each commit is checked in a throw-away clone under aidex's state
folder, the test command in the sandbox: your working tree and its
uncommitted changes are never touched. The test command is verify_command,
--test-command, or detected (go test, pytest, npm test, cargo test).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			base := filepath.Join(rt.Config.Paths.StateDir, "eval")
			o.Repo, o.Timeout, o.Verifier = rt.Workspace, timeout, runtimeVerifier{rt}
			if o.TestCommand == "" {
				o.TestCommand = rt.Config.VerifyCommand
			}
			if o.Out == "" {
				o.Out = filepath.Join(base, "suites", filepath.Base(rt.Workspace)+"-mined")
			}
			o.Work = filepath.Join(base, "work")
			if err := os.MkdirAll(o.Work, 0o755); err != nil {
				return err
			}
			o.Progress = func(c, verdict string) { fmt.Fprintf(a.proc.Stderr, "  %s: %s\n", c[:min(12, len(c))], verdict) }
			mined, err := eval.Mine(cmd.Context(), o)
			n := 0
			for _, m := range mined {
				if m.Task != "" {
					n++
				}
			}
			fmt.Fprintf(a.proc.Stdout, "%d tasks in %s (%d commits examined)\n", n, o.Out, len(mined))
			if n > 0 {
				fmt.Fprintf(a.proc.Stdout, "run them: aidex eval run %s\n", o.Out)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Since, "since", "", "only commits after this commit or ref")
	fl.IntVar(&o.Max, "max", 20, "write at most this many tasks")
	fl.IntVar(&o.Window, "window", 200, "examine at most this many commits (newest first)")
	fl.StringVar(&o.TestCommand, "test-command", "", "the test command (default: verify_command, else detected)")
	fl.StringVar(&o.Out, "out", "", "write the tasks into this folder (default: a suite under aidex's state folder)")
	fl.DurationVar(&timeout, "timeout", 5*time.Minute, "time limit of one test run")
	return cmd
}
