package turn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/llm"
)

// The conversation modes a [Models] turn runs in (the names of
// internal/app/multi's modes; a test in app checks they agree).
const (
	// RoundRobin: each user turn is answered by the next model; a model
	// that fails hands the turn to the next one.
	RoundRobin = "round-robin"
	// Sequential: every model answers in list order, each seeing the
	// earlier answers of the turn and asked to review and improve them.
	Sequential = "sequential"
	// Parallel: every model answers the same context at once; the answers
	// to keep are chosen, and only a kept answer's tool calls run.
	Parallel = "parallel"
)

// NewRotor returns a round-robin position that starts after the model
// that wrote the conversation's last answer.
func NewRotor() *Rotor { return &Rotor{next: -1} }

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

// Models answers turns with several models' engines in a mode: the
// live session's multi-model turns, and Ralph's task runs. Engines[i]
// runs the model IDs[i] ("PROVIDER/MODEL"); Mode is RoundRobin,
// Sequential or Parallel (anything else: Parallel). Chooser picks the
// answers to keep of a parallel turn (nil: KeepAll decides); Rot is the
// round-robin position, kept across turns (nil: a fresh one).
type Models struct {
	Engines []*agent.Engine
	IDs     []string
	Mode    string
	Chooser multi.Chooser
	KeepAll bool
	Rot     *Rotor
}

// Rotor is the round-robin position of the next turn (NewRotor: from
// the conversation's last answer). It is safe for concurrent use.
type Rotor struct {
	mu   sync.Mutex
	next int
}

// Run answers input with the models in the runner's mode (see
// Models), as agent.Engine.Run answers it with one model: the events
// of the models' runs go to emit as one run's (one session event; each
// model's events labelled with it; its failures as errors labelled with
// it, non-fatal while another model goes on; one done at the end).
// Errors: ctx's; when no model answered, the last model's failure.
func (m *Models) Run(ctx context.Context, s *agent.Conversation, input []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error) {
	var emitMu sync.Mutex
	serial := func(ev agent.Event) {
		emitMu.Lock()
		defer emitMu.Unlock()
		emit(ev)
	}
	if m.Rot == nil {
		m.Rot = NewRotor()
	}
	t := &multiTurn{m: m, sess: s, engs: m.Engines, ids: m.IDs, emit: serial}
	var d *agent.DoneInfo
	var err error
	switch m.Mode {
	case RoundRobin:
		d, err = t.roundRobin(ctx, input)
	case Sequential:
		d, err = t.sequential(ctx, input)
	default:
		d, err = t.parallel(ctx, input)
	}
	return t.finish(d, err)
}

// MaxTurns returns the first model's cap of model responses per run (each
// model's run has the same).
func (m *Models) MaxTurns() int { return m.Engines[0].MaxTurns() }

