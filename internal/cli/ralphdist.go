package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ralph/dist"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// distFlags are the flags of a run with several workers (ralph run,
// serve) and of the NATS connection (serve, worker, status).
type distFlags struct {
	workers    int
	ackWait    time.Duration
	merge      bool
	bestOf     int
	natsListen string
	natsToken  string
	tlsCert    string
	tlsKey     string
	natsURL    string
	natsCreds  string
	natsCA     string
	remote     string
	noWorktree bool
}

// addRunDistFlags adds `ralph run`'s flags for several workers.
func addRunDistFlags(cmd *cobra.Command, f *distFlags) {
	fl := cmd.Flags()
	fl.IntVar(&f.workers, "workers", 1, "run N workers at once, each in its own git worktree on branch ralph/<task-id> (1: one task at a time in the workspace)")
	fl.DurationVar(&f.ackWait, "ack-wait", dist.DefaultAckWait, "with --workers: how long a worker may stay silent on a task before it goes to another worker")
	fl.BoolVar(&f.merge, "merge", false, "with --workers: merge the done branches into the current branch at the end, in dependency order")
	fl.IntVar(&f.bestOf, "best-of", 1, "with --workers: K workers attempt each task; the first to pass verification with the fewest changed lines wins")
	fl.StringVar(&f.natsListen, "nats-listen", "", "with --workers: the embedded NATS server's address (default: a random loopback port; another address needs TLS and a token)")
	fl.StringVar(&f.natsToken, "nats-token", "", "with --nats-listen: the token clients must present (default: a random one)")
	fl.StringVar(&f.tlsCert, "nats-tls-cert", "", "with --nats-listen: the server's TLS certificate (PEM)")
	fl.StringVar(&f.tlsKey, "nats-tls-key", "", "with --nats-listen: the server's TLS key (PEM)")
	fl.BoolVar(&f.noWorktree, "no-worktree", false, "")
	_ = fl.MarkHidden("no-worktree") // the coordinator-overhead benchmark: no worktree, no commit
}

// addConnFlags adds the flags that reach an external NATS server.
func addConnFlags(cmd *cobra.Command, f *distFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.natsURL, "nats", "", "NATS server URL, nats://HOST:4222 or tls://HOST:4222 (default: $NATS_URL)")
	fl.StringVar(&f.natsCreds, "nats-creds", "", "NATS credentials file (default: $NATS_CREDS)")
	fl.StringVar(&f.natsToken, "nats-token", "", "NATS token (default: $NATS_TOKEN)")
	fl.StringVar(&f.natsCA, "nats-ca", "", "PEM file of the CA that signed the server's certificate (tls://)")
}

func (f *distFlags) check() error {
	switch {
	case f.workers < 1 || f.workers > 64:
		return usageErr("--workers must be 1..64, not %d", f.workers)
	case f.ackWait < 100*time.Millisecond:
		return usageErr("--ack-wait must be at least 100ms, not %s", f.ackWait)
	case f.bestOf < 1 || f.bestOf > 16:
		return usageErr("--best-of must be 1..16, not %d", f.bestOf)
	}
	return nil
}

// checkRun adds `ralph run`'s rule: the flags of several workers need them.
func (f *distFlags) checkRun() error {
	if !f.distributed() && (f.merge || f.natsListen != "" || f.noWorktree) {
		return usageErr("--merge and --nats-listen need --workers N (N > 1) or --best-of K")
	}
	return f.check()
}

// distributed reports whether the run needs the queue.
func (f *distFlags) distributed() bool { return f.workers > 1 || f.bestOf > 1 }

// connect reaches the NATS server of --nats / $NATS_URL.
func (a *cliApp) connect(f *distFlags, name string) (*nats.Conn, error) {
	o := dist.ConnOptions{URL: f.natsURL, Creds: f.natsCreds, Token: f.natsToken, CAFile: f.natsCA, Name: name}
	if o.URL == "" {
		o.URL = a.proc.Getenv("NATS_URL")
	}
	if o.Creds == "" {
		o.Creds = a.proc.Getenv("NATS_CREDS")
	}
	if o.Token == "" {
		o.Token = a.proc.Getenv("NATS_TOKEN")
	}
	if o.URL == "" {
		return nil, usageErr("no NATS server: pass --nats nats://HOST:4222 or set NATS_URL")
	}
	nc, err := dist.Connect(o)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	return nc, nil
}

