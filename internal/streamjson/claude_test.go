package streamjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// claudeLines decodes the writer's output, one JSON object a line.
func claudeLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var list []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad line %q: %v", l, err)
		}
		list = append(list, m)
	}
	return list
}

// fakeClock advances a second on every reading.
func fakeClock() func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func textEv(s string) agent.Event {
	return agent.Event{Type: agent.EventText, SessionID: "s1", Text: s, Model: "anthropic/claude-x"}
}

func callEv(id, name, args, parent string) agent.Event {
	return agent.Event{Type: agent.EventToolCall, SessionID: "s1", ToolCall: &agent.ToolCallInfo{ID: id, Name: name, Arguments: json.RawMessage(args)},
		ParentToolCallID: parent, Model: "anthropic/claude-x"}
}

func resultEv(id, name, out string, ok bool, parent string) agent.Event {
	r := &agent.ToolResultInfo{ID: id, Name: name, OK: ok, Output: out}
	if !ok {
		r.Output, r.Error = "", out
	}
	return agent.Event{Type: agent.EventToolResult, SessionID: "s1", ToolResult: r, ParentToolCallID: parent}
}

func waitEv(parent string) agent.Event {
	return agent.Event{Type: agent.EventWaiting, SessionID: "s1", Waiting: &agent.WaitingInfo{}, ParentToolCallID: parent}
}

func usageEv(in, out int) agent.Event {
	return agent.Event{Type: agent.EventUsage, SessionID: "s1", Usage: &agent.UsageInfo{Turn: llm.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: 3}}}
}

var sessionEv = agent.Event{Type: agent.EventSession, SessionID: "s1", Session: &agent.SessionInfo{ID: "s1", Model: "claude-x", Workspace: "/ws"}}

// TestClaudeWriterRun writes a run with text, a command, a denied edit, a
// subagent and a final answer, and checks every line as Claude Code
// writes it: the types in order, and the fields of each.
func TestClaudeWriterRun(t *testing.T) {
	lines := claudeRun(t)
	checkClaudeInit(t, lines[0])
	checkClaudeMessages(t, lines)
	checkClaudeResult(t, lines[9])
}

// claudeRun writes the run of TestClaudeWriterRun and checks the types
// of its lines.
func claudeRun(t *testing.T) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	w := NewClaudeWriter(&buf, ClaudeInit{CWD: "/ws", Model: "claude-x", Tools: []string{"run_command", "read_file", "edit_file", "task", "mcp__gh__issue", "todo_write"},
		PermissionMode: "auto-edit"}, fakeClock())
	for _, e := range []agent.Event{
		sessionEv,
		waitEv(""), textEv("Let me "), textEv("look."), usageEv(10, 5),
		callEv("c1", "run_command", `{"command":"ls"}`, ""), resultEv("c1", "run_command", "a.go\n", true, ""),
		waitEv(""), callEv("c2", "edit_file", `{"path":"a.go","old_string":"x","new_string":"y"}`, ""), callEv("c3", "task", `{"description":"d","prompt":"p","subagent_type":"explore"}`, ""),
		{Type: agent.EventToolResult, SessionID: "s1", ToolResult: &agent.ToolResultInfo{ID: "c2", Name: "edit_file", Error: "denied by the rule", Denial: &agent.DenialInfo{Tool: "edit_file"}}},
		waitEv("c3"), {Type: agent.EventText, SessionID: "s1", Text: "sub answer", ParentToolCallID: "c3"}, callEv("k1", "read_file", `{"path":"a.go"}`, "c3"), resultEv("k1", "read_file", "package a", true, "c3"),
		resultEv("c3", "task", "sub answer", true, ""),
		waitEv(""), textEv("Done."), usageEv(20, 7),
		{Type: agent.EventDone, SessionID: "s1", Done: &agent.DoneInfo{StopReason: agent.StopDone, Turns: 3, Result: "Done.", CostUSD: 0.25, Usage: llm.Usage{InputTokens: 30, OutputTokens: 12}}},
	} {
		w.Event(e)
	}
	w.Result(&agent.DoneInfo{StopReason: agent.StopDone, Turns: 3, Result: "Done.", CostUSD: 0.25, Usage: llm.Usage{InputTokens: 30, OutputTokens: 12}}, "Done.", nil)
	lines := claudeLines(t, buf.String())
	var types []string
	for _, l := range lines {
		types = append(types, l["type"].(string))
	}
	want := "system,assistant,user,assistant,user,assistant,user,user,assistant,result"
	if strings.Join(types, ",") != want {
		t.Fatalf("line types %s, want %s\n%s", strings.Join(types, ","), want, buf.String())
	}
	return lines
}

