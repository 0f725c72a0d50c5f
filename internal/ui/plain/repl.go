package plain

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/ui/commands"
	"github.com/zelvior/aidex/internal/ui/notify"
)

// REPL is the line mode's read-eval-print loop. Lines are read from In by
// one goroutine, so approvals and prompts share the same input.
type REPL struct {
	Printer *Printer
	Prompt  string
	// Workspace is used to preview file changes in approvals when the
	// engine sends no diff ("" for none).
	Workspace string
	// Terminal reports whether the output is a terminal: with notify =
	// "auto" only a terminal is rung (see package notify). New sets it.
	Terminal bool
	// NotifyAfter is the shortest run whose end rings the terminal (0:
	// notify.DefaultAfter).
	NotifyAfter time.Duration

	// TypeAhead queues lines typed while a run goes on (see typeahead.go);
	// New sets it when the input is a terminal.
	TypeAhead bool

	ctrl *commands.Controller // the session Run drives

	edit  *lineEditor // the idle prompt's editor; nil unless on a terminal
	in    *bufio.Reader
	lines chan lineOrErr
	once  sync.Once
	// stop is closed when Run returns: the reader then drops the lines
	// still unread (input after /exit) instead of waiting to hand them on.
	stop     chan struct{}
	stopOnce sync.Once

	// Type-ahead: routing is true while a run's await owns the input;
	// approvals then ask it for a line on asks. queued and inputDone are
	// used by Run's goroutine only.
	routing   atomic.Bool
	asks      chan chan lineOrErr
	queued    []string
	inputDone bool
}

type lineOrErr struct {
	line string
	err  error
}

// New returns a REPL reading from in and printing to out.
func New(in io.Reader, out io.Writer, color bool) *REPL {
	p := &Printer{Out: out, Color: color, Markdown: true}
	p.md.Attrs = color
	if f, ok := out.(*os.File); ok && isTerminal(out) {
		p.Width = func() int {
			w, _, err := term.GetSize(f.Fd())
			if err != nil {
				return 0
			}
			return w
		}
	}
	r := &REPL{Printer: p, Prompt: "> ", in: bufio.NewReader(in), Terminal: isTerminal(out),
		TypeAhead: isTerminalReader(in), asks: make(chan chan lineOrErr), stop: make(chan struct{})}
	if r.edit = newLineEditor(in, out); r.edit != nil {
		r.in = bufio.NewReader(r.edit)
	}
	return r
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ring writes the notification n chooses (seq) to the output, when the
// notify setting asks for one here: with "auto", only on a terminal.
func (r *REPL) ring(seq func(notify.Notifier) string) {
	if r.ctrl == nil {
		return
	}
	rt := r.ctrl.Runtime()
	n := notify.Notifier{Mode: rt.Config.Notify, Getenv: rt.Getenv, After: r.NotifyAfter}
	if (n.Mode == notify.ModeAuto || n.Mode == "") && !r.Terminal {
		return
	}
	if s := seq(n); s != "" {
		r.Printer.mu.Lock()
		defer r.Printer.mu.Unlock()
		fmt.Fprint(r.Printer.Out, s)
	}
}

// Approver returns the approver that asks on this REPL's input.
func (r *REPL) Approver() agent.Approver { return &replApprover{r: r} }

// replApprover reads approval answers from the REPL's line channel.
type replApprover struct{ r *REPL }

func (a *replApprover) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	a.r.ring(func(n notify.Notifier) string { return n.Approval(req.Tool) })
	ap := &Approver{ReadLine: a.r.readLine, Printer: a.r.Printer}
	return ap.Approve(ctx, req)
}

// readLine returns the next input line, io.EOF at the end of input, or
// ctx's error.
func (r *REPL) readLine(ctx context.Context) (string, error) {
	if l, ok := r.askLine(ctx); ok {
		return l.line, l.err
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-r.readLines():
		if !ok {
			return "", io.EOF
		}
		return l.line, l.err
	}
}

// readLines starts the reader on the first call and returns its lines.
// The end of input closes the channel (without a last item, so the reader
// never waits for someone to take it); another read error is delivered
// as an item first.
func (r *REPL) readLines() <-chan lineOrErr {
	if r.edit != nil {
		return r.edit.startLines(r.in)
	}
	r.once.Do(func() {
		r.lines = make(chan lineOrErr)
		go func() {
			defer close(r.lines)
			for {
				line, err := r.in.ReadString('\n')
				if line != "" || err == nil {
					if !r.hand(lineOrErr{line: line}) {
						return
					}
				}
				if err != nil {
					if !errors.Is(err, io.EOF) {
						r.hand(lineOrErr{err: err})
					}
					return
				}
			}
		}()
	})
	return r.lines
}

