package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

// subagentRoute scripts a parent that starts the reviewer subagent: the
// child (told apart by its system prompt) answers at once.
func subagentRoute(body []byte, _ int) llmtest.Turn {
	s := string(body)
	switch {
	case strings.Contains(s, "You are REVIEWER-9") && strings.Contains(s, `"role":"tool"`):
		return llmtest.Turn{Text: "child says LGTM"}
	case strings.Contains(s, "You are REVIEWER-9"):
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"main.go"}`}}}
	case strings.Contains(s, `"role":"tool"`):
		return llmtest.Turn{Text: "parent final answer"}
	}
	args, _ := json.Marshal(map[string]string{"description": "review", "prompt": "review it", "subagent_type": "reviewer"})
	return llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: string(args)}}}
}

func newSubagentE2E(t *testing.T) *e2e {
	srv := llmtest.NewScript(t)
	srv.Route = subagentRoute
	e := newE2E(t, srv, "openai", "")
	e.write("main.go", "package main\n")
	e.write(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, WebSearch\n---\nYou are REVIEWER-9.\n")
	r := e.run(context.Background(), "trust")
	require.Equal(t, 0, r.code, r.stderr)
	return e
}

// stream-json prints the subagent's events with parent_tool_call_id and
// its label; the text output's answer is the parent's only.
func TestSubagentStreamJSONCarriesParentToolCallID(t *testing.T) {
	e := newSubagentE2E(t)
	r := e.run(context.Background(), "-p", "review my code", "--output-format", "stream-json")
	require.Equal(t, 0, r.code, r.stderr)
	var taskID string
	var child []map[string]any
	for _, ev := range events(t, r.stdout) {
		if tc, ok := ev["tool_call"].(map[string]any); ok && tc["name"] == "task" {
			taskID = tc["id"].(string)
		}
		if ev["parent_tool_call_id"] != nil {
			child = append(child, ev)
		}
	}
	require.NotEmpty(t, taskID)
	require.NotEmpty(t, child)
	types := map[string]bool{}
	for _, ev := range child {
		require.Equal(t, taskID, ev["parent_tool_call_id"])
		require.Equal(t, "reviewer: review", ev["subagent"])
		types[ev["type"].(string)] = true
	}
	require.True(t, types["text"] && types["usage"] && types["done"], "child events: %v", types)

	r = e.run(context.Background(), "-p", "review again")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "parent final answer", strings.TrimSpace(r.stdout), "the child's text is not the answer")

	r = e.run(context.Background(), "-p", "review once more", "--output-format", "json")
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	require.Equal(t, "parent final answer", res["result"])
	require.Len(t, res["tool_calls"], 1, "the child's calls are not the parent's")
	subs := res["subagents"].([]any)
	require.Len(t, subs, 1)
	sub := subs[0].(map[string]any)
	require.Equal(t, "reviewer: review", sub["subagent"])
	require.EqualValues(t, 1, sub["tool_calls"])
	require.EqualValues(t, 200, sub["usage"].(map[string]any)["input_tokens"])
	sessions := e.run(context.Background(), "sessions", "list", "--json")
	require.Contains(t, sessions.stdout, res["session_id"].(string), "the session id is the parent's")
}

func TestAgentsList(t *testing.T) {
	e := newSubagentE2E(t)
	e.write(".claude/agents/team/validator.md", "---\nname: validator\ndescription: Read-only check\ndisallowedTools: Write, Edit\n---\nCheck.\n")
	r := e.run(context.Background(), "agents", "list")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 5)
	require.Regexp(t, `^validator\s+\S+team/validator\.md\s+all \(not: write_file,edit_file,\S+\)\s+inherit$`, lines[4], "an agent in a subfolder, its disallowedTools")
	require.Regexp(t, `^NAME\s+SOURCE\s+TOOLS\s+MODEL$`, lines[0])
	require.Regexp(t, `^explore\s+built-in\s+read-only\s+inherit$`, lines[1])
	require.Regexp(t, `^general\s+built-in\s+all\s+inherit$`, lines[2])
	require.Regexp(t, `^reviewer\s+\S+reviewer\.md\s+read_file,grep \(ignored: WebSearch\)\s+inherit$`, lines[3])

	r = e.run(context.Background(), "agents", "list", "--json")
	var rows []agentRow
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rows))
	require.Equal(t, filepath.Join(e.ws, ".claude", "agents", "reviewer.md"), rows[2].Source)

	// An untrusted folder's agents are not read, and the command says so.
	require.NoError(t, os.Remove(filepath.Join(e.home, ".local", "state", "aidex", "trusted.json")))
	r = e.run(context.Background(), "agents", "list")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout, "reviewer")
	require.Contains(t, r.stderr, "not trusted")
}

// Ralph's progress shows a subagent's tool calls, not its text.
func TestRalphPrinterSubagentEvents(t *testing.T) {
	var out strings.Builder
	p := newRalphPrinter(&out, false)
	child := func(e agent.Event) {
		e.ParentToolCallID, e.Subagent = "t1", "explore: x"
		p.event(ralph.Event{Agent: &e})
	}
	child(agent.Event{Type: agent.EventText, Text: "CHILD TEXT"})
	child(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{Name: "grep", Arguments: json.RawMessage(`{}`)}})
	p.event(ralph.Event{Agent: &agent.Event{Type: agent.EventDone}})
	require.NotContains(t, out.String(), "CHILD TEXT")
	require.Contains(t, out.String(), "> grep")
}
