package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

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
	c := t.m.chooser
	if c == nil {
		if t.m.keepAll {
			return ok, nil
		}
		return ok[:1], nil
	}
	cands := make([]Candidate, len(ok))
	for k, i := range ok {
		m := props[i].resp.Message
		cands[k] = Candidate{Model: t.ids[i], Text: m.Text()}
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
