package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/streamjson"
)

// read reads stdin's lines until EOF or ctx ends: user turns are queued,
// answers go to their pending ask, interrupt cancels the running turn,
// and a malformed line is an error event (and skipped). At EOF the asks
// still waiting are denied or declined.
func (s *streamControl) read(ctx context.Context, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxInputLine)
	for sc.Scan() && ctx.Err() == nil {
		line := sc.Bytes()
		if len(trimSpace(line)) == 0 {
			continue
		}
		in, err := streamjson.Parse(line)
		if err == nil {
			err = s.dispatch(in)
		}
		if err != nil {
			s.inputError(err)
		}
	}
	if err := sc.Err(); err != nil {
		s.inputError(fmt.Errorf("read stdin: %w", err))
	}
	s.closeInput()
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// dispatch routes one parsed line. Errors: an answer to no waiting ask,
// an interaction answer that does not fit its questions.
func (s *streamControl) dispatch(in streamjson.Input) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch in.Type {
	case streamjson.InputUser:
		s.queue = append(s.queue, in.User)
		select {
		case s.ready <- struct{}{}:
		default:
		}
	case streamjson.InputInterrupt:
		if s.cancel != nil {
			s.cancel()
		}
	case streamjson.InputApproval:
		ch, ok := s.approvals[in.Approval.ID]
		if !ok || s.answered[in.Approval.ID] {
			return fmt.Errorf("%w: no approval is waiting with id %q; answer the id of an approval event that has no decision yet", streamjson.ErrBadInput, in.Approval.ID)
		}
		s.answered[in.Approval.ID] = true
		ch <- approvalReply{answer: in.Approval.Decision, reason: in.Approval.Reason}
	case streamjson.InputInteraction:
		p, ok := s.asks[in.Interaction.ID]
		if !ok || s.answered[in.Interaction.ID] {
			return fmt.Errorf("%w: no interaction is waiting with id %q; answer the id of an interaction event that has no answer yet", streamjson.ErrBadInput, in.Interaction.ID)
		}
		ans, err := agent.CheckAnswer(p.info, in.Interaction.Answer())
		if err != nil {
			return fmt.Errorf("%w: interaction %s: %w; send the answer again", streamjson.ErrBadInput, in.Interaction.ID, err)
		}
		s.answered[in.Interaction.ID] = true
		p.reply <- ans
	}
	return nil
}

// closeInput marks stdin closed: the asks still waiting are denied or
// declined, and next reports no more turns once the queue is empty.
func (s *streamControl) closeInput() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eof = true
	for id, ch := range s.approvals {
		if !s.answered[id] {
			s.answered[id] = true
			ch <- approvalReply{answer: agent.AnswerDeny, reason: stdinClosed}
		}
	}
	for id, p := range s.asks {
		if !s.answered[id] {
			s.answered[id] = true
			p.reply <- agent.InteractionAnswer{ID: id, Declined: true, Reason: stdinClosed}
		}
	}
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// next returns the next queued user turn, waiting for one; false when
// stdin is closed and the queue is empty, or ctx ended.
func (s *streamControl) next(ctx context.Context) (*streamjson.UserInput, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			u := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return u, true
		}
		eof := s.eof
		s.mu.Unlock()
		if eof {
			return nil, false
		}
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, false
		}
	}
}