func checkClaudeInit(t *testing.T, init map[string]any) {
	t.Helper()
	for k, v := range map[string]any{"subtype": "init", "cwd": "/ws", "session_id": "s1", "model": "claude-x", "permissionMode": "acceptEdits"} {
		if init[k] != v {
			t.Errorf("init %s = %v, want %v", k, init[k], v)
		}
	}
	if got := mustJSON(t, init["tools"]); got != `["Bash","Read","Edit","Task","mcp__gh__issue","TodoWrite"]` {
		t.Errorf("init tools %s", got)
	}
}

func checkClaudeMessages(t *testing.T, lines []map[string]any) {
	t.Helper()
	first := lines[1]
	msg := first["message"].(map[string]any)
	if first["parent_tool_use_id"] != nil || first["session_id"] != "s1" || msg["role"] != "assistant" || msg["type"] != "message" || msg["model"] != "claude-x" ||
		!strings.HasPrefix(msg["id"].(string), "msg_") {
		t.Errorf("assistant line %v", first)
	}
	if _, ok := msg["stop_reason"]; !ok {
		t.Errorf("assistant message without stop_reason: %v", msg)
	}
	if got := mustJSON(t, msg["content"]); got != `[{"text":"Let me look.","type":"text"},{"id":"c1","input":{"command":"ls"},"name":"Bash","type":"tool_use"}]` {
		t.Errorf("first message content %s", got)
	}
	if got := mustJSON(t, msg["usage"]); got != `{"cache_creation_input_tokens":0,"cache_read_input_tokens":3,"input_tokens":10,"output_tokens":5}` {
		t.Errorf("usage %s", got)
	}
	user := lines[2]["message"].(map[string]any)
	if got := mustJSON(t, user); got != `{"content":[{"content":"a.go\n","is_error":false,"tool_use_id":"c1","type":"tool_result"}],"role":"user"}` {
		t.Errorf("user line %s", got)
	}
	second := lines[3]["message"].(map[string]any)
	if got := mustJSON(t, second["content"]); got != `[{"id":"c2","input":{"file_path":"/ws/a.go","new_string":"y","old_string":"x"},"name":"Edit","type":"tool_use"},{"id":"c3","input":{"description":"d","prompt":"p","subagent_type":"explore"},"name":"Task","type":"tool_use"}]` {
		t.Errorf("second message content %s", got)
	}
	denied := lines[4]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	if denied["is_error"] != true || denied["content"] != "denied by the rule" {
		t.Errorf("denied result %v", denied)
	}
	for _, i := range []int{5, 6} { // the subagent's lines
		if lines[i]["parent_tool_use_id"] != "c3" {
			t.Errorf("subagent line %d: parent_tool_use_id %v", i, lines[i]["parent_tool_use_id"])
		}
	}
	if lines[7]["parent_tool_use_id"] != nil {
		t.Errorf("the task's result is the main session's: %v", lines[7])
	}
	last := lines[8]["message"].(map[string]any)
	if last["id"] == msg["id"] || mustJSON(t, last["content"]) != `[{"text":"Done.","type":"text"}]` {
		t.Errorf("last message %v", last)
	}
}

func checkClaudeResult(t *testing.T, res map[string]any) {
	t.Helper()
	for k, v := range map[string]any{"subtype": "success", "is_error": false, "result": "Done.", "session_id": "s1", "num_turns": 3.0, "total_cost_usd": 0.25} {
		if res[k] != v {
			t.Errorf("result %s = %v, want %v", k, res[k], v)
		}
	}
	if res["duration_ms"].(float64) <= 0 || res["duration_api_ms"].(float64) <= 0 {
		t.Errorf("durations %v %v", res["duration_ms"], res["duration_api_ms"])
	}
	if got := mustJSON(t, res["permission_denials"]); got != `[{"tool_input":{"file_path":"/ws/a.go","new_string":"y","old_string":"x"},"tool_name":"Edit","tool_use_id":"c2"}]` {
		t.Errorf("permission_denials %s", got)
	}
	if got := mustJSON(t, res["usage"]); got != `{"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"input_tokens":30,"output_tokens":12}` {
		t.Errorf("result usage %s", got)
	}
	if _, ok := res["errors"]; ok {
		t.Errorf("a success has no errors: %v", res)
	}
}