// runRalphWorkers is `aidex ralph run --workers N`: an embedded NATS
// server, a coordinator and N in-process workers.
func (a *cliApp) runRalphWorkers(ctx context.Context, appSvc *app.Service, svc *ralph.Service, o ralph.RunOptions, f *distFlags, emit func(ralph.Event)) (*ralph.Summary, error) {
	rt := appSvc.Runtime()
	state := rt.Config.Paths.StateDir
	emb, err := dist.StartEmbedded(dist.EmbeddedOptions{StoreDir: filepath.Join(state, "ralph-nats", dist.RepoHash(rt.Workspace)),
		Listen: f.natsListen, Token: f.natsToken, TLSCert: f.tlsCert, TLSKey: f.tlsKey})
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	defer emb.Shutdown()
	nc, err := emb.Connect("aidex-ralph-coordinator")
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	coord, err := dist.NewCoordinator(dist.CoordinatorOptions{Service: svc, Conn: nc, Run: o, AckWait: f.ackWait, Merge: f.merge, BestOf: f.bestOf})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	wctx, stopWorkers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopWorkers(); wg.Wait() }()
	exec, repoLock := appSvc.RalphExecutor(), &sync.Mutex{}
	for i := 1; i <= f.workers; i++ {
		wnc, err := emb.Connect(fmt.Sprintf("aidex-ralph-w%d", i))
		if err != nil {
			return nil, err
		}
		defer wnc.Close()
		w, err := dist.NewWorker(dist.WorkerOptions{Conn: wnc, ID: fmt.Sprintf("w%d", i), Executor: exec, Repo: rt.Workspace,
			WorktreeRoot: filepath.Join(state, "worktrees"), Run: o, Emit: emit, NoWorktree: f.noWorktree, RepoLock: repoLock})
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = w.Run(wctx) }()
	}
	return coord.Run(ctx, emit)
}

// ralphWorkerFlags are `aidex ralph worker`'s flags.
type ralphWorkerFlags struct {
	conn          distFlags
	policy        policyFlags
	provider      string
	model         string
	id            string
	concurrency   int
	allowRemotes  []string
	maxTurns      int
	maxAttempts   int
	verifyTimeout time.Duration
	taskTimeout   time.Duration
	verify        string
	asJSON        bool
}

