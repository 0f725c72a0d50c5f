package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// Candidate is one answer of a parallel turn, offered to a [Chooser]:
// the model that wrote it ("PROVIDER/MODEL"), its text, and the names of
// the tool calls it asks for (they run only if it is kept).
type Candidate struct {
	Model     string   `json:"model"`
	Text      string   `json:"text"`
	ToolCalls []string `json:"tool_calls,omitempty"`
}

// Chooser picks the answers to keep of a parallel turn (the TUI's keys,
// the web UI's buttons). Choose blocks until the user chose or ctx ends;
// it returns indexes into answers (the successful ones, in list order):
// one answer, or several ("all"). An empty choice keeps the first.
// Errors: ctx's (the turn is then cancelled).
type Chooser interface {
	Choose(ctx context.Context, answers []Candidate) ([]int, error)
}

// sequentialNote is the user-role note before a later model's answer in
// sequential mode: the earlier answers are in the conversation as
// assistant messages labelled with their models, and this note (a user
// message, so every wire format sees alternating roles) asks the next
// model to review and improve them.
const sequentialNote = "[aidex, sequential mode] Above is what %s answered to the same request. " +
	"You are %s, the next model: review it and improve it — correct mistakes, fill gaps, use tools where needed — and give your complete answer."

// parallelNote goes between the answers of a parallel turn kept together
// ("all"), for the same reason.
const parallelNote = "[aidex, parallel mode] Above is the answer of %s; %s answered the same request next."

// multiRunner answers turns with several models' engines in a mode:
// the live session's multi-model turns, and Ralph's task runs.
type multiRunner struct {
	engs    []*agent.Engine
	cfg     Multi
	chooser Chooser // nil: keepAll decides
	keepAll bool
	rot     *rotor
}

// rotor is the round-robin position of the next turn (next < 0: from the
// conversation's last answer).
type rotor struct {
	mu   sync.Mutex
	next int
}

// Run answers input with the models in the runner's mode (see
// MultiMode), as agent.Engine.Run answers it with one model: the events
// of the models' runs go to emit as one run's (one session event; each
// model's events labelled with it; its failures as errors labelled with
// it, non-fatal while another model goes on; one done at the end).
// Errors: ctx's; when no model answered, the last model's failure.
func (m *multiRunner) Run(ctx context.Context, s *agent.Conversation, input []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error) {
	var emitMu sync.Mutex
	serial := func(ev agent.Event) {
		emitMu.Lock()
		defer emitMu.Unlock()
		emit(ev)
	}
	t := &multiTurn{m: m, sess: s, engs: m.engs, ids: m.cfg.IDs(), emit: serial}
	var d *agent.DoneInfo
	var err error
	switch m.cfg.Mode {
	case modeRoundRobin:
		d, err = t.roundRobin(ctx, input)
	case modeSequential:
		d, err = t.sequential(ctx, input)
	default:
		d, err = t.parallel(ctx, input)
	}
	return t.finish(d, err)
}

// MaxTurns returns the first model's cap of model responses per run (each
// model's run has the same).
func (m *multiRunner) MaxTurns() int { return m.engs[0].MaxTurns() }

// multiTurn is one user turn answered by several models.
type multiTurn struct {
	m     *multiRunner
	sess  *agent.Conversation
	engs  []*agent.Engine
	ids   []string
	emit  func(agent.Event)
	mu    sync.Mutex
	began bool // the session event was passed on
	sum   agent.DoneInfo
}

// runMulti answers input with the session's active models in the
// session's mode (see [multiRunner.Run]); base is the session's engine
// for this run. Errors: the engines' build, the run's.
func (ls *Session) runMulti(ctx context.Context, sess *agent.Conversation, base *agent.Engine, input []llm.Part, cfg Multi, emit func(agent.Event)) (*agent.DoneInfo, error) {
	d := ls.derivedOf()
	engs, err := modelEngines(ctx, base, cfg.Models, ls.modelRuntime, func(rt *Runtime, base *agent.Engine) (*agent.OpenModel, error) {
		return d.open(rt, base, ls.opts.Client, ls.svc.store)
	})
	if err != nil {
		return nil, err
	}
	ls.mu.Lock()
	keepAll := ls.opts.KeepAll || (ls.rt != nil && ls.rt.Config.MultiKeep == "all")
	ls.mu.Unlock()
	m := &multiRunner{engs: engs, cfg: cfg, chooser: ls.opts.Chooser, keepAll: keepAll, rot: &ls.multi.rot}
	return m.Run(ctx, sess, input, emit)
}

// sub returns the emit of model i's part of the turn: the first session
// event passes, later ones and every done are dropped (the turn has one
// of each), and so are the errors that ended a model's run (the turn
// reports them labelled with the model, saying what follows: failed, or
// finish when the turn ends with it); other errors get the model's label.
func (t *multiTurn) sub(i int) func(agent.Event) {
	return func(ev agent.Event) {
		switch ev.Type {
		case agent.EventSession:
			t.mu.Lock()
			first := !t.began
			t.began = true
			t.mu.Unlock()
			if !first {
				return
			}
		case agent.EventDone:
			return
		case agent.EventError:
			if ev.Error.Fatal {
				return // the turn reports it (failed, finish), saying what follows
			}
			ev.Model = t.ids[i]
		}
		t.emit(ev)
	}
}

