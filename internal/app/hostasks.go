package app

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/zelvior/aidex/internal/agent"
)

// InteractionTTL is how long a question (ask_user) waits for its answer
// in a Host; after it the token no longer answers and the model is told
// that no one answered.
const InteractionTTL = 30 * time.Minute

// Errors of Host.Approve and Host.AnswerInteraction (the error's text
// says which id and what to do; errors.Is finds these).
var (
	// ErrNotWaiting: no such approval or question waits (never asked,
	// already answered, or its run ended).
	ErrNotWaiting = errors.New("not waiting")
	// ErrAmbiguous: the id waits in several sessions and none was named.
	ErrAmbiguous = errors.New("waiting in several sessions")
	// ErrBadToken: a question's answer came without its token.
	ErrBadToken = errors.New("wrong or missing token")
	// ErrExpired: the question waited InteractionTTL; it was declined.
	ErrExpired = errors.New("expired")
)

// hostError is an error with its own text that errors.Is finds as kind.
type hostError struct {
	kind error
	msg  string
}

func (e *hostError) Error() string { return e.msg }
func (e *hostError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &hostError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// PendingApproval is an approval request waiting for an answer (Host.Approvals).
type PendingApproval struct {
	SessionID string             `json:"session_id"`
	Approval  agent.ApprovalInfo `json:"approval"`
}

type pendingApproval struct {
	info   agent.ApprovalInfo
	answer chan approvalAnswer
	// answered is set when the answer was sent; the waiting Approve
	// (which may not have started waiting yet) removes the entry.
	answered bool
}

type approvalAnswer struct {
	decision agent.Answer
	reason   string
}

// openApproval registers a request (a second open of the same id returns
// the first). A watched run with no one watching starts its timeout.
func (hs *HostSession) openApproval(info agent.ApprovalInfo) *pendingApproval {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if p := hs.approvals[info.ID]; p != nil {
		return p
	}
	p := &pendingApproval{info: info, answer: make(chan approvalAnswer, 1)}
	hs.approvals[info.ID] = p
	if hs.orphanedLocked() {
		hs.startOrphanLocked()
	}
	return p
}

func (hs *HostSession) closeApproval(id string) {
	hs.mu.Lock()
	delete(hs.approvals, id)
	hs.mu.Unlock()
}

// Approver returns the session's approver for SessionOptions: it waits
// for Host.Approve, the run's end, or (no one watching) the timeout.
func (hs *HostSession) Approver() agent.Approver { return hostApprover{hs} }

type hostApprover struct{ hs *HostSession }

// Approve waits for the answer or ctx's end. Errors: ctx's.
func (a hostApprover) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	p := a.hs.openApproval(req)
	defer a.hs.closeApproval(req.ID)
	select {
	case ans := <-p.answer:
		return ans.decision, ans.reason, nil
	case <-ctx.Done():
		return agent.AnswerDeny, "", ctx.Err()
	}
}

// Approvals lists the approval requests waiting, over all sessions.
func (h *Host) Approvals() []PendingApproval {
	out := []PendingApproval{}
	for _, hs := range h.list() {
		hs.mu.Lock()
		for _, p := range hs.approvals {
			if !p.answered {
				out = append(out, PendingApproval{SessionID: hs.id, Approval: p.info})
			}
		}
		hs.mu.Unlock()
	}
	return out
}

// Approve answers approval id (in session, when not "") with decision
// and reason. Errors: ErrNotWaiting, ErrAmbiguous (add the session).
func (h *Host) Approve(session, id string, decision agent.Answer, reason string) error {
	var found []*HostSession
	for _, hs := range h.list() {
		if session != "" && hs.id != session {
			continue
		}
		hs.mu.Lock()
		if p := hs.approvals[id]; p != nil && !p.answered {
			found = append(found, hs)
		}
		hs.mu.Unlock()
	}
	switch len(found) {
	case 0:
		return errorf(ErrNotWaiting, "no approval %q is waiting (already answered, or its run ended)", id)
	case 1:
	default:
		return errorf(ErrAmbiguous, "approval %q is waiting in several sessions: add \"session_id\"", id)
	}
	hs := found[0]
	hs.mu.Lock()
	defer hs.mu.Unlock()
	p := hs.approvals[id]
	if p == nil || p.answered {
		return errorf(ErrNotWaiting, "no approval %q is waiting (already answered, or its run ended)", id)
	}
	p.answered = true
	p.answer <- approvalAnswer{decision: decision, reason: reason}
	return nil
}

// waitingLocked reports whether an approval or question waits.
func (hs *HostSession) waitingLocked() bool {
	for _, p := range hs.approvals {
		if !p.answered {
			return true
		}
	}
	for _, p := range hs.interactions {
		if !p.done {
			return true
		}
	}
	return false
}

// timeOut denies the approvals and declines the questions of orphan
// timer n, unless a watcher came back or a newer timer runs.
func (hs *HostSession) timeOut(n int, d time.Duration) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if n != hs.orphanN || hs.orphan == nil || !hs.orphanedLocked() {
		return
	}
	hs.orphan = nil
	reason := fmt.Sprintf("no one answered within %s after the last client following the session left (approval_timeout)", d)
	for _, p := range hs.approvals {
		if !p.answered {
			p.answered = true
			p.answer <- approvalAnswer{decision: agent.AnswerDeny, reason: reason}
		}
	}
	for _, p := range hs.interactions {
		if !p.done {
			p.done = true
			p.answer <- agent.InteractionAnswer{ID: p.info.ID, Declined: true, Reason: reason}
		}
	}
}