func newRalphWorkerCmd(a *cliApp) *cobra.Command {
	var f ralphWorkerFlags
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Work tasks of a coordinator's queue on NATS (aidex ralph serve), on this machine",
		Long: `Take tasks from the coordinator's work queue on NATS, one at a time per
--concurrency slot: clone (then fetch) the repository the coordinator names
(--remote on 'aidex ralph serve'), work the task in a git worktree on branch
ralph/<task-id>, commit, push the branch, and report.

--workspace DIR (or the current folder) is the worker's own workspace: its
configuration is read there, never from the repositories it works on; the
clones live under $XDG_STATE_HOME/aidex/ralph-clones, the worktrees under
$XDG_STATE_HOME/aidex/worktrees.

The worker trusts nothing it receives: its permission mode, sandbox, turn
limits and the remotes it accepts (--allow-remote) come from its own flags
and configuration; a task's verify command runs only when it is this
worker's verify_command or its allow rules allow it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runRalphWorker(cmd, &f) },
	}
	addConnFlags(cmd, &f.conn)
	addPolicyFlags(cmd, &f.policy)
	fl := cmd.Flags()
	fl.StringVar(&f.provider, "provider", "", "provider to use")
	fl.StringVarP(&f.model, "model", "m", "", "model to use, or PROVIDER/MODEL")
	fl.StringVar(&f.id, "id", "", "worker id in status and results (default: HOST-PID-RANDOM)")
	fl.IntVar(&f.concurrency, "concurrency", 1, "tasks at once")
	repeatedVar(fl, &f.allowRemotes, "allow-remote", "a repository URL pattern this worker accepts, e.g. 'https://github.com/acme/*' (repeatable; none: every task is refused)")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "model responses per agent run (default: max_tool_turns)")
	fl.IntVar(&f.maxAttempts, "max-attempts", ralph.DefaultMaxAttempts, "agent attempts per task when verification fails")
	fl.DurationVar(&f.verifyTimeout, "verify-timeout", 10*time.Minute, "time limit of one verification (max 10m)")
	fl.DurationVar(&f.taskTimeout, "task-timeout", 0, "time limit of one task (default: none)")
	fl.StringVar(&f.verify, "verify", "", "a verify command tasks may ask for, besides verify_command and the allow rules")
	fl.BoolVar(&f.asJSON, "json", false, "print every event as a JSON line")
	return cmd
}

func (a *cliApp) runRalphWorker(cmd *cobra.Command, f *ralphWorkerFlags) error {
	if f.concurrency < 1 || f.concurrency > 64 || f.maxTurns < 0 || f.maxAttempts < 1 || f.taskTimeout < 0 || f.verifyTimeout < 0 {
		return usageErr("--concurrency must be 1..64, --max-attempts at least 1, the others not negative")
	}
	rf := runFlags{permissionMode: f.policy.mode, allow: f.policy.allow, deny: f.policy.deny, ask: f.policy.ask,
		addDirs: f.policy.addDirs, provider: f.provider, model: f.model, outputFormat: "text", agentWrites: "allow", agentOutput: "final",
		sandbox: f.policy.sandbox}
	if err := a.applyRunFlags(&rf); err != nil {
		return err
	}
	nc, err := a.connect(&f.conn, "aidex-ralph-worker")
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, cancel := signalContext(cmd.Context())
	defer cancel()
	appSvc, err := a.startRun(ctx, false)
	if err != nil {
		return err
	}
	defer appSvc.Close()
	rt := appSvc.Runtime()
	state := rt.Config.Paths.StateDir
	ws := filepath.Join(state, "ralph-clones", dist.RepoHash(rt.Workspace))
	p := newRalphPrinter(a.proc.Stdout, a.flags.quiet)
	emit := distEmit(a, p, f.asJSON)
	w, err := dist.NewWorker(dist.WorkerOptions{Conn: nc, ID: f.id, Executor: appSvc.RalphExecutor(), Workspace: ws,
		WorktreeRoot: filepath.Join(state, "worktrees"), AllowRemotes: f.allowRemotes, Concurrency: f.concurrency, Emit: emit,
		Run: ralph.RunOptions{MaxTurns: f.maxTurns, MaxAttempts: f.maxAttempts, VerifyTimeout: f.verifyTimeout, TaskTimeout: f.taskTimeout,
			Verify: strings.TrimSpace(f.verify)}})
	if err != nil {
		return err
	}
	if len(f.allowRemotes) == 0 {
		fmt.Fprintln(a.proc.Stderr, "aidex: no --allow-remote: this worker refuses every task (allow the coordinator's repository)")
	}
	fmt.Fprintf(a.proc.Stderr, "aidex: worker %s waiting for tasks on %s\n", w.ID(), nc.ConnectedUrlRedacted())
	if err := w.Run(ctx); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// distEmit returns how a worker or coordinator's events are shown: every
// event as a JSON line, or the progress lines (no engine events: several
// tasks run at once).
func distEmit(a *cliApp, p *ralphPrinter, asJSON bool) func(ralph.Event) {
	if asJSON {
		var mu sync.Mutex
		enc := json.NewEncoder(a.proc.Stdout)
		return func(ev ralph.Event) { mu.Lock(); defer mu.Unlock(); _ = enc.Encode(ev) }
	}
	return func(ev ralph.Event) {
		switch {
		case ev.Agent != nil, ev.Type == ralph.EventVerifyStart:
			// Several tasks run at once: no engine events in the lines.
		case ev.Type == ralph.EventVerify && ev.Verify != nil && ev.Verify.Result != nil && !ev.Verify.Result.OK:
			p.mu.Lock()
			fmt.Fprintf(p.out, "[%s] verify failed on %s: %s\n", ev.TaskID, ev.Worker, ralphLine(ralphFirst(ev.Verify.Result.Error, fmt.Sprintf("exit code %d", ev.Verify.Result.ExitCode)), 200))
			p.mu.Unlock()
		case ev.Type == ralph.EventVerify:
		default:
			p.event(ev)
		}
	}
}

// signalContext is ctx cancelled by Ctrl+C or SIGTERM.
func signalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// ralphServeFlags are `aidex ralph serve`'s flags.
type ralphServeFlags struct {
	conn          distFlags
	maxIterations int
	verify        string
	tasks         []string
	asJSON        bool
}

func newRalphServeCmd(a *cliApp) *cobra.Command {
	var f ralphServeFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Coordinate a run whose workers ('aidex ralph worker') run on other machines, over an external NATS",
		Long: `Coordinate a Ralph run over an existing NATS server with JetStream: put the
runnable tasks of this workspace's list on the work queue, record what the
workers report, release tasks whose dependencies are done. The workers clone
--remote (push this workspace's HEAD there first) and push their branches
ralph/<task-id> back to it; --merge fetches and merges them at the end.

Exit status as for 'aidex ralph run'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runRalphServe(cmd, &f) },
	}
	addConnFlags(cmd, &f.conn)
	fl := cmd.Flags()
	fl.StringVar(&f.conn.natsListen, "nats-listen", "", "without --nats: run an embedded NATS server at this address (default: a random loopback port; another address needs TLS and a token)")
	fl.StringVar(&f.conn.tlsCert, "nats-tls-cert", "", "with --nats-listen: the server's TLS certificate (PEM)")
	fl.StringVar(&f.conn.tlsKey, "nats-tls-key", "", "with --nats-listen: the server's TLS key (PEM)")
	fl.StringVar(&f.conn.remote, "remote", "", "the repository URL workers clone and push to (required)")
	fl.DurationVar(&f.conn.ackWait, "ack-wait", dist.DefaultAckWait, "how long a worker may stay silent on a task before it goes to another worker")
	fl.BoolVar(&f.conn.merge, "merge", false, "merge the done branches into the current branch at the end, in dependency order")
	fl.IntVar(&f.conn.bestOf, "best-of", 1, "K workers attempt each task; the first to pass verification with the fewest changed lines wins")
	fl.IntVar(&f.maxIterations, "max-iterations", 0, "queue at most N tasks (default: no limit)")
	fl.StringVar(&f.verify, "verify", "", "verify command sent with each task (default: verify_command); a worker runs it only if it allows it")
	repeatedVar(fl, &f.tasks, "task", "run only this task (repeatable)")
	fl.BoolVar(&f.asJSON, "json", false, "print every event as a JSON line")
	return cmd
}

