package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/agent"
)

// elicitSeq numbers the interactions of MCP elicitations.
var elicitSeq atomic.Int64

// elicitConst is one titled value of an enum: oneOf (single select) or
// items.anyOf (multi select) of an elicitation field.
type elicitConst struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// elicitField is one property of an elicitation's requested schema (flat
// primitives: string, number, integer, boolean, enum; an array of enum
// values is a multi select, SEP-1330). Default is the value the form
// starts with (SEP-1034): an answer left empty gives it.
type elicitField struct {
	Type        string        `json:"type"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Enum        []any         `json:"enum"`
	EnumNames   []string      `json:"enumNames"`
	OneOf       []elicitConst `json:"oneOf"`
	Items       *struct {
		Enum  []any         `json:"enum"`
		AnyOf []elicitConst `json:"anyOf"`
	} `json:"items"`
	Default any `json:"default"`
}

// elicitTarget is who answers the MCP servers' elicitations while a run
// goes on: the session's Asker, and the run's emit (serialised with its
// events) and session, which show the form request as an interaction event.
type elicitTarget struct {
	asker   agent.Asker
	session string
	emit    func(agent.Event)
}

// askerTo makes asker answer the MCP servers' elicitations while a run of
// session goes on, their interaction events sent to emit (asker nil: no
// one can answer); restore ends it.
func (s *Service) askerTo(asker agent.Asker, session string, emit func(agent.Event)) (restore func()) {
	s.mcp.mu.Lock()
	prev := s.mcp.asker
	s.mcp.asker = nil
	if asker != nil {
		s.mcp.asker = &elicitTarget{asker: asker, session: session, emit: emit}
	}
	s.mcp.mu.Unlock()
	return func() {
		s.mcp.mu.Lock()
		s.mcp.asker = prev
		s.mcp.mu.Unlock()
	}
}

// ask puts info to the user as ask_user's questions are: an interaction
// event (the web UI's form and a stream-json program get the questions
// from it), the Asker's answer, then the event with the answer.
func (t *elicitTarget) ask(ctx context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	t.emit(agent.Event{Type: agent.EventInteraction, SessionID: t.session, Interaction: &info})
	ans, err := t.asker.Ask(ctx, info)
	if err != nil {
		return ans, err
	}
	answered := info
	answered.Answer = &ans
	t.emit(agent.Event{Type: agent.EventInteraction, SessionID: t.session, Interaction: &answered})
	return ans, nil
}

// elicitSchema is an elicitation's requested schema.
type elicitSchema struct {
	Properties map[string]elicitField `json:"properties"`
	Required   []string               `json:"required"`
}

// elicitAsk is one question of an elicitation: the field it fills ("": a
// confirmation of a form without fields), its choices' values by label,
// whether it is a multi select (the answer is a list) and, once asked
// again, its first text.
type elicitAsk struct {
	name  string
	q     agent.Question
	value map[string]any
	multi bool
	// base is the question's first text, before a retry's reason.
	base string
}

// mcpElicit answers MCP server server's form request: its fields become
// questions of the running session's Asker (the terminal UI, the line mode,
// the web UI show them as they show ask_user's), the first naming the server
// and its message; the answers become the form's content. Without an Asker
// (headless runs, Ralph) the request is refused with the reason; a URL
// request is declined.
func (s *Service) mcpElicit(ctx context.Context, server string, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	s.mcp.mu.Lock()
	asker := s.mcp.asker
	s.mcp.mu.Unlock()
	if asker == nil {
		return nil, fmt.Errorf("MCP server %s asked the user for input (%q), but no one can answer during this run (headless or unattended): refused", server, p.Message)
	}
	if p.Mode == "url" {
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	return elicitForm(ctx, asker.ask, server, p)
}

// elicitTries is how many times a form's field is asked before the form
// is declined: a required field left empty, or an answer not of the
// field's type, is asked again with the reason.
const elicitTries = 3

// elicitForm puts p's form to ask, at most agent.MaxQuestions questions at
// a time, and returns the server's result: accept with the content typed
// as the schema says (a field left empty is its default, or left out),
// decline, or cancel when ctx ended.
func elicitForm(ctx context.Context, ask func(context.Context, agent.InteractionInfo) (agent.InteractionAnswer, error),
	server string, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	var schema elicitSchema
	if b, err := json.Marshal(p.RequestedSchema); err == nil {
		_ = json.Unmarshal(b, &schema)
	}
	qs := elicitQuestions(server, p.Message, schema)
	content := map[string]any{}
	for start := 0; start < len(qs); start += agent.MaxQuestions {
		batch := qs[start:min(len(qs), start+agent.MaxQuestions)]
		for try := 1; len(batch) > 0; try++ {
			if try > elicitTries {
				return &sdk.ElicitResult{Action: "decline"}, nil
			}
			info := agent.InteractionInfo{ID: fmt.Sprintf("mcp-elicit-%d", elicitSeq.Add(1)), Source: "MCP server " + server}
			for _, a := range batch {
				info.Questions = append(info.Questions, a.q)
			}
			ans, err := ask(ctx, info)
			switch {
			case errors.Is(err, context.Canceled):
				return &sdk.ElicitResult{Action: "cancel"}, nil
			case err != nil:
				return nil, err
			case ans.Declined:
				return &sdk.ElicitResult{Action: "decline"}, nil
			}
			var declined bool
			if batch, declined = elicitAnswers(schema, batch, ans, content); declined {
				return &sdk.ElicitResult{Action: "decline"}, nil
			}
		}
	}
	return &sdk.ElicitResult{Action: "accept", Content: content}, nil
}

// elicitAnswers puts the answers of batch's questions into content and
// returns the questions to ask again (a required field left empty, an
// answer not of the field's type), each with the reason first; declined
// when the confirmation of a form without fields was not yes.
func elicitAnswers(schema elicitSchema, batch []elicitAsk, ans agent.InteractionAnswer, content map[string]any) (again []elicitAsk, declined bool) {
	for _, a := range batch {
		r := ans.Answers[a.q.Question]
		if a.name == "" {
			if len(r.Values) == 0 || r.Values[0] != agent.ConfirmYes {
				return nil, true
			}
			continue
		}
		f := schema.Properties[a.name]
		if len(r.Values) == 0 || (len(r.Values) == 1 && strings.TrimSpace(r.Values[0]) == "") {
			switch {
			case f.Default != nil:
				content[a.name] = f.Default
			case slices.Contains(schema.Required, a.name):
				again = append(again, a.retry("an answer is required"))
			}
			continue
		}
		v, err := a.answer(f, r.Values)
		if err != nil {
			again = append(again, a.retry(err.Error()))
			continue
		}
		content[a.name] = v
	}
	return again, false
}

// retry is a's question asked again for reason (its first line says so;
// the reason of an earlier try is replaced).
func (a elicitAsk) retry(reason string) elicitAsk {
	if a.base == "" {
		a.base = a.q.Question
	}
	a.q.Question = "(" + reason + ") " + a.base
	return a
}

// elicitQuestions turns a form's fields (sorted by name) into questions:
// a choice for an enum of 2 to 6 values (several for an array of them),
// yes/no for a boolean, text otherwise; the first names the server and its
// message. A form without fields is one yes/no question.
func elicitQuestions(server, message string, schema elicitSchema) []elicitAsk {
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	var qs []elicitAsk
	for _, n := range names {
		qs = append(qs, elicitQuestion(server, n, schema.Properties[n], slices.Contains(schema.Required, n)))
	}
	if len(qs) == 0 {
		qs = append(qs, elicitAsk{q: agent.Question{Question: "Accept?", Header: "MCP " + server, Kind: agent.KindConfirm}})
	}
	qs[0].q.Question = fmt.Sprintf("MCP server %s asks: %s", server, message) + "\n" + qs[0].q.Question
	return qs
}

// defaultMark ends the label of an option that is the field's default.
const defaultMark = " (default)"

// elicitOptions are field f's choices in the schema's order: enum (labelled
// by enumNames when it has one per value), oneOf, an array's items.enum or
// items.anyOf (multi: true), or yes and no for a boolean with a default.
// A choice that is the default, or one of them, is labelled so.
func elicitOptions(f elicitField) (labels []string, values []any, multi bool) {
	add := func(label string, v any) {
		labels, values = append(labels, label), append(values, v)
	}
	titled := func(cs []elicitConst) {
		for _, c := range cs {
			l := c.Title
			if l == "" {
				l = fmt.Sprint(c.Const)
			}
			add(l, c.Const)
		}
	}
	plain := func(vs []any, names []string) {
		for i, v := range vs {
			l := fmt.Sprint(v)
			if len(names) == len(vs) && names[i] != "" {
				l = names[i]
			}
			add(l, v)
		}
	}
	plain(f.Enum, f.EnumNames)
	titled(f.OneOf)
	if f.Type == "array" && f.Items != nil {
		multi = true
		plain(f.Items.Enum, nil)
		titled(f.Items.AnyOf)
	}
	if f.Type == "boolean" && f.Default != nil && len(labels) == 0 {
		add(agent.ConfirmYes, true)
		add(agent.ConfirmNo, false)
	}
	defaults := []any{f.Default}
	if d, ok := f.Default.([]any); ok {
		defaults = d
	}
	for i, v := range values {
		if f.Default != nil && slices.ContainsFunc(defaults, func(d any) bool { return fmt.Sprint(d) == fmt.Sprint(v) }) {
			labels[i] += defaultMark
		}
	}
	return labels, values, multi
}

// elicitQuestion is the question of field name.
func elicitQuestion(server, name string, f elicitField, required bool) elicitAsk {
	text := f.Title
	if text == "" {
		text = name
	}
	if f.Description != "" {
		text += ": " + f.Description
	}
	a := elicitAsk{name: name, q: agent.Question{Question: text, Header: "MCP " + server, Kind: agent.KindText}, value: map[string]any{}}
	labels, values, multi := elicitOptions(f)
	a.multi = multi
	for i, l := range labels {
		a.value[l] = values[i]
	}
	switch {
	case len(labels) >= agent.MinOptions && len(labels) <= agent.MaxOptions:
		a.q.Kind, a.q.MultiSelect = agent.KindChoice, multi
		for _, l := range labels {
			a.q.Options = append(a.q.Options, agent.Option{Label: l})
		}
	case len(labels) > 0 && multi:
		a.q.Question += " (any of: " + strings.Join(labels, ", ") + "; separated by commas)"
	case len(labels) > 0:
		a.q.Question += " (one of: " + strings.Join(labels, ", ") + ")"
	case f.Type == "boolean":
		a.q.Kind = agent.KindConfirm
	case f.Type == "number" || f.Type == "integer":
		a.q.Question += " (a number)"
	}
	switch {
	case f.Default != nil && a.q.Kind == agent.KindText:
		a.q.Question += fmt.Sprintf(" (default: %v; leave empty for it)", f.Default)
	case !required && a.q.Kind == agent.KindText:
		a.q.Question += " (optional: leave empty to skip)"
	}
	return a
}

// answer turns the reply to a's question (its values: one, or the picks
// of a multi select) into the field's JSON type.
func (a elicitAsk) answer(f elicitField, values []string) (any, error) {
	if !a.multi {
		return elicitValue(f, a.value, values[0])
	}
	if len(values) == 1 && a.q.Kind == agent.KindText {
		values = strings.Split(values[0], ",")
	}
	out := []any{}
	for _, v := range values {
		v = strings.TrimSpace(v)
		switch x, ok := a.value[v]; {
		case ok:
			out = append(out, x)
		case v != "":
			out = append(out, v)
		}
	}
	return out, nil
}

// elicitValue turns an answer into the field's JSON type.
func elicitValue(f elicitField, choices map[string]any, answer string) (any, error) {
	if v, ok := choices[answer]; ok {
		return v, nil
	}
	switch f.Type {
	case "boolean":
		return answer == agent.ConfirmYes, nil
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(answer), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", answer)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(strings.TrimSpace(answer), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", answer)
		}
		return n, nil
	}
	return answer, nil
}