// TestClaudeSubtypes: every way a run ends maps to Claude's subtype and
// is_error; a second run writes no second init line.
func TestClaudeSubtypes(t *testing.T) {
	cases := []struct {
		d       *agent.DoneInfo
		err     error
		subtype string
	}{
		{&agent.DoneInfo{StopReason: agent.StopDone}, nil, "success"},
		{&agent.DoneInfo{StopReason: agent.StopMarker}, nil, "success"},
		{&agent.DoneInfo{StopReason: agent.StopDone, Denials: 2}, nil, "success"},
		{&agent.DoneInfo{StopReason: agent.StopMaxTurns}, nil, "error_max_turns"},
		{&agent.DoneInfo{StopReason: agent.StopBudget}, nil, "error_max_budget_usd"},
		{&agent.DoneInfo{StopReason: agent.StopLoop}, nil, "error_during_execution"},
		{&agent.DoneInfo{StopReason: agent.StopError}, nil, "error_during_execution"},
		{&agent.DoneInfo{StopReason: agent.StopCancelled}, errors.New("cancelled"), "error_during_execution"},
		{nil, errors.New("provider down"), "error_during_execution"},
	}
	var buf bytes.Buffer
	w := NewClaudeWriter(&buf, ClaudeInit{}, fakeClock())
	for _, c := range cases {
		w.Event(sessionEv)
		w.Result(c.d, "", c.err)
	}
	lines := claudeLines(t, buf.String())
	if len(lines) != len(cases)+1 || lines[0]["type"] != "system" {
		t.Fatalf("%d lines, want one init and %d results:\n%s", len(lines), len(cases), buf.String())
	}
	for i, c := range cases {
		res := lines[i+1]
		if res["subtype"] != c.subtype || res["is_error"] != (c.subtype != "success") {
			t.Errorf("case %d: subtype %v is_error %v, want %s", i, res["subtype"], res["is_error"], c.subtype)
		}
		if c.err != nil && !strings.Contains(mustJSON(t, res["errors"]), c.err.Error()) {
			t.Errorf("case %d: errors %v", i, res["errors"])
		}
	}
}

// TestClaudeResultOnly: --output-format json's Claude dialect is the
// result line alone.
func TestClaudeResultOnly(t *testing.T) {
	var buf bytes.Buffer
	w := NewClaudeWriter(&buf, ClaudeInit{ResultOnly: true}, fakeClock())
	w.Event(sessionEv)
	w.Event(textEv("hi"))
	w.Event(callEv("c1", "run_command", `{"command":"ls"}`, ""))
	w.Event(resultEv("c1", "run_command", "x", true, ""))
	w.Result(&agent.DoneInfo{StopReason: agent.StopDone, Result: "hi"}, "hi", nil)
	lines := claudeLines(t, buf.String())
	if len(lines) != 1 || lines[0]["type"] != "result" || lines[0]["result"] != "hi" {
		t.Fatalf("output %s", buf.String())
	}
}

func TestParseDialect(t *testing.T) {
	for in, want := range map[string]Dialect{"": DialectAidex, "aidex": DialectAidex, "Claude": DialectClaude, " claude ": DialectClaude} {
		if got, err := ParseDialect(in); err != nil || got != want {
			t.Errorf("ParseDialect(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseDialect("codex"); err == nil || !strings.Contains(err.Error(), "aidex or claude") {
		t.Errorf("ParseDialect(codex): %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClaudeSchemaValidatesLines: every line the Claude dialect writes
// validates against docs/schema's Claude schema, and a line of aidex's
// own dialect does not.
func TestClaudeSchemaValidatesLines(t *testing.T) {
	files, err := Schemas()
	if err != nil {
		t.Fatal(err)
	}
	s := resolve(t, files[ClaudeSchemaFile])
	for _, l := range claudeRun(t) {
		if err := s.Validate(l); err != nil {
			t.Errorf("the Claude schema rejects %s: %v", mustJSON(t, l), err)
		}
	}
	if err := s.Validate(decodeAny(t, `{"type":"done","session_id":"s","done":{"stop_reason":"done"}}`)); err == nil {
		t.Error("the Claude schema accepts an aidex event")
	}
}

// BenchmarkClaudeWriter measures the Claude dialect's cost per model
// turn of a run: a response of 20 text deltas and a tool call, its usage
// and its result.
func BenchmarkClaudeWriter(b *testing.B) {
	var buf bytes.Buffer
	w := NewClaudeWriter(&buf, ClaudeInit{CWD: "/ws", Model: "m", Tools: []string{"run_command", "read_file"}}, nil)
	w.Event(sessionEv)
	delta := textEv("some words of the answer ")
	call := callEv("c1", "run_command", `{"command":"go test ./..."}`, "")
	res := resultEv("c1", "run_command", "ok  \tpkg\t0.1s\n", true, "")
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		w.Event(waitEv(""))
		for range 20 {
			w.Event(delta)
		}
		w.Event(usageEv(100, 20))
		w.Event(call)
		w.Event(res)
	}
}

// TestClaudeResultFirst: a result that comes before any run (a user
// message that could not run) still follows the init line.
func TestClaudeResultFirst(t *testing.T) {
	var buf bytes.Buffer
	w := NewClaudeWriter(&buf, ClaudeInit{SessionID: "s9", Model: "m"}, fakeClock())
	w.Result(nil, "bad input", errors.New("bad input"))
	lines := claudeLines(t, buf.String())
	if len(lines) != 2 || lines[0]["subtype"] != "init" || lines[0]["session_id"] != "s9" || lines[1]["session_id"] != "s9" || lines[1]["subtype"] != "error_during_execution" {
		t.Fatalf("output %s", buf.String())
	}
}