func (a *cliApp) runRalphServe(cmd *cobra.Command, f *ralphServeFlags) error {
	f.conn.workers = 1
	if err := f.conn.check(); err != nil {
		return err
	}
	if strings.TrimSpace(f.conn.remote) == "" {
		return usageErr("--remote is required: the git URL the workers clone and push their branches to")
	}
	rt, err := a.catalogOnly()
	if err != nil {
		return err
	}
	nc, shutdown, err := a.serveConn(rt.Config.Paths.StateDir, rt.Workspace, &f.conn)
	if err != nil {
		return err
	}
	defer shutdown()
	svc := ralph.NewService(ralph.Options{Workspace: rt.Workspace})
	o := ralph.RunOptions{MaxIterations: f.maxIterations, TaskIDs: f.tasks, Verify: rt.Config.VerifyCommand}
	if cmd.Flags().Changed("verify") {
		o.Verify = strings.TrimSpace(f.verify)
	}
	coord, err := dist.NewCoordinator(dist.CoordinatorOptions{Service: svc, Conn: nc, Run: o, AckWait: f.conn.ackWait,
		Remote: f.conn.remote, Merge: f.conn.merge, BestOf: f.conn.bestOf})
	if err != nil {
		return usageErr("%v", err)
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	stop := a.ralphSignals(svc, cancel)
	defer stop()
	sum, err := coord.Run(ctx, distEmit(a, newRalphPrinter(a.proc.Stdout, a.flags.quiet), f.asJSON))
	if err != nil {
		return err
	}
	return ralphExit(sum)
}

// serveConn connects `ralph serve` to --nats (or $NATS_URL), or, with
// neither, starts the embedded server (--nats-listen, --nats-token) and
// tells where workers find it.
func (a *cliApp) serveConn(state, ws string, f *distFlags) (*nats.Conn, func(), error) {
	if f.natsURL != "" || a.proc.Getenv("NATS_URL") != "" {
		nc, err := a.connect(f, "aidex-ralph-coordinator")
		if err != nil {
			return nil, nil, err
		}
		return nc, nc.Close, nil
	}
	emb, err := dist.StartEmbedded(dist.EmbeddedOptions{StoreDir: filepath.Join(state, "ralph-nats", dist.RepoHash(ws)),
		Listen: f.natsListen, Token: f.natsToken, TLSCert: f.tlsCert, TLSKey: f.tlsKey})
	if err != nil {
		return nil, nil, &ExitError{Code: ExitUsage, Err: err}
	}
	nc, err := emb.Connect("aidex-ralph-coordinator")
	if err != nil {
		emb.Shutdown()
		return nil, nil, err
	}
	how := "its token (--nats-token)"
	if f.natsToken == "" {
		how = "the token " + emb.Token()
	}
	fmt.Fprintf(a.proc.Stderr, "aidex: embedded NATS at %s; workers: aidex ralph worker --nats %s with %s\n", emb.URL(), emb.URL(), how)
	return nc, func() { nc.Close(); emb.Shutdown() }, nil
}

func newRalphStatusCmd(a *cliApp) *cobra.Command {
	var f distFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a distributed run: workers (id, host, task, last heartbeat), queue depth, counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			nc, err := a.connect(&f, "aidex-ralph-status")
			if err != nil {
				return err
			}
			defer nc.Close()
			st, err := dist.QueryStatus(cmd.Context(), nc, 3*time.Second)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), st)
			}
			printDistStatus(cmd.OutOrStdout(), st)
			return nil
		},
	}
	addConnFlags(cmd, &f)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// printDistStatus prints a status as lines: the run, one row per worker,
