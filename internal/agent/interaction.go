package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// EventInteraction is the event of ask_user: its questions to the user
// (InteractionInfo, Answer nil), sent after its tool_call, then the same
// with the answer; then the call's tool_result.
const EventInteraction EventType = "interaction"

// QuestionKind says what answer a question of ask_user wants.
type QuestionKind string

// The kinds of question ask_user puts to the user.
const (
	KindText    QuestionKind = "text"    // free text: the answer is a string
	KindConfirm QuestionKind = "confirm" // yes or no: the answer is "yes" or "no"
	KindChoice  QuestionKind = "choice"  // one label of Options (a list of labels with MultiSelect)
	KindFiles   QuestionKind = "files"   // a list of file paths
)

// The answers of a confirm question.
const (
	ConfirmYes = "yes"
	ConfirmNo  = "no"
)

// Limits of an ask_user call: 1 to MaxQuestions questions; a choice has
// MinOptions to MaxOptions options.
const (
	MaxQuestions = 4
	MinOptions   = 2
	MaxOptions   = 6
)

// Option is one choice of a question: the label the answer names and an
// optional description shown beside it.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is one question of ask_user (Claude's AskUserQuestion shape
// plus the kinds text, confirm and files). Question is its full text and
// the key of its answer; Header a short tag shown above it; Options the
// choices of a choice question; MultiSelect lets the user pick several.
type Question struct {
	Question    string       `json:"question"`
	Header      string       `json:"header,omitempty"`
	Options     []Option     `json:"options,omitempty"`
	MultiSelect bool         `json:"multi_select,omitempty"`
	Kind        QuestionKind `json:"kind"`
}

// Multi reports whether the answer to q is a list: a multi-select choice
// or files.
func (q Question) Multi() bool {
	return q.Kind == KindFiles || (q.Kind == KindChoice && q.MultiSelect)
}

// InteractionInfo is a request to the user (Answer nil), or the request
// with the answer it got: ID names it (the answer carries the same ID),
// CallID is the ask_user call it answers.
//
// Source is who asks: "" for the model (ask_user), else a name to show
// instead ("MCP server NAME" for a server's elicitation).
type InteractionInfo struct {
	ID        string             `json:"id"`
	CallID    string             `json:"call_id"`
	Source    string             `json:"source,omitempty"`
	Questions []Question         `json:"questions"`
	Answer    *InteractionAnswer `json:"answer,omitempty"`
}

// InteractionAnswer is the user's answer to an interaction, the same from
// every front end: {"id": "...", "answers": {"<question>": "label" |
// ["label", ...] | "text" | ["path", ...]}} or {"id": "...", "declined":
// true}. Reason says why it was declined when aidex declined for the user
// (optional).
type InteractionAnswer struct {
	ID       string           `json:"id"`
	Answers  map[string]Reply `json:"answers,omitempty"`
	Declined bool             `json:"declined,omitempty"`
	Reason   string           `json:"reason,omitempty"`
}

// Reply is the answer to one question: a JSON string (a label, a text,
// "yes"/"no") or a JSON list of strings (labels of a multi-select, paths).
type Reply struct {
	Values []string
	List   bool
}

// TextReply is a single-valued reply: a label, a text, "yes" or "no".
func TextReply(s string) Reply { return Reply{Values: []string{s}} }

// ListReply is a list reply: the labels of a multi-select, or paths.
func ListReply(items ...string) Reply { return Reply{Values: items, List: true} }

// MarshalJSON writes a string, or a list of strings.
func (r Reply) MarshalJSON() ([]byte, error) {
	if r.List {
		if r.Values == nil {
			return []byte("[]"), nil
		}
		return json.Marshal(r.Values)
	}
	if len(r.Values) == 0 {
		return []byte(`""`), nil
	}
	return json.Marshal(r.Values[0])
}

// UnmarshalJSON reads a string or a list of strings. Errors: any other
// JSON value.
func (r *Reply) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var items []string
		if err := json.Unmarshal(data, &items); err != nil {
			return fmt.Errorf("an answer is a string or a list of strings: %w", err)
		}
		*r = ListReply(items...)
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("an answer is a string or a list of strings, not %s", data)
	}
	*r = TextReply(s)
	return nil
}

// Asker puts questions to a person (the ask_user tool). Ask blocks until
// they answer or decline, or ctx ends; the answer's ID is info.ID. The
// engine checks the answer with [CheckAnswer] and gives it to the model. A
// front end where no one can answer passes a nil Asker: ask_user is then
// not offered and the model is told to decide itself. An error (ctx
// ended) cancels the call.
type Asker interface {
	Ask(ctx context.Context, info InteractionInfo) (InteractionAnswer, error)
}

