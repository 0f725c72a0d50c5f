package streamjson

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/zelvior/aidex/internal/agent"
)

// The schema files Schemas returns, as written to docs/schema/.
const (
	InputSchemaFile  = "stream-json-input.schema.json"
	OutputSchemaFile = "stream-json-output.schema.json"
	// ClaudeSchemaFile describes --stream-dialect claude's lines.
	ClaudeSchemaFile = "stream-json-claude-output.schema.json"
)

// schemaBase is the $id prefix of the schema files.
const schemaBase = "https://github.com/zelvior/aidex/blob/main/docs/schema/"

// Schemas returns the JSON Schema (draft 2020-12) files of both
// directions, file name → indented JSON: the input messages (one of
// user, approval, interaction, interrupt), the output events
// (agent.Event) and the lines of the Claude dialect (one of system,
// assistant or user, result). Errors: a type the schema inference cannot
// represent.
func Schemas() (map[string][]byte, error) {
	in, err := inputSchema()
	if err != nil {
		return nil, err
	}
	out, err := outputSchema()
	if err != nil {
		return nil, err
	}
	claude, err := claudeSchema()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for name, s := range map[string]*jsonschema.Schema{InputSchemaFile: in, OutputSchemaFile: out, ClaudeSchemaFile: claude} {
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", name, err)
		}
		files[name] = append(data, '\n')
	}
	return files, nil
}

// outputSchema is the schema of the output events (agent.Event).
func outputSchema() (*jsonschema.Schema, error) {
	out, err := jsonschema.For[agent.Event](forOptions())
	if err != nil {
		return nil, fmt.Errorf("infer the output schema: %w", err)
	}
	out.Properties["type"].Enum = eventTypes()
	out.Schema = "https://json-schema.org/draft/2020-12/schema"
	out.ID = schemaBase + OutputSchemaFile
	out.Title = "aidex stream-json output event"
	out.Description = "One line of aidex --output-format stream-json: an engine event. type selects the field that is set (see docs/headless.md, the event stream)."
	return out, nil
}

func inputSchema() (*jsonschema.Schema, error) {
	all := &jsonschema.Schema{
		Schema:      "https://json-schema.org/draft/2020-12/schema",
		ID:          schemaBase + InputSchemaFile,
		Title:       "aidex stream-json input message",
		Description: "One line a program writes to aidex --input-format stream-json: a user turn, the answer to an approval or interaction event, or an interrupt.",
	}
	for typ, v := range map[InputType]reflect.Type{
		InputUser: reflect.TypeFor[UserInput](), InputApproval: reflect.TypeFor[ApprovalInput](),
		InputInteraction: reflect.TypeFor[InteractionInput](), InputInterrupt: reflect.TypeFor[InterruptInput](),
	} {
		s, err := jsonschema.ForType(v, forOptions())
		if err != nil {
			return nil, fmt.Errorf("infer the %s input schema: %w", typ, err)
		}
		s.Title = string(typ)
		s.Properties["type"].Const = jsonschema.Ptr[any](string(typ))
		s.AdditionalProperties = nil // Claude Code's messages carry more fields (session_id, ...)
		if typ == InputApproval {
			s.Properties["decision"].Enum = []any{string(agent.AnswerOnce), string(agent.AnswerSession), string(agent.AnswerAlways), string(agent.AnswerDeny)}
		}
		all.OneOf = append(all.OneOf, s)
	}
	sortByTitle(all.OneOf)
	return all, nil
}

func claudeSchema() (*jsonschema.Schema, error) {
	all := &jsonschema.Schema{
		Schema:      "https://json-schema.org/draft/2020-12/schema",
		ID:          schemaBase + ClaudeSchemaFile,
		Title:       "aidex stream-json output line, Claude dialect",
		Description: "One line of aidex --output-format stream-json --stream-dialect claude, as claude -p --output-format stream-json writes it: system (init, first), assistant or user (a model message; tool results), result (last of each run).",
	}
	for _, c := range []struct {
		title string
		types []any
		t     reflect.Type
	}{
		{"system", []any{"system"}, reflect.TypeFor[ClaudeSystem]()},
		{"assistant or user", []any{"assistant", "user"}, reflect.TypeFor[ClaudeMessageLine]()},
		{"result", []any{"result"}, reflect.TypeFor[ClaudeResult]()},
	} {
		s, err := jsonschema.ForType(c.t, forOptions())
		if err != nil {
			return nil, fmt.Errorf("infer the Claude %s line schema: %w", c.title, err)
		}
		s.Title = c.title
		s.Properties["type"].Enum = c.types
		all.OneOf = append(all.OneOf, s)
	}
	return all, nil
}

func sortByTitle(list []*jsonschema.Schema) {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && list[j].Title < list[j-1].Title; j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

// forOptions maps the types with their own JSON encoding to their schema.
func forOptions() *jsonschema.ForOptions {
	str := &jsonschema.Schema{Type: "string"}
	reply := &jsonschema.Schema{OneOf: []*jsonschema.Schema{str, {Type: "array", Items: &jsonschema.Schema{Type: "string"}}}}
	block, err := jsonschema.For[ContentBlock](nil)
	if err != nil {
		block = &jsonschema.Schema{Type: "object"}
	}
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
		reflect.TypeFor[agent.Reply]():     reply,
		reflect.TypeFor[Content]():         {OneOf: []*jsonschema.Schema{str, {Type: "array", Items: block}}},
	}}
}

// eventTypes lists the event types the output carries.
func eventTypes() []any {
	var list []any
	for _, t := range []agent.EventType{agent.EventSession, agent.EventWaiting, agent.EventText, agent.EventReasoning, agent.EventToolCall,
		agent.EventApproval, agent.EventInteraction, agent.EventProgress, agent.EventToolResult, agent.EventUsage, agent.EventBudget, agent.EventTodos, agent.EventNotice,
		agent.EventError, agent.EventDone} {
		list = append(list, string(t))
	}
	return list
}
