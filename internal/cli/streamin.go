package cli

import (
	"context"
	"errors"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
	"github.com/zelvior/aidex/internal/streamjson"
)

// inputStreamJSON is --input-format stream-json.
const inputStreamJSON = "stream-json"

// maxInputLine is the longest stdin line the stream-json input reads (an
// image block in base64 can be large).
const maxInputLine = 64 << 20

// checkInputFormat validates --input-format and the flags it rules out.
func checkInputFormat(f *runFlags) error {
	switch {
	case f.inputFormat == "text" || f.inputFormat == "": // "": commands that build their own runFlags
		return nil
	case f.inputFormat != inputStreamJSON:
		return usageErr("--input-format must be text or stream-json, not %q", f.inputFormat)
	case outputFormat(f.outputFormat) != formatStreamJSON:
		return usageErr("--input-format stream-json needs --output-format stream-json (the asks it answers are events)")
	case f.prompt != "" || f.file != "":
		return usageErr("--input-format stream-json reads the prompts from stdin as {\"type\":\"user\",...} lines; drop -p/-f")
	case f.answers != "":
		return usageErr("--input-format stream-json answers ask_user with {\"type\":\"interaction\",...} lines; drop --answers")
	case f.raw:
		return usageErr("--raw prints one run's raw response; it cannot be combined with --input-format stream-json")
	}
	return nil
}

// streamInputCmd starts the stream-json mode from a command; a positional
// prompt is refused (the prompts come from stdin).
func (a *cliApp) streamInputCmd(ctx context.Context, positional string, f *runFlags) error {
	if positional != "" {
		return usageErr("--input-format stream-json reads the prompts from stdin as {\"type\":\"user\",...} lines; drop the prompt argument")
	}
	ctx, stop := withSignals(ctx)
	defer stop()
	return a.runStreamInput(ctx, f)
}

// runStreamInput is the bidirectional stream-json mode: user turns,
// approval and interaction answers and interrupts come from stdin, one
// JSON object a line; every event goes to stdout as in --output-format
// stream-json. Turns run one after the other in one session; the exit
// code is that of the last turn.
func (a *cliApp) runStreamInput(ctx context.Context, f *runFlags) error {
	svc, err := a.startRun(ctx, false)
	if err != nil {
		return err
	}
	defer svc.Close()
	sess, err := svc.Pick(ctx, f.resume, f.cont)
	if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
		return &ExitError{Code: ExitUsage, Err: err}
	} else if err != nil {
		return err
	}
	if err := a.resumeModel(ctx, svc, f, sess); err != nil {
		return err
	}
	var out streamOut = newStreamJSON(a.proc.Stdout)
	claude := f.claude()
	if claude {
		out = newClaudeOut(a.proc.Stdout, a.proc.Stderr, false)
	}
	ctl := newStreamControl(out)
	so := app.SessionOptions{Approver: ctl, Asker: ctl, MaxTurns: f.maxTurns, AppendSystem: f.appendSystem, AgentWrites: f.agentWrites,
		Client: app.ClientOptions{HTTP: a.verboseClientFor(out), OnRetry: a.onRetryFor(out)},
		Verify: f.requireVerified || svc.Runtime().Config.Harness.Verify, Headless: true}
	if claude {
		// Claude's dialect has no approval or question lines: as claude
		// -p, what needs approval is denied (and listed in the result's
		// permission_denials) and no one answers ask_user.
		so.Approver, so.Asker = nil, nil
	}
	live, err := a.session(ctx, svc, sess, so, out)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer live.Close()
	if c, ok := out.(*claudeOut); ok {
		c.start(live, svc.Runtime())
	}
	go ctl.read(ctx, a.proc.Stdin)
	var last error
	for {
		u, ok := ctl.next(ctx)
		if !ok {
			return last
		}
		last = a.streamTurn(ctx, f, live, ctl, u)
		if ctx.Err() != nil {
			return last
		}
	}
}