// hand gives l to the reader of lines; false when Run has returned.
func (r *REPL) hand(l lineOrErr) bool {
	select {
	case r.lines <- l:
		return true
	case <-r.stop:
		return false
	}
}

// Run reads prompts and commands until /exit, end of input, or Ctrl+C
// twice at the prompt, and drives ctrl with them: "/..." runs a command of
// table, "!cmd" runs a shell command (the user's own action, no
// permission check) whose output goes to the model with the next prompt,
// anything else is a prompt (@path attaches a file). Ctrl+C during a run
// stops the model and keeps the partial answer.
func (r *REPL) Run(ctx context.Context, ctrl *commands.Controller, table commands.Table) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	defer r.stopOnce.Do(func() { close(r.stop) })
	interrupted := false
	r.Workspace, r.ctrl = ctrl.Runtime().Workspace, ctrl
	for {
		if line, ok := r.nextQueued(); ok {
			if r.dispatch(ctx, ctrl, table, line, sigs) {
				return nil
			}
			continue
		}
		line, next := r.promptLine(ctx, table, sigs, &interrupted)
		switch next {
		case promptQuit:
			return nil
		case promptAgain:
			continue
		}
		interrupted = false
		if r.dispatch(ctx, ctrl, table, line, sigs) {
			return nil
		}
	}
}

// promptNext says what Run does after the prompt: run the line, prompt
// again, or quit.
type promptNext int

const (
	promptLine promptNext = iota
	promptAgain
	promptQuit
)

// promptLine shows the prompt and reads the next line (trimmed). Ctrl+C
// there asks for a second press to quit (interrupted records the first);
// the end of input quits.
func (r *REPL) promptLine(ctx context.Context, table commands.Table, sigs <-chan os.Signal, interrupted *bool) (string, promptNext) {
	out := r.Printer.Out
	ctrlC := func() promptNext {
		fmt.Fprintln(out)
		if *interrupted {
			return promptQuit
		}
		*interrupted = true
		fmt.Fprintln(out, "(Ctrl+C again or /exit to quit)")
		return promptAgain
	}
	if r.edit == nil {
		fmt.Fprint(out, r.Prompt)
		select {
		case <-ctx.Done():
			return "", promptQuit
		case <-sigs:
			return "", ctrlC()
		case l, ok := <-r.readLines():
			if !ok || l.err != nil {
				fmt.Fprintln(out)
				return "", promptQuit
			}
			return strings.TrimSpace(l.line), promptLine
		}
	}
	r.edit.stopLines()
	if l, ok := r.edit.takeHeld(); ok {
		// typed while the last command ran, read by the line reader
		if l.err != nil {
			return "", promptQuit
		}
		line := strings.TrimSpace(l.line)
		fmt.Fprintln(out, r.Prompt+line)
		return line, promptLine
	}
	if r.inputDone {
		return "", promptQuit
	}
	select {
	case <-sigs: // pressed while the terminal was in cooked mode
		return "", ctrlC()
	default:
	}
	line, err := r.edit.readPrompt(ctx, r.in, r.Prompt, table)
	switch {
	case errors.Is(err, errCtrlC):
		return "", ctrlC()
	case err != nil:
		if ctx.Err() == nil {
			fmt.Fprintln(out)
		}
		return "", promptQuit
	}
	return strings.TrimSpace(line), promptLine
}

// dispatch runs one input line: the controller reads it
// (commands.Controller.Read: chat alias, kind, attachments), then it runs
// as a command, a !command or a prompt. It reports whether the line quits.
func (r *REPL) dispatch(ctx context.Context, ctrl *commands.Controller, table commands.Table, line string, sigs <-chan os.Signal) bool {
	out := r.Printer.Out
	t := ctrl.Read(ctx, line)
	if t.Alias != "" {
		fmt.Fprintln(out, r.Printer.paint(dim, "("+t.Alias+")"))
	}
	switch t.Kind {
	case commands.TypedSlash:
		quit, err := r.command(ctx, ctrl, table, t.Line, sigs)
		if err != nil {
			fmt.Fprintf(out, "%s %v\n", r.Printer.paint(red, "error:"), err)
		}
		return quit
	case commands.TypedShell:
		r.shell(ctx, ctrl, t.Line, sigs)
	case commands.TypedPrompt:
		if len(t.Prompt.Attached) > 0 {
			fmt.Fprintf(out, "attached: %s\n", strings.Join(t.Prompt.Attached, ", "))
		}
		for _, n := range t.Prompt.Notes {
			fmt.Fprintf(out, "note: %s\n", n)
		}
		r.runOnce(ctx, ctrl, t.Prompt, sigs)
	}
	return false
}

