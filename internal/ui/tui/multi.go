package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// chooseReq is a parallel turn's question: which answers to keep. The
// reply is the indexes into answers (multi.Chooser's).
type chooseReq struct {
	answers []multi.Candidate
	reply   chan []int
}

// Choose implements multi.Chooser: it queues the question (after the
// answers' events) and waits for the keys' choice or ctx's end.
func (a approver) Choose(ctx context.Context, answers []multi.Candidate) ([]int, error) {
	safe := make([]multi.Candidate, len(answers))
	for i, c := range answers {
		safe[i] = multi.Candidate{Model: termsafe.Clean(c.Model), Text: c.Text, ToolCalls: c.ToolCalls}
	}
	r := &chooseReq{answers: safe, reply: make(chan []int, 1)}
	a.q.push(item{choose: r})
	select {
	case keep := <-r.reply:
		return keep, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// parallelView holds a parallel turn's answers while they stream, by
// model in the order they started.
type parallelView struct {
	order []string
	text  map[string]string
}

// parallelTail is how many lines of each streaming answer show.
const parallelTail = 6

// multiEvent applies the labelling of a multi-model session's event and
// reports whether it took the event: in a parallel turn the answers'
// text streams into their own panes; otherwise a header line with the
// model goes before the output of a model other than the last one.
func (s *streamModel) multiEvent(e agent.Event) bool {
	if !s.multi {
		return false
	}
	switch e.Type {
	case agent.EventSession:
		if s.parallel {
			s.par = &parallelView{text: map[string]string{}}
		}
		s.label = ""
		return false
	case agent.EventText, agent.EventReasoning, agent.EventToolCall:
	default:
		return false
	}
	if e.Model == "" {
		return false
	}
	if s.par != nil && e.Type != agent.EventToolCall {
		if _, ok := s.par.text[e.Model]; !ok {
			s.par.order = append(s.par.order, e.Model)
		}
		if e.Type == agent.EventText {
			s.par.text[e.Model] += e.Text
		} else {
			s.par.text[e.Model] += "" // reasoning: the pane shows the model is at work
		}
		return true
	}
	if e.Model != s.label {
		s.flushReasoning()
		s.flushText()
		s.commit(s.modelHeader(e.Model, ""))
		s.label = e.Model
	}
	return false
}

// modelHeader is the line that labels an answer with its model (and a
// note: kept, not kept).
func (s *streamModel) modelHeader(model, note string) string {
	h := "── " + model
	if note != "" {
		h += " · " + note
	}
	return s.st.paint(s.st.magenta, h+" ──")
}

// parallelLines are the streaming answers of a parallel turn, stacked:
// each model's header and the last lines of its answer.
func (s streamModel) parallelLines() []string {
	if s.par == nil {
		return nil
	}
	var out []string
	for i, model := range s.par.order {
		out = append(out, s.modelHeader(fmt.Sprintf("[%d] %s", i+1, model), ""))
		text := strings.TrimRight(s.par.text[model], "\n")
		if text == "" {
			out = append(out, s.st.paint(s.st.faint, "…"))
			continue
		}
		lines := strings.Split(s.md.render(previewSource(text), s.width, s.mdStyle), "\n")
		if len(lines) > parallelTail {
			lines = lines[len(lines)-parallelTail:]
		}
		out = append(out, lines...)
	}
	return out
}

// previewMax bounds the source of a parallel pane's preview in bytes.
const previewMax = 2048

// previewSource is the end of text a pane renders (its last lines, cut at
// a line start within previewMax bytes): each frame then renders a bounded
// piece, not the whole answer again, however long it grows. The kept
// answer is rendered whole when it is committed.
func previewSource(text string) string {
	if len(text) <= previewMax {
		return text
	}
	tail := text[len(text)-previewMax:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	return tail
}

// orderPanes numbers the panes as the question does: the answers in
// list order first, then the panes of models that failed.
func (s *streamModel) orderPanes(models []string) {
	if s.par == nil {
		return
	}
	order := slices.Clone(models)
	for _, m := range s.par.order {
		if !slices.Contains(order, m) {
			order = append(order, m)
		}
	}
	for _, m := range order {
		if _, ok := s.par.text[m]; !ok {
			s.par.text[m] = ""
		}
	}
	s.par.order = order
}

// keepParallel commits a parallel turn's answers, each under its header
// saying whether it was kept (kept are model ids); the kept model's
// further output needs no new header when it is the only one kept.
func (s *streamModel) keepParallel(kept []string) {
	if s.par == nil {
		return
	}
	for _, model := range s.par.order {
		note := "not kept"
		if slices.Contains(kept, model) {
			note = "kept"
		}
		s.commit(s.modelHeader(model, note))
		if text := strings.TrimSpace(s.par.text[model]); text != "" {
			s.commitLaidOut(s.md.render(text, s.width, s.mdStyle))
		}
	}
	s.par = nil
	if len(kept) > 0 {
		s.label = kept[len(kept)-1]
	}
}

// chooseOpened shows a parallel turn's question.
func (m *turnCtl) chooseOpened(r *chooseReq) tea.Cmd {
	m.turn.choosing = r
	models := make([]string, len(r.answers))
	for i, a := range r.answers {
		models[i] = a.Model
	}
	m.stream.orderPanes(models)
	return ring(m.notifier().Question())
}

// chooseKey answers the parallel turn's question: a digit keeps that
// answer, a keeps all, Enter keeps the first.
func (m *turnCtl) chooseKey(k tea.KeyPressMsg) tea.Cmd {
	r := m.turn.choosing
	key := k.String()
	switch key {
	case "esc":
		m.stop()
		return nil
	case "enter":
		key = ""
	case "":
		return nil
	}
	keep, err := multi.ParseKeep(key, len(r.answers))
	if err != nil {
		return nil
	}
	models := make([]string, len(keep))
	for i, k := range keep {
		models[i] = r.answers[k].Model
	}
	m.stream.keepParallel(models)
	m.turn.choosing = nil
	r.reply <- keep
	return nil
}

// chooseView is the question's line: the answers by number, their tool
// calls, and the keys.
func (m *turnCtl) chooseView() string {
	var b strings.Builder
	b.WriteString("Keep which answer?")
	for i, c := range m.turn.choosing.answers {
		fmt.Fprintf(&b, "  [%d] %s", i+1, c.Model)
		if len(c.ToolCalls) > 0 {
			fmt.Fprintf(&b, " (then runs %s)", strings.Join(c.ToolCalls, ", "))
		}
	}
	b.WriteString("  [a] all  (Enter: 1, Esc stops)")
	return m.st.paint(m.st.bold, b.String())
}

// multiStarted tells the stream, at a run's start, whether the session
// answers with several models and whether in parallel.
func (m *turnCtl) multiStarted() {
	mc := m.ctrl.Multi()
	m.stream.multi = mc.Active()
	m.stream.parallel = mc.Active() && mc.Mode == multi.Parallel
	m.stream.par, m.stream.label = nil, ""
}
