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

// elicitField is one property of an elicitation's requested schema (flat
// primitives: string, number, integer, boolean, enum).
type elicitField struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Enum        []any  `json:"enum"`
	OneOf       []struct {
		Const any    `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
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
// confirmation of a form without fields) and its choices' values by label.
type elicitAsk struct {
	name  string
	q     agent.Question
	value map[string]any
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
	var schema elicitSchema
	if b, err := json.Marshal(p.RequestedSchema); err == nil {
		_ = json.Unmarshal(b, &schema)
	}
	qs := elicitQuestions(server, p.Message, schema)
	content := map[string]any{}
	for start := 0; start < len(qs); start += agent.MaxQuestions {
		batch := qs[start:min(len(qs), start+agent.MaxQuestions)]
		info := agent.InteractionInfo{ID: fmt.Sprintf("mcp-elicit-%d", elicitSeq.Add(1)), Source: "MCP server " + server}
		for _, a := range batch {
			info.Questions = append(info.Questions, a.q)
		}
		ans, err := asker.ask(ctx, info)
		switch {
		case errors.Is(err, context.Canceled):
			return &sdk.ElicitResult{Action: "cancel"}, nil
		case err != nil:
			return nil, err
		case ans.Declined:
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
		for _, a := range batch {
			r := ans.Answers[a.q.Question]
			if a.name == "" && (len(r.Values) == 0 || r.Values[0] != agent.ConfirmYes) {
				return &sdk.ElicitResult{Action: "decline"}, nil
			}
			if a.name == "" || len(r.Values) == 0 || r.Values[0] == "" {
				continue
			}
			v, err := elicitValue(schema.Properties[a.name], a.value, r.Values[0])
			if err != nil {
				return nil, fmt.Errorf("MCP server %s's field %s: %w", server, a.name, err)
			}
			content[a.name] = v
		}
	}
	return &sdk.ElicitResult{Action: "accept", Content: content}, nil
}

// elicitQuestions turns a form's fields (sorted by name) into questions:
// a choice for an enum of 2 to 6 values, yes/no for a boolean, text
// otherwise; the first names the server and its message. A form without
// fields is one yes/no question.
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

// elicitQuestion is the question of field name.
func elicitQuestion(server, name string, f elicitField, required bool) elicitAsk {
	text := f.Title
	if text == "" {
		text = name
	}
	if f.Description != "" {
		text += ": " + f.Description
	}
	if !required {
		text += " (optional: leave empty to skip)"
	}
	a := elicitAsk{name: name, q: agent.Question{Question: text, Header: "MCP " + server, Kind: agent.KindText}, value: map[string]any{}}
	var opts []agent.Option
	for _, e := range f.Enum {
		l := fmt.Sprint(e)
		opts = append(opts, agent.Option{Label: l})
		a.value[l] = e
	}
	for _, o := range f.OneOf {
		l := o.Title
		if l == "" {
			l = fmt.Sprint(o.Const)
		}
		opts = append(opts, agent.Option{Label: l})
		a.value[l] = o.Const
	}
	switch {
	case len(opts) >= agent.MinOptions && len(opts) <= agent.MaxOptions:
		a.q.Kind, a.q.Options = agent.KindChoice, opts
	case len(opts) > 0:
		labels := make([]string, len(opts))
		for i, o := range opts {
			labels[i] = o.Label
		}
		a.q.Question += " (one of: " + strings.Join(labels, ", ") + ")"
	case f.Type == "boolean":
		a.q.Kind = agent.KindConfirm
	case f.Type == "number" || f.Type == "integer":
		a.q.Question += " (a number)"
	}
	return a
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