// terminalOnly says what to do in the line mode instead of an outcome
// only the terminal UI carries out (an editor).
func terminalOnly(commands.Action) string {
	return "/edit needs the terminal UI; in the line mode type or paste the prompt, or use /load FILE"
}

// command runs a slash command and what its outcome asks for.
func (r *REPL) command(ctx context.Context, ctrl *commands.Controller, table commands.Table, line string, sigs <-chan os.Signal) (bool, error) {
	out := r.Printer.Out
	ww := &wrapWriter{out: out, width: r.Printer.width()}
	o, err := table.Exec(ctx, ctrl, line, ww)
	if ferr := ww.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return false, err
	}
	switch {
	case o.Quit:
		return true, nil
	case o.Prompt != "":
		r.runPrompt(ctx, ctrl, o.PromptOf(ctx, ctrl), o.Tools, o.After, sigs)
		return false, nil
	}
	switch o.Action {
	case commands.ActPickModel:
		fmt.Fprintf(out, "current: %s/%s\n", ctrl.Runtime().Provider.Name, ctrl.Runtime().Model)
		if _, err := table.Exec(ctx, ctrl, "/models", out); err != nil {
			return false, err
		}
		fmt.Fprintln(out, "switch with /model NAME (or /model PROVIDER/NAME)")
	case commands.ActPickProvider:
		r.listProviders(ctrl.Runtime())
		fmt.Fprintln(out, "switch with /provider NAME")
	case commands.ActPickMode:
		listModes(out, ctrl.Mode())
	case commands.ActAskKey:
		return false, r.askKey(ctx, ctrl, o.Arg)
	case commands.ActAskImageKey:
		return false, r.askImageKey(ctx, ctrl, o.Arg, out)
	case commands.ActAskServer:
		return false, r.askServer(ctx, ctrl)
	case commands.ActEdit:
		fmt.Fprintln(out, terminalOnly(o.Action))
	case commands.ActCopy:
		r.copyAnswer(ctrl.LastAnswer())
	case commands.ActVerbose:
		r.Printer.Verbose = !r.Printer.Verbose
		fmt.Fprintf(out, "verbose: %v\n", r.Printer.Verbose)
	case commands.ActClearScreen:
		if r.Printer.Color {
			fmt.Fprint(out, "\x1b[H\x1b[2J")
		}
	case commands.ActPlan:
		return false, r.plan(ctx, ctrl, o.Arg, sigs)
	case commands.ActEditTask:
		t, err := ctrl.Ralph().Get(o.Arg)
		if err != nil {
			return false, err
		}
		fmt.Fprint(out, commands.TaskEditHelp(t))
	case commands.ActRalphRun:
		return false, r.ralphRun(ctx, ctrl, sigs)
	case commands.ActRewound:
		fmt.Fprintln(out, r.Printer.paint(cyan, commands.RewindMarker(o.Arg)))
	}
	return false, nil
}

// listModes prints the permission modes, current one marked, and how to
// switch (/mode without an argument).
func listModes(out io.Writer, current string) {
	fmt.Fprintf(out, "permission mode: %s\n", current)
	for _, c := range commands.ModeChoices() {
		mark := " "
		if c.Name == current {
			mark = "*"
		}
		fmt.Fprintf(out, "%s %-9s  %s\n", mark, c.Name, c.Help)
	}
	fmt.Fprintln(out, "switch with /mode NAME")
}

// copyAnswer copies ans to the terminal's clipboard (OSC 52).
func (r *REPL) copyAnswer(ans string) {
	out := r.Printer.Out
	if !r.Printer.Color {
		fmt.Fprintln(out, "/copy needs a terminal (OSC 52)")
		return
	}
	fmt.Fprintf(out, "\x1b]52;c;%s\x07copied %d characters\n", base64.StdEncoding.EncodeToString([]byte(ans)), len(ans))
}