// InteractionView is a waiting question as a client gets it: the
// engine's interaction event, the token that answers it (single use) and
// when it expires.
type InteractionView struct {
	agent.Event
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

type pendingInteraction struct {
	info    agent.InteractionInfo
	token   string
	expires time.Time
	answer  chan agent.InteractionAnswer
	// done is set when the answer was sent (the token is used up); the
	// waiting Ask removes the entry.
	done bool
}

func (p *pendingInteraction) view(session string) InteractionView {
	info := p.info
	return InteractionView{Event: agent.Event{Type: agent.EventInteraction, SessionID: session, Interaction: &info},
		Token: p.token, ExpiresAt: p.expires}
}

// openInteraction registers a question with a new token (a second open
// of the same id returns the first). Errors: no randomness for the token.
func (hs *HostSession) openInteraction(info agent.InteractionInfo) (*pendingInteraction, error) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if p := hs.interactions[info.ID]; p != nil {
		return p, nil
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("interaction token: %w", err)
	}
	p := &pendingInteraction{info: info, token: hex.EncodeToString(b[:]),
		expires: hs.h.opts.Now().Add(InteractionTTL), answer: make(chan agent.InteractionAnswer, 1)}
	hs.interactions[info.ID] = p
	if hs.orphanedLocked() {
		hs.startOrphanLocked()
	}
	return p, nil
}

func (hs *HostSession) closeInteraction(id string) {
	hs.mu.Lock()
	delete(hs.interactions, id)
	hs.mu.Unlock()
}

// Asker returns the session's asker for SessionOptions: it waits for
// Host.AnswerInteraction, the run's end, InteractionTTL or (no one
// watching) the timeout.
func (hs *HostSession) Asker() agent.Asker { return hostAsker{hs} }

type hostAsker struct{ hs *HostSession }

// Ask waits for the answer, ctx's end or the question's expiry
// (declined, with the reason). Errors: ctx's, a token that could not be
// made.
func (a hostAsker) Ask(ctx context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	p, err := a.hs.openInteraction(info)
	if err != nil {
		return agent.InteractionAnswer{}, err
	}
	defer a.hs.closeInteraction(info.ID)
	// A real timer (the clock of AnswerInteraction may be a test's): both
	// measure InteractionTTL from about the same moment, the event's.
	timer := time.NewTimer(InteractionTTL)
	defer timer.Stop()
	select {
	case ans := <-p.answer:
		return ans, nil
	case <-timer.C:
		return expired(info), nil
	case <-ctx.Done():
		return agent.InteractionAnswer{ID: info.ID, Declined: true}, ctx.Err()
	}
}

// expired is the answer of a question no one answered in time.
func expired(info agent.InteractionInfo) agent.InteractionAnswer {
	return agent.InteractionAnswer{ID: info.ID, Declined: true, Reason: fmt.Sprintf("no one answered in the web UI within %s", InteractionTTL)}
}

// Interactions lists the questions waiting, over all sessions, with
// their tokens.
func (h *Host) Interactions() []InteractionView {
	out := []InteractionView{}
	for _, hs := range h.list() {
		hs.mu.Lock()
		for _, p := range hs.interactions {
			if !p.done {
				out = append(out, p.view(hs.id))
			}
		}
		hs.mu.Unlock()
	}
	return out
}

// AnswerInteraction checks and delivers ans to question id (in session
// when not "") and uses up its token; it returns the answer as checked.
// Errors: ErrNotWaiting, ErrAmbiguous, ErrBadToken, ErrExpired (the model
// is told no one answered), agent.ErrBadAnswer (the token stays valid so
// the client can correct the answer).
func (h *Host) AnswerInteraction(session, id, token string, ans agent.InteractionAnswer) (agent.InteractionAnswer, error) {
	var found []*HostSession
	for _, hs := range h.list() {
		if session != "" && hs.id != session {
			continue
		}
		hs.mu.Lock()
		if p := hs.interactions[id]; p != nil && !p.done {
			found = append(found, hs)
		}
		hs.mu.Unlock()
	}
	switch len(found) {
	case 0:
		return ans, errorf(ErrNotWaiting, "no interaction %q is waiting (already answered, or its run ended)", id)
	case 1:
	default:
		return ans, errorf(ErrAmbiguous, "interaction %q is waiting in several sessions: add \"session_id\"", id)
	}
	return found[0].answerInteraction(id, token, ans)
}

func (hs *HostSession) answerInteraction(id, token string, ans agent.InteractionAnswer) (agent.InteractionAnswer, error) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	p := hs.interactions[id]
	if p == nil || p.done {
		return ans, errorf(ErrNotWaiting, "no interaction %q is waiting (already answered, or its run ended)", id)
	}
	if token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(p.token)) != 1 {
		return ans, errorf(ErrBadToken, "wrong or missing token for interaction %q: send the \"token\" of its interaction event", id)
	}
	if !hs.h.opts.Now().Before(p.expires) {
		p.done = true
		p.answer <- expired(p.info)
		return ans, errorf(ErrExpired, "interaction %q expired (no answer within %s); the model was told that no one answered", id, InteractionTTL)
	}
	checked, err := agent.CheckAnswer(p.info, ans)
	if err != nil {
		return ans, err
	}
	p.done = true // the token is used up
	p.answer <- checked
	return checked, nil
}
