package agent

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/textcall"
)

// textCalls returns the tool calls a model wrote as text (Hermes JSON,
// Qwen3 XML, the lazy form; with Config.CommandBlocks also %%CMD%%
// blocks) in an answer without native calls. Tool-name aliases type
// their values by the real tool's schema when Tools is a Canonicalizer. Calls that
// could not be parsed come back with ArgsError set, so the model is told
// how to write them. The ids are made up, "text_<12 hex digits>_<n>",
// and unique in the session: two runs on one session (the models of a
// sequential multi-model turn, say) never reuse one, so hooks and the
// store tell their calls apart.
func (r *run) textCalls(text string) []llm.ToolCall {
	if !textcall.Contains(text) {
		return nil
	}
	var nonce [6]byte
	_, _ = rand.Read(nonce[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	prefix := "text_" + hex.EncodeToString(nonce[:])
	specs := r.specs()
	tools := make([]textcall.Tool, len(specs))
	for i, s := range specs {
		tools[i] = textcall.Tool{Name: s.Name, Schema: s.Parameters}
	}
	opts := textcall.Options{Commands: r.cfg.CommandBlocks}
	if c, ok := r.tools.(Canonicalizer); ok {
		opts.Canonical = c.Canonical
	}
	res := textcall.ParseWith(text, tools, opts)
	var calls []llm.ToolCall
	for _, c := range res.Calls {
		args, argErr := llm.NormalizeArguments(c.Arguments)
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("%s_%d", prefix, len(calls)+1), Name: c.Name, Arguments: args, ArgsError: argErr})
	}
	for _, e := range res.Errors {
		name := e.Name
		if name == "" {
			name = "unparsed_tool_call"
		}
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("%s_%d", prefix, len(calls)+1), Name: name, Arguments: []byte("{}"), ArgsError: e.Error()})
	}
	return calls
}

// Canonicalizer is an optional interface of Tools: Canonical returns the
// name of the offered tool that name stands for (an alias such as
// run_shell_command, or a seed tool name served by another tool), or ""
// when it stands for none.
type Canonicalizer interface {
	Canonical(name string) string
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