// ParseQuestions reads and checks ask_user's arguments: 1 to 4 questions,
// each with a text unique in the call; kind choice (the default when
// options are given, else text) needs 2 to 6 options with distinct
// labels; the other kinds take no options. Errors say what to fix; they go
// back to the model.
func ParseQuestions(args json.RawMessage) ([]Question, error) {
	var in struct {
		Questions []Question `json:"questions"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf(`ask_user takes {"questions": [{"question": "...", "kind": "choice", "options": [{"label": "..."}]}]}: %w`, err)
	}
	if n := len(in.Questions); n < 1 || n > MaxQuestions {
		return nil, fmt.Errorf("ask_user takes 1 to %d questions, not %d", MaxQuestions, n)
	}
	seen := map[string]bool{}
	for i := range in.Questions {
		q := &in.Questions[i]
		q.Question = strings.TrimSpace(q.Question)
		if q.Question == "" {
			return nil, fmt.Errorf("question %d has no text", i+1)
		}
		if seen[q.Question] {
			return nil, fmt.Errorf("question %d repeats %q: each question's text must differ (answers are keyed by it)", i+1, q.Question)
		}
		seen[q.Question] = true
		if err := checkQuestion(q); err != nil {
			return nil, fmt.Errorf("question %d (%q): %w", i+1, q.Question, err)
		}
	}
	return in.Questions, nil
}

// checkQuestion fills in q's kind and checks its options.
func checkQuestion(q *Question) error {
	if q.Kind == "" {
		q.Kind = KindText
		if len(q.Options) > 0 {
			q.Kind = KindChoice
		}
	}
	switch q.Kind {
	case KindChoice:
	case KindText, KindConfirm, KindFiles:
		if len(q.Options) > 0 {
			return fmt.Errorf("kind %s takes no options; use kind choice for options", q.Kind)
		}
		if q.MultiSelect {
			return fmt.Errorf("multi_select is for kind choice only, not %s", q.Kind)
		}
		return nil
	default:
		return fmt.Errorf("kind %q is not one of text, confirm, choice, files", q.Kind)
	}
	if n := len(q.Options); n < MinOptions || n > MaxOptions {
		return fmt.Errorf("a choice needs %d to %d options, not %d", MinOptions, MaxOptions, n)
	}
	labels := map[string]bool{}
	for j := range q.Options {
		o := &q.Options[j]
		o.Label = strings.TrimSpace(o.Label)
		if o.Label == "" {
			return fmt.Errorf("option %d has no label", j+1)
		}
		if labels[o.Label] {
			return fmt.Errorf("option %d repeats the label %q", j+1, o.Label)
		}
		labels[o.Label] = true
	}
	return nil
}

// ErrBadAnswer marks an answer that does not fit its questions: the front
// end shows it and asks again (the model never sees it).
var ErrBadAnswer = errors.New("invalid answer")

// CheckAnswer checks a against info's questions and returns it
// normalised (a list answer given as one string becomes a one-item list).
// A declined answer needs nothing else. Otherwise every question needs an
// answer: a label of its options (a list of distinct labels, at least
// one, with MultiSelect), "yes" or "no" for confirm, a string for text, a
// list of non-empty paths for files. Errors wrap [ErrBadAnswer] and name
// the question and the fix.
func CheckAnswer(info InteractionInfo, a InteractionAnswer) (InteractionAnswer, error) {
	if a.ID != "" && a.ID != info.ID {
		return a, fmt.Errorf("%w: the answer is for interaction %q, not %q", ErrBadAnswer, a.ID, info.ID)
	}
	a.ID = info.ID
	if a.Declined {
		a.Answers = nil
		return a, nil
	}
	known := map[string]bool{}
	out := make(map[string]Reply, len(info.Questions))
	for _, q := range info.Questions {
		known[q.Question] = true
		r, ok := a.Answers[q.Question]
		if !ok {
			return a, fmt.Errorf("%w: no answer to %q: answer every question, or decline", ErrBadAnswer, q.Question)
		}
		r, err := checkReply(q, r)
		if err != nil {
			return a, fmt.Errorf("%w: %q: %w", ErrBadAnswer, q.Question, err)
		}
		out[q.Question] = r
	}
	for k := range a.Answers {
		if !known[k] {
			return a, fmt.Errorf("%w: %q is not one of the questions asked", ErrBadAnswer, k)
		}
	}
	a.Answers = out
	return a, nil
}

// checkReply checks one reply against its question.
func checkReply(q Question, r Reply) (Reply, error) {
	if q.Multi() {
		if !r.List {
			r = ListReply(r.Values...)
		}
		if q.Kind == KindFiles {
			for _, p := range r.Values {
				if strings.TrimSpace(p) == "" {
					return r, errors.New("a file path is empty")
				}
			}
			return r, nil
		}
		if len(r.Values) == 0 {
			return r, errors.New("pick at least one option")
		}
		seen := map[string]bool{}
		for _, v := range r.Values {
			if err := q.label(v); err != nil {
				return r, err
			}
			if seen[v] {
				return r, fmt.Errorf("%q is picked twice", v)
			}
			seen[v] = true
		}
		return r, nil
	}
	if r.List || len(r.Values) != 1 {
		return r, errors.New("the answer is one string, not a list")
	}
	switch q.Kind {
	case KindConfirm:
		if v := r.Values[0]; v != ConfirmYes && v != ConfirmNo {
			return r, fmt.Errorf("answer %q or %q, not %q", ConfirmYes, ConfirmNo, v)
		}
	case KindChoice:
		return r, q.label(r.Values[0])
	}
	return r, nil
}

// label checks that v is one of q's option labels.
func (q Question) label(v string) error {
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		if o.Label == v {
			return nil
		}
		labels[i] = fmt.Sprintf("%q", o.Label)
	}
	return fmt.Errorf("%q is not an option; pick one of %s", v, strings.Join(labels, ", "))
}

// ModelText is what the model reads of a checked answer: each question
// with its answer, in the questions' order, or that the user declined.
func (a InteractionAnswer) ModelText(questions []Question) string {
	if a.Declined {
		msg := "The user declined to answer."
		if a.Reason != "" {
			msg = "No answer: " + a.Reason + "."
		}
		return msg + " Decide yourself, state the assumption you made, and go on."
	}
	var b strings.Builder
	b.WriteString("The user answered:")
	for _, q := range questions {
		r := a.Answers[q.Question]
		vals := make([]string, len(r.Values))
		for i, v := range r.Values {
			vals[i] = fmt.Sprintf("%q", v)
		}
		shown := strings.Join(vals, ", ")
		if r.List && len(vals) == 0 {
			shown = "(none)"
		}
		fmt.Fprintf(&b, "\n- %q: %s", q.Question, shown)
	}
	return b.String()
}

const askSchema = `{"type":"object","properties":{"questions":{"type":"array","minItems":1,"maxItems":4,"description":"1 to 4 questions, asked together.","items":{"type":"object","properties":{` +
	`"question":{"type":"string","description":"The full question; the answer is keyed by this text."},` +
	`"header":{"type":"string","description":"A short tag shown above the question (max 12 characters)."},` +
	`"kind":{"type":"string","enum":["choice","confirm","text","files"],"description":"choice: pick from options; confirm: yes/no; text: free text; files: file paths. Default: choice when options are given, else text."},` +
	`"options":{"type":"array","minItems":2,"maxItems":6,"description":"2 to 6 choices (kind choice only).","items":{"type":"object","properties":{"label":{"type":"string"},"description":{"type":"string"}},"required":["label"]}},` +
	`"multi_select":{"type":"boolean","description":"Let the user pick several options (kind choice only)."}},"required":["question"]}}},"required":["questions"]}`

// NoAskerNote is the system prompt's line when no one can answer
// questions during a run (no Asker: headless without --answers, Ralph).
const NoAskerNote = "The user is not available to answer questions during this run: do not ask them anything; decide yourself, state the assumptions you made, and go on."

// askTool is ask_user: the run pauses on an interaction event until the
// engine's Asker answers; the answer is the tool result.
func askTool(r *run) EngineTool {
	return EngineTool{
		Spec: llm.Tool{
			Name: "ask_user",
			Description: "Ask the user 1 to 4 questions and wait for the answers: to clarify an ambiguous request, choose between approaches, confirm a step, or get file paths. " +
				"Offer concrete options for choices. Do not ask what you can find out yourself.",
			Parameters: json.RawMessage(askSchema),
		},
		Call: func(ctx context.Context, c EngineCall, args json.RawMessage) ToolResultInfo {
			return r.askUser(ctx, c.Conversation, c.ID, args)
		},
	}
}

// askUser runs one ask_user call (callID: the model's call id); the
// interaction id is derived from it and a counter of the run.
func (r *run) askUser(ctx context.Context, s *Conversation, callID string, args json.RawMessage) ToolResultInfo {
	qs, err := ParseQuestions(args)
	if err != nil {
		return ToolResultInfo{Error: err.Error(), Category: "validation"}
	}
	r.asked++
	info := InteractionInfo{ID: fmt.Sprintf("ia_%s_%d", callID, r.asked), CallID: callID, Questions: qs}
	r.emit(Event{Type: EventInteraction, SessionID: s.ID, Interaction: &info})
	ans, err := r.e.Asker.Ask(ctx, info)
	if ctx.Err() != nil {
		return ToolResultInfo{Error: "cancelled by the user before it completed", Category: "execution"}
	}
	if err != nil {
		r.emit(Event{Type: EventError, SessionID: s.ID, Error: &ErrorInfo{Message: "could not ask the user: " + err.Error(), Kind: "engine"}})
		return ToolResultInfo{Error: "the question could not be put to the user; decide yourself and go on", Category: "execution"}
	}
	ans, err = CheckAnswer(info, ans)
	if err != nil {
		// The front end should have refused it; the model cannot fix it.
		ans = InteractionAnswer{ID: info.ID, Declined: true, Reason: "the answer given was not valid (" + err.Error() + ")"}
	}
	answered := info
	answered.Answer = &ans
	r.emit(Event{Type: EventInteraction, SessionID: s.ID, Interaction: &answered})
	if ans.Declined {
		return ToolResultInfo{Error: ans.ModelText(qs), Category: "declined"}
	}
	return ToolResultInfo{OK: true, Output: ans.ModelText(qs)}
}
