package agent

import (
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/textcall"
)

// textCalls returns the tool calls a model wrote as text (Hermes JSON,
// Qwen3 XML, the lazy form) in an answer without native calls. Calls that
// could not be parsed come back with ArgsError set, so the model is told
// how to write them. The ids are made up: "text_<turn>_<n>".
func (r *run) textCalls(text string) []llm.ToolCall {
	if !textcall.Contains(text) {
		return nil
	}
	specs := r.specs()
	tools := make([]textcall.Tool, len(specs))
	for i, s := range specs {
		tools[i] = textcall.Tool{Name: s.Name, Schema: s.Parameters}
	}
	res := textcall.Parse(text, tools)
	var calls []llm.ToolCall
	for _, c := range res.Calls {
		args, argErr := llm.NormalizeArguments(c.Arguments)
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("text_%d_%d", r.turns, len(calls)+1), Name: c.Name, Arguments: args, ArgsError: argErr})
	}
	for _, e := range res.Errors {
		name := e.Name
		if name == "" {
			name = "unparsed_tool_call"
		}
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("text_%d_%d", r.turns, len(calls)+1), Name: name, Arguments: []byte("{}"), ArgsError: e.Error()})
	}
	return calls
}

// textResults renders tool results for a model that calls tools in text:
// one <tool_response> block per call, in a user message.
func textResults(results []llm.ToolResult) llm.Message {
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "<tool_response name=%q>\n%s\n</tool_response>\n", r.Name, r.Content)
	}
	return llm.UserText(strings.TrimRight(b.String(), "\n"))
}