// add counts a model run's results into the turn's.
func (t *multiTurn) add(d *agent.DoneInfo) {
	if d == nil {
		return
	}
	t.sum.Turns += d.Turns
	t.sum.Usage = t.sum.Usage.Add(d.Usage)
	t.sum.Denials += d.Denials
	t.sum.HookDenials += d.HookDenials
	t.sum.DeniedChanges += d.DeniedChanges
	t.sum.StopReason, t.sum.Result, t.sum.Raw, t.sum.FinishReason = d.StopReason, d.Result, d.Raw, d.FinishReason
}

// finish emits the turn's done (a fatal error first when it failed) and
// returns it.
func (t *multiTurn) finish(d *agent.DoneInfo, err error) (*agent.DoneInfo, error) {
	t.add(d)
	if !t.began {
		t.begin()
	}
	out := t.sum
	out.CostUSD = t.sess.CostUSD
	if err != nil {
		out.StopReason = agent.StopError
		ei := &agent.ErrorInfo{Message: err.Error(), Kind: "engine", Fatal: true}
		if errors.Is(err, context.Canceled) {
			out.StopReason, ei.Kind = agent.StopCancelled, "cancelled"
		}
		t.emit(agent.Event{Type: agent.EventError, SessionID: t.sess.ID, Error: ei})
	}
	t.emit(agent.Event{Type: agent.EventDone, SessionID: t.sess.ID, Done: &out})
	return &out, err
}

// failed reports model i's failure err as a labelled, non-fatal error
// event saying what happens next.
func (t *multiTurn) failed(i int, err error, next string) {
	msg := fmt.Sprintf("%s failed: %v", t.ids[i], err)
	if next != "" {
		msg += "; " + next
	}
	t.emit(agent.Event{Type: agent.EventError, SessionID: t.sess.ID, Model: t.ids[i],
		Error: &agent.ErrorInfo{Message: msg, Kind: string(llm.KindOf(err))}})
}

// roundRobin answers with the next model in the list; a model that fails
// before the conversation holds any of its answer hands the turn on to
// the next one, until every model was tried.
func (t *multiTurn) roundRobin(ctx context.Context, input []llm.Part) (*agent.DoneInfo, error) {
	n := len(t.engs)
	start := t.m.rot.position(t.sess, t.ids)
	var last error
	for k := range n {
		i := (start + k) % n
		var d *agent.DoneInfo
		var err error
		if k == 0 {
			d, err = t.engs[i].Run(ctx, t.sess, input, t.sub(i))
		} else {
			d, err = t.engs[i].Continue(ctx, t.sess, t.sub(i))
		}
		if err == nil || ctx.Err() != nil || !handOver(t.sess) {
			t.m.rot.set(i + 1)
			return d, err
		}
		t.add(d)
		last = err
		next := ""
		if k < n-1 {
			next = "the turn goes to " + t.ids[(i+1)%n]
		}
		t.failed(i, err, next)
	}
	t.m.rot.set(start + 1)
	return nil, fmt.Errorf("every active model failed; the last: %w", last)
}

// handOver reports whether another model may take the turn on: the
// conversation ends with the user's message or tool results, not with
// (part of) an answer.
func handOver(s *agent.Conversation) bool {
	n := len(s.Messages)
	return n > 0 && s.Messages[n-1].Role != llm.RoleAssistant
}

// sequential lets every model answer in list order; each later model
// sees the earlier answers (they are in the conversation) and a note
// asking it to review and improve them.
func (t *multiTurn) sequential(ctx context.Context, input []llm.Part) (*agent.DoneInfo, error) {
	var answered []string
	var last error
	var final *agent.DoneInfo
	for i, eng := range t.engs {
		var d *agent.DoneInfo
		var err error
		switch {
		case i == 0:
			d, err = eng.Run(ctx, t.sess, input, t.sub(i))
		case len(answered) > 0 || !handOver(t.sess):
			note := llm.UserText(reviewNote(answered, t.ids[i]))
			if err = eng.Record(ctx, t.sess, note, nil, t.sub(i)); err == nil {
				d, err = eng.Continue(ctx, t.sess, t.sub(i))
			}
		default:
			d, err = eng.Continue(ctx, t.sess, t.sub(i))
		}
		if ctx.Err() != nil {
			t.add(final)
			return d, ctx.Err()
		}
		if err != nil {
			t.add(d)
			last = err
			t.failed(i, err, "the next model goes on")
			continue
		}
		answered = append(answered, t.ids[i])
		t.add(final)
		final = d
	}
	if final == nil {
		return nil, fmt.Errorf("every active model failed; the last: %w", last)
	}
	return final, nil
}

// reviewNote is the sequential note for model next after the answers of
// the models answered (none: a failed model's partial answer).
func reviewNote(answered []string, next string) string {
	prev := "an earlier model (cut short)"
	if len(answered) == 1 {
		prev = answered[0]
	} else if len(answered) > 1 {
		prev = strings.Join(answered, ", ") + ", in that order,"
	}
	return fmt.Sprintf(sequentialNote, prev, next)
}

// position returns the round-robin position of this turn: the one set
// by the last turn, or after the model that wrote the conversation's last
// answer (a resumed session), or the first.
func (r *rotor) position(s *agent.Conversation, ids []string) int {
	r.mu.Lock()
	next := r.next
	r.mu.Unlock()
	if next >= 0 {
		return next % len(ids)
	}
	for i := len(s.Messages) - 1; i >= 0; i-- {
		if m := s.Messages[i]; m.Role == llm.RoleAssistant && m.Model != "" {
			for j, id := range ids {
				if id == m.Model {
					return (j + 1) % len(ids)
				}
			}
			break
		}
	}
	return 0
}

func (r *rotor) set(next int) {
	r.mu.Lock()
	r.next = next
	r.mu.Unlock()
}