// storeKey stores key as provider's API key (commands.StoreKey) and
// prints the warning of a file that could not be made private.
func (r *REPL) storeKey(rt *app.Runtime, provider, key string) error {
	warning, err := commands.KeyWarning(commands.StoreKey(rt, provider, key))
	if warning != "" {
		fmt.Fprintf(r.Printer.Out, "warning: %s\n", warning)
	}
	return err
}

// askServer is /provider → custom in the line mode, as in the terminal
// UI: it asks for the server's base URL, lists the server's models to
// pick one (by number or id; Enter takes the first), saves the server as
// [providers.NAME] in the config file and switches to it. Errors: a URL
// the server does not answer at, the config file's, the switch's.
func (r *REPL) askServer(ctx context.Context, ctrl *commands.Controller) error {
	out := r.Printer.Out
	url, err := r.ask(ctx, "Base URL of your OpenAI-compatible server (e.g. http://127.0.0.1:8080/v1): ")
	if err != nil {
		return err
	}
	name, _, models, err := commands.ServerModels(ctx, ctrl.Runtime(), url)
	if err != nil {
		return err
	}
	model := ""
	if len(models) > 0 {
		for i, m := range models {
			fmt.Fprintf(out, "%3d  %s\n", i+1, m)
		}
		answer, err := r.ask(ctx, fmt.Sprintf("Model (number or id; Enter: %s): ", models[0]))
		if err != nil {
			return err
		}
		if model, err = pickListed(models, answer); err != nil {
			return err
		}
	}
	if name, err = commands.AddServer(ctrl.Runtime(), url, model); err != nil {
		return err
	}
	if err := ctrl.UseServer(ctx, name, model); err != nil {
		return err
	}
	fmt.Fprintf(out, "provider: %s · model %s (saved in %s)\n", name, ctrl.Runtime().Model, ctrl.Runtime().Config.Paths.ConfigFile)
	return nil
}

// pickListed returns the entry of list answer names: its number (from
// 1), the entry itself, or the first for an empty answer. Errors: an
// answer that names none (listing how to answer).
func pickListed(list []string, answer string) (string, error) {
	answer = strings.TrimSpace(answer)
	if answer == "" {
		return list[0], nil
	}
	if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(list) {
		return list[n-1], nil
	}
	if slices.Contains(list, answer) {
		return answer, nil
	}
	return "", fmt.Errorf("%q is not a listed model: answer with its number (1–%d) or its id", answer, len(list))
}

func (r *REPL) askKey(ctx context.Context, ctrl *commands.Controller, provider string) error {
	where := ""
	if p, ok := ctrl.Runtime().Catalog.Provider(provider); ok && p.SignupURL != "" {
		where = "get one at " + p.SignupURL + "; "
	}
	key, err := r.ask(ctx, fmt.Sprintf("API key for %s (%sstored in %s): ", provider, where, ctrl.Runtime().Config.Paths.ConfigFile))
	if err != nil {
		return err
	}
	if err := r.storeKey(ctrl.Runtime(), provider, key); err != nil {
		return err
	}
	if err := ctrl.SwitchProvider(ctx, provider, ""); err != nil {
		return err
	}
	fmt.Fprintf(r.Printer.Out, "provider: %s · model %s\n", ctrl.Runtime().Provider.Name, ctrl.Runtime().Model)
	return nil
}

// ask prints question and reads one line (trimmed); end of input is an
// error.
func (r *REPL) ask(ctx context.Context, question string) (string, error) {
	fmt.Fprint(r.Printer.Out, question)
	line, err := r.readLine(ctx)
	if err != nil && strings.TrimSpace(line) == "" {
		return "", fmt.Errorf("no answer: %w", err)
	}
	return strings.TrimSpace(line), nil
}

func (r *REPL) listProviders(rt *app.Runtime) []string {
	var names []string
	for _, g := range rt.Catalog.Groups() {
		fmt.Fprintf(r.Printer.Out, "%s:\n", g.Group)
		for _, p := range g.Providers {
			names = append(names, p.Name)
			key := ""
			if p.RequiresKey && p.APIKey(rt.Getenv) == "" {
				key = " (needs a key"
				if p.SignupURL != "" {
					key += ": " + p.SignupURL
				}
				key += ")"
			}
			fmt.Fprintf(r.Printer.Out, "  %2d. %-14s %s%s\n", len(names), p.Name, p.Notes, key)
		}
	}
	return names
}