// the queue and the counts.
func printDistStatus(out io.Writer, st dist.Status) {
	out = termsafe.Writer(out)
	if st.Run == "" {
		fmt.Fprintln(out, "no coordinator answered (no run going); workers seen by their heartbeats:")
	} else {
		fmt.Fprintf(out, "run %s: %s\n", st.Run, st.State)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "WORKER\tHOST\tTASK\tLAST HEARTBEAT")
	for _, wk := range st.Workers {
		task := strings.Join(wk.Tasks, ",")
		if task == "" {
			task = "idle"
		}
		if wk.Paused {
			task += " (paused)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s ago\n", wk.ID, wk.Host, task, time.Since(wk.LastHeartbeat).Round(time.Second))
	}
	_ = w.Flush()
	if len(st.Workers) == 0 {
		fmt.Fprintln(out, "(no worker)")
	}
	fmt.Fprintf(out, "queue: %d task message(s) waiting or unacknowledged\n", st.QueueDepth)
	if st.Counts != nil {
		c := st.Counts
		fmt.Fprintf(out, "tasks: %d pending · %d in progress · %d done · %d failed · %d skipped\n",
			c[ralph.StatusPending], c[ralph.StatusInProgress], c[ralph.StatusDone], c[ralph.StatusFailed], c[ralph.StatusSkipped])
	}
}

// distEvent prints the events of a run with several workers.
func (p *ralphPrinter) distEvent(ev ralph.Event) {
	switch ev.Type {
	case ralph.EventQueued:
		if !p.quiet {
			fmt.Fprintf(p.out, "[%s] queued\n", ev.TaskID)
		}
	case ralph.EventRedelivered:
		fmt.Fprintf(p.out, "[%s] back on the queue (was on %s): %s\n", ev.TaskID, ralphFirst(ev.Worker, "a worker"), ralphLine(ev.Note, 200))
	case ralph.EventMerged:
		fmt.Fprintf(p.out, "[%s] merged %s\n", ev.TaskID, ev.Note)
	case ralph.EventMergeFailed:
		fmt.Fprintf(p.out, "[%s] MERGE STOPPED: %s\n", ev.TaskID, ralphLine(ev.Note, 400))
	}
}

// branches prints the done branches a run left (those not merged).
func (p *ralphPrinter) branches(s *ralph.Summary) {
	merged := map[string]bool{}
	for _, b := range s.Merged {
		merged[b] = true
	}
	var left []string
	for _, b := range s.Branches {
		if !merged[b] {
			left = append(left, b)
		}
	}
	if len(left) == 0 {
		return
	}
	fmt.Fprintf(p.out, "branches (dependency order; merge with git merge, or run with --merge):\n")
	for _, b := range left {
		fmt.Fprintf(p.out, "  %s\n", b)
	}
}