// streamTurn runs one user turn; an interrupt line cancels it. A bad
// message or a refused custom command is an error event, not the end.
func (a *cliApp) streamTurn(ctx context.Context, f *runFlags, live *app.Session, ctl *streamControl, u *streamjson.UserInput) error {
	parts, err := u.Parts()
	if err == nil && len(parts) == 1 && parts[0].Type == llm.PartText {
		parts[0].Text, err = a.expandCommand(ctx, live, parts[0].Text)
	}
	if err != nil {
		ctl.inputError(err)
		_ = ctl.out.finish(nil, err)
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	ctl.setCancel(cancel)
	defer ctl.setCancel(nil)
	done, runErr := live.Run(runCtx, parts, ctl.event)
	_ = ctl.out.finish(done, runErr)
	return requireVerified(f, done, exitFor(done, runErr))
}

// streamControl is the stream-json mode's Approver and Asker: an ask is
// an event (registered as pending before it is printed, so an answer can
// never come too early) that waits for the answer line with its id.
type streamControl struct {
	out streamOut

	mu        sync.Mutex
	approvals map[string]chan approvalReply
	asks      map[string]pendingAsk
	// answered holds the ids of asks whose answer line came: the answer
	// waits in the ask's channel until the engine's Approve or Ask takes
	// it (the event is printed before they are called, so a quick
	// program can answer first), and a second answer is refused.
	answered map[string]bool
	queue    []*streamjson.UserInput
	ready    chan struct{}
	eof      bool
	cancel   context.CancelFunc
}

type approvalReply struct {
	answer agent.Answer
	reason string
}

type pendingAsk struct {
	info  agent.InteractionInfo
	reply chan agent.InteractionAnswer
}

// streamOut is the output of the stream-json mode: aidex's events
// (streamJSON) or Claude Code's lines (claudeOut). finish ends a turn
// (aidex's dialect: nothing, its done event did), inputError reports a
// stdin line that was skipped.
type streamOut interface {
	renderer
	inputError(err error)
}

func newStreamControl(out streamOut) *streamControl {
	return &streamControl{out: out, approvals: map[string]chan approvalReply{}, asks: map[string]pendingAsk{},
		answered: map[string]bool{}, ready: make(chan struct{}, 1)}
}

// event registers the asks of e as pending, then prints it.
func (s *streamControl) event(e agent.Event) {
	s.mu.Lock()
	switch {
	case e.Type == agent.EventApproval && e.Approval != nil && e.Approval.Answer == "":
		if _, ok := s.approvals[e.Approval.ID]; !ok {
			s.approvals[e.Approval.ID] = make(chan approvalReply, 1)
		}
	case e.Type == agent.EventInteraction && e.Interaction != nil && e.Interaction.Answer == nil:
		if _, ok := s.asks[e.Interaction.ID]; !ok {
			s.asks[e.Interaction.ID] = pendingAsk{info: *e.Interaction, reply: make(chan agent.InteractionAnswer, 1)}
		}
	}
	s.mu.Unlock()
	s.out.event(e)
}

// inputError tells the program about a line it sent that aidex skipped.
func (s *streamControl) inputError(err error) { s.out.inputError(err) }

// Approve implements agent.Approver: it waits for the approval line with
// req.ID. Once stdin is closed, no one can answer: deny.
func (s *streamControl) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	s.mu.Lock()
	ch, ok := s.approvals[req.ID]
	if !ok {
		ch = make(chan approvalReply, 1)
		s.approvals[req.ID] = ch
	}
	eof := s.eof && !s.answered[req.ID]
	s.mu.Unlock()
	defer s.forget(req.ID)
	if eof {
		return agent.AnswerDeny, stdinClosed, nil
	}
	select {
	case r := <-ch:
		return r.answer, r.reason, nil
	case <-ctx.Done():
		return "", "", ctx.Err()
	}
}

// stdinClosed is the reason given for asks no one can answer any more.
const stdinClosed = "stdin is closed: no one can answer"

// Ask implements agent.Asker: it waits for the interaction line with
// info.ID that agent.CheckAnswer accepts. Once stdin is closed: declined.
func (s *streamControl) Ask(ctx context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	s.mu.Lock()
	p, ok := s.asks[info.ID]
	if !ok {
		p = pendingAsk{info: info, reply: make(chan agent.InteractionAnswer, 1)}
		s.asks[info.ID] = p
	}
	eof := s.eof && !s.answered[info.ID]
	s.mu.Unlock()
	defer s.forget(info.ID)
	if eof {
		return agent.InteractionAnswer{ID: info.ID, Declined: true, Reason: stdinClosed}, nil
	}
	select {
	case ans := <-p.reply:
		return ans, nil
	case <-ctx.Done():
		return agent.InteractionAnswer{}, ctx.Err()
	}
}

func (s *streamControl) forget(id string) {
	s.mu.Lock()
	delete(s.approvals, id)
	delete(s.asks, id)
	delete(s.answered, id)
	s.mu.Unlock()
}

func (s *streamControl) setCancel(c context.CancelFunc) {
	s.mu.Lock()
	s.cancel = c
	s.mu.Unlock()
}