// Onboard asks a first-time user to pick a provider (key-free ones first)
// and, when it needs one, an API key, which is stored in the global config
// file with the provider as the default. It returns the provider's name.
func (r *REPL) Onboard(ctx context.Context, rt *app.Runtime) (string, error) {
	fmt.Fprintln(r.Printer.Out, "Welcome to aidex. No model provider is set up yet; pick one:")
	names := r.listProviders(rt)
	for {
		ans, err := r.ask(ctx, "Provider (number or name): ")
		if err != nil {
			return "", err
		}
		name := ans
		if n, err := strconv.Atoi(ans); err == nil && n >= 1 && n <= len(names) {
			name = names[n-1]
		}
		if _, ok := rt.Catalog.Provider(name); !ok {
			fmt.Fprintf(r.Printer.Out, "unknown provider %q\n", ans)
			continue
		}
		if commands.NeedsKey(rt, name) {
			p, _ := rt.Catalog.Provider(name)
			key, err := r.ask(ctx, fmt.Sprintf("API key for %s (get one at %s): ", name, p.SignupURL))
			if err != nil {
				return "", err
			}
			if err := r.storeKey(rt, name, key); err != nil {
				return "", err
			}
		}
		if err := config.Set(rt.Config.Paths.ConfigFile, "provider", name); err != nil {
			return "", err
		}
		fmt.Fprintf(r.Printer.Out, "saved provider = %s in %s\n", name, rt.Config.Paths.ConfigFile)
		return name, nil
	}
}

// shell runs the user's own !command; Ctrl+C stops it.
func (r *REPL) shell(ctx context.Context, ctrl *commands.Controller, command string, sigs <-chan os.Signal) {
	out := r.Printer.Out
	if command == "" {
		fmt.Fprintln(out, "!COMMAND runs a shell command, e.g. !git status")
		return
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	res := commands.RunShell(sctx, ctrl.Runtime(), command)
	close(done)
	if res.Output != "" {
		fmt.Fprintln(out, res.Output)
	}
	mark := r.Printer.paint(green, "✓")
	if res.ExitCode != 0 || res.Err != nil {
		mark = r.Printer.paint(red, "✗")
	}
	status := fmt.Sprintf("exit %d", res.ExitCode)
	if res.Err != nil {
		status = res.Err.Error()
	}
	r.Printer.Line(fmt.Sprintf("%s %s · you ran this yourself (no permission check); the output goes to the model with your next message", mark, status))
	ctrl.AddContext(res.ContextText())
}

// runOnce runs one prompt; Ctrl+C cancels it and the partial answer stays.
func (r *REPL) runOnce(ctx context.Context, ctrl *commands.Controller, p commands.Prompt, sigs <-chan os.Signal) {
	r.runPrompt(ctx, ctrl, p, nil, nil, sigs)
}

// runPrompt runs one prompt with extra tools for the run; after (when not
// nil) reports how the run ended (/implement records its task there).
func (r *REPL) runPrompt(ctx context.Context, ctrl *commands.Controller, p commands.Prompt, extra []agent.EngineTool,
	after func(context.Context, *agent.DoneInfo, error) string, sigs <-chan os.Signal) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	var d *agent.DoneInfo
	var err error
	started := time.Now()
	r.routing.Store(r.TypeAhead && !r.inputDone)
	mc := ctrl.Multi()
	r.Printer.SetMulti(mc.Active(), mc.Mode == multi.Parallel)
	go func() {
		defer close(done)
		d, err = ctrl.RunWith(rctx, p.Parts, extra, r.Printer.Event)
	}()
	r.await(done, cancel, sigs)
	if rctx.Err() == nil && len(r.queued) == 0 {
		r.ring(func(n notify.Notifier) string { return n.TurnEnded(time.Since(started)) })
	}
	if after != nil {
		defer func() { fmt.Fprintln(r.Printer.Out, after(rctx, d, err)) }()
	}
	switch {
	case rctx.Err() != nil && ctx.Err() == nil:
		fmt.Fprintln(r.Printer.Out, "(stopped; the partial answer is kept)")
	case err != nil && d == nil && !errors.Is(err, context.Canceled):
		fmt.Fprintf(r.Printer.Out, "%s %v\n", r.Printer.paint(red, "error:"), err)
	}
}
