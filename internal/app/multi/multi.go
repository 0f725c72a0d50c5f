// Package multi is the room of app that front ends use for multi-model
// conversations (/multi, --multi, --models, multi_mode, the web UI's
// models panel and its parallel choices): the conversation modes, a
// session's active models and Setting, a parallel turn's answers offered
// to a Chooser, and the reading of a choice. app runs the turns and keeps
// the setting (Session.Multi, SetMultiMode, AddModel, RemoveModel,
// SetModels; SessionOptions.Chooser); this package imports nothing of
// app.
package multi

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Mode is how the active models of a session answer a user turn.
type Mode string

// The conversation modes (multi_mode, --multi, /multi MODE).
const (
	// Single: the session's model answers alone (the default).
	Single Mode = "single"
	// RoundRobin: each user turn is answered by the next active model;
	// a model that fails hands the turn to the next one.
	RoundRobin Mode = "round-robin"
	// Sequential: every active model answers in list order, each seeing
	// the earlier answers of the turn and asked to review and improve
	// them.
	Sequential Mode = "sequential"
	// Parallel: every active model answers the same context at once; the
	// answers to keep are chosen (a Chooser, or KeepAll, or the first
	// successful one in list order), and only a kept answer's tool calls
	// run.
	Parallel Mode = "parallel"
)

// Modes lists the conversation modes in the order help shows them.
func Modes() []Mode {
	return []Mode{Single, RoundRobin, Sequential, Parallel}
}

// ParseMode returns the mode named s ("" is single). Errors: an unknown
// name (the error lists the modes).
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	if m == "" {
		return Single, nil
	}
	if m == "roundrobin" || m == "round_robin" {
		m = RoundRobin
	}
	if !slices.Contains(Modes(), m) {
		return "", fmt.Errorf("unknown conversation mode %q: use single, round-robin, sequential or parallel", s)
	}
	return m, nil
}

// ActiveModel is one model of a session's active list: ID is
// "PROVIDER/MODEL"; Effort ("minimal", "low", "medium", "high"; "": the
// configured reasoning_effort) and ThinkingBudget (reasoning tokens; 0:
// the configured thinking_budget) are its reasoning controls.
type ActiveModel struct {
	ID             string `json:"id"`
	Effort         string `json:"effort,omitempty"`
	ThinkingBudget int    `json:"thinking_budget,omitempty"`
}

// String returns m as ParseActiveModel reads it.
func (m ActiveModel) String() string {
	s := m.ID
	if m.Effort != "" {
		s += " effort=" + m.Effort
	}
	if m.ThinkingBudget > 0 {
		s += " budget=" + strconv.Itoa(m.ThinkingBudget)
	}
	return s
}

// ParseActiveModel reads "PROVIDER/MODEL [effort=E] [budget=N]" (the
// model as --model takes it, then its reasoning controls). Errors: no
// model, an unknown option, an effort other than minimal|low|medium|high,
// a budget that is not a positive number of tokens.
func ParseActiveModel(s string) (ActiveModel, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return ActiveModel{}, fmt.Errorf("no model given: write PROVIDER/MODEL [effort=low|medium|high] [budget=TOKENS]")
	}
	m := ActiveModel{ID: fields[0]}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "effort":
			if !slices.Contains([]string{"minimal", "low", "medium", "high"}, v) {
				return m, fmt.Errorf("%s: effort must be minimal, low, medium or high, not %q", m.ID, v)
			}
			m.Effort = v
		case "budget":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return m, fmt.Errorf("%s: budget must be a positive number of reasoning tokens, not %q", m.ID, v)
			}
			m.ThinkingBudget = n
		default:
			return m, fmt.Errorf("%s: unknown option %q: use effort=E or budget=TOKENS", m.ID, f)
		}
	}
	return m, nil
}

// Setting is a session's multi-model setting: the conversation mode and
// the active models in list order (empty: the session's model alone).
type Setting struct {
	Mode   Mode          `json:"mode"`
	Models []ActiveModel `json:"models"`
}

// Active reports whether turns go through several models' engines: a
// mode other than single with at least one active model.
func (m Setting) Active() bool { return m.Mode != Single && m.Mode != "" && len(m.Models) > 0 }

// IDs returns the active models' ids in list order.
func (m Setting) IDs() []string {
	out := make([]string, len(m.Models))
	for i, a := range m.Models {
		out[i] = a.ID
	}
	return out
}

// Candidate is one answer of a parallel turn, offered to a [Chooser]:
// the model that wrote it ("PROVIDER/MODEL"), its text, and the names of
// the tool calls it asks for (they run only if it is kept).
type Candidate struct {
	Model     string   `json:"model"`
	Text      string   `json:"text"`
	ToolCalls []string `json:"tool_calls,omitempty"`
}

// Chooser picks the answers to keep of a parallel turn (the TUI's keys,
// the line mode's answer, the web UI's buttons). Choose blocks until the
// user chose or ctx ends; it returns indexes into answers (the
// successful ones, in list order): one answer, or several ("all"). An
// empty choice keeps the first. Errors: ctx's (the turn is then
// cancelled).
type Chooser interface {
	Choose(ctx context.Context, answers []Candidate) ([]int, error)
}

// ParseKeep reads the answer to a parallel turn's "keep which answer?"
// for n answers, as the line mode's line and the terminal UI's key give
// it: "" (Enter) keeps the first, "a" or "all" (any case) keeps every
// one, a number 1..n keeps that one. It returns 0-based indexes into the
// answers, in order. Errors: anything else, naming what to type.
func ParseKeep(answer string, n int) ([]int, error) {
	answer = strings.ToLower(strings.TrimSpace(answer))
	switch answer {
	case "":
		return []int{0}, nil
	case "a", "all":
		return KeepAll(n), nil
	}
	k, err := strconv.Atoi(answer)
	if err != nil || k < 1 || k > n {
		return nil, fmt.Errorf("answer a number from 1 to %d, or a", n)
	}
	return []int{k - 1}, nil
}

// KeepAll is the choice that keeps every one of n answers: 0..n-1.
func KeepAll(n int) []int {
	keep := make([]int, n)
	for i := range keep {
		keep[i] = i
	}
	return keep
}

// CheckKeep checks a choice of 0-based indexes (the web API's "keep")
// against n answers. Errors: an index out of range, naming it.
func CheckKeep(keep []int, n int) error {
	for _, k := range keep {
		if k < 0 || k >= n {
			return fmt.Errorf("keep: %d is not one of the %d answers (0-based)", k, n)
		}
	}
	return nil
}