// multiTurn is one user turn answered by several models.
type multiTurn struct {
	m     *Models
	sess  *agent.Conversation
	engs  []*agent.Engine
	ids   []string
	emit  func(agent.Event)
	mu    sync.Mutex
	began bool // the session event was passed on
	sum   agent.DoneInfo
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
	start := t.m.Rot.position(t.sess, t.ids)
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
			t.m.Rot.Set(i + 1)
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
	t.m.Rot.Set(start + 1)
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
func (r *Rotor) position(s *agent.Conversation, ids []string) int {
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

// Set makes model next (an index into the list, modulo its length) answer
// the next turn; next < 0: the one after the conversation's last answer.
func (r *Rotor) Set(next int) {
	r.mu.Lock()
	r.next = next
	r.mu.Unlock()
}

// proposal is one model's answer of a parallel turn.
type proposal struct {
	resp *llm.Response
	err  error
}

// parallel asks every model at once with the same conversation; the
// user's message and the kept answers go into it (see choose), the
// others' cost is recorded, and the run goes on with the last kept
// answer's model (its tool calls run; the other kept answers' do not).
func (t *multiTurn) parallel(ctx context.Context, input []llm.Part) (*agent.DoneInfo, error) {
	t.begin()
	if err := t.engs[0].Settle(ctx, t.sess, t.sub(0)); err != nil {
		return nil, err
	}
	props := t.propose(ctx, input)
	if err := t.engs[0].Record(ctx, t.sess, llm.Message{Role: llm.RoleUser, Parts: input}, nil, t.sub(0)); err != nil {
		return nil, err
	}
	var ok []int
	var last error
	for i, p := range props {
		err := p.err
		if err == nil && len(p.resp.Message.Parts) == 0 {
			err = errors.New("the model returned an empty answer")
		}
		if err == nil {
			ok = append(ok, i)
			continue
		}
		last = err
		if ctx.Err() == nil {
			t.failed(i, err, "")
		}
		t.discard(ctx, i, p)
	}
	if ctx.Err() != nil || len(ok) == 0 {
		for _, i := range ok {
			t.discard(ctx, i, props[i])
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("every active model failed; the last: %w", last)
	}
	keep, err := t.choose(ctx, props, ok)
	for _, i := range ok {
		if err != nil || !slices.Contains(keep, i) {
			t.discard(ctx, i, props[i])
		}
	}
	if err != nil {
		return nil, err
	}
	return t.keep(ctx, props, keep)
}

// begin passes on the turn's session event.
func (t *multiTurn) begin() {
	t.sub(0)(agent.Event{Type: agent.EventSession, SessionID: t.sess.ID, Session: &agent.SessionInfo{
		ID: t.sess.ID, Provider: t.engs[0].Config.Model.Provider, Model: t.engs[0].Config.Model.Name,
		Workspace: t.sess.Workspace, Resumed: len(t.sess.Messages) > 0}})
}

// propose asks every model at once and waits for all answers.
func (t *multiTurn) propose(ctx context.Context, input []llm.Part) []proposal {
	props := make([]proposal, len(t.engs))
	var wg sync.WaitGroup
	for i, eng := range t.engs {
		wg.Go(func() {
			props[i].resp, props[i].err = eng.Propose(ctx, t.sess, input, t.sub(i))
		})
	}
	wg.Wait()
	return props
}

// discard records the cost of model i's answer that is not kept.
func (t *multiTurn) discard(ctx context.Context, i int, p proposal) {
	if p.resp == nil {
		return
	}
	u := p.resp.Usage
	t.sum.Usage = t.sum.Usage.Add(u)
	t.sum.Turns++
	if err := t.engs[i].Record(ctx, t.sess, llm.Message{}, &u, t.sub(i)); err != nil {
		t.failed(i, err, "its cost is not recorded")
	}
}

// choose returns the models whose answers are kept, in list order: the
// Chooser's choice, or every successful one (KeepAll), or the first
// successful one in list order. ok are the models that answered.
// Errors: the Chooser's (ctx's), an index out of range.
func (t *multiTurn) choose(ctx context.Context, props []proposal, ok []int) ([]int, error) {
	c := t.m.Chooser
	if c == nil {
		if t.m.KeepAll {
			return ok, nil
		}
		return ok[:1], nil
	}
	cands := make([]multi.Candidate, len(ok))
	for k, i := range ok {
		m := props[i].resp.Message
		cands[k] = multi.Candidate{Model: t.ids[i], Text: m.Text()}
		for _, tc := range m.ToolCalls() {
			cands[k].ToolCalls = append(cands[k].ToolCalls, tc.Name)
		}
	}
	picked, err := c.Choose(ctx, cands)
	if err != nil {
		return nil, err
	}
	var keep []int
	for _, k := range picked {
		if k < 0 || k >= len(ok) {
			return nil, fmt.Errorf("choose answers: %d is not one of the %d answers", k, len(ok))
		}
		if !slices.Contains(keep, ok[k]) {
			keep = append(keep, ok[k])
		}
	}
	if len(keep) == 0 {
		keep = ok[:1]
	}
	slices.Sort(keep)
	return keep, nil
}

// keep adds the kept answers to the conversation in list order (a note
// between two, so roles alternate for every wire format); only the last
// one keeps its tool calls, and its model's run goes on from it.
func (t *multiTurn) keep(ctx context.Context, props []proposal, keep []int) (*agent.DoneInfo, error) {
	lead := keep[len(keep)-1]
	prev := -1
	for _, i := range keep {
		m, u := props[i].resp.Message, props[i].resp.Usage
		if i != lead {
			m = textOnly(m)
			t.sum.Turns++
		}
		if len(m.Parts) == 0 {
			t.discard(ctx, i, proposal{resp: &llm.Response{Usage: u}})
			t.sum.Turns--
			continue
		}
		if prev >= 0 {
			note := llm.UserText(fmt.Sprintf(parallelNote, t.ids[prev], t.ids[i]))
			if err := t.engs[i].Record(ctx, t.sess, note, nil, t.sub(i)); err != nil {
				return nil, err
			}
		}
		if err := t.engs[i].Record(ctx, t.sess, m, &u, t.sub(i)); err != nil {
			return nil, err
		}
		t.sum.Usage = t.sum.Usage.Add(u)
		prev = i
	}
	return t.engs[lead].Continue(ctx, t.sess, t.sub(lead))
}

// textOnly returns m with its text parts alone (a kept answer whose tool
// calls do not run).
func textOnly(m llm.Message) llm.Message {
	out := llm.Message{Role: m.Role, Model: m.Model}
	for _, p := range m.Parts {
		if p.Type == llm.PartText && p.Text != "" {
			out.Parts = append(out.Parts, p)
		}
	}
	return out
}
