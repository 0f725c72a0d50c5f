package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// A subagent's end fires SubagentStop (not Stop), and the task call is a
// Task to PreToolUse hooks.
func TestHookSubagentStopAndTask(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: `{"subagent_type":"explore","description":"look","prompt":"look around"}`}}},
		llmtest.Turn{Text: "child answer"},
		llmtest.Turn{Text: "parent answer"})
	e := hookE2E(t, srv, true, `{"hooks": {
  "SubagentStop": [{"hooks": [{"type": "command", "command": "cat >> hook-sub.jsonl; echo >> hook-sub.jsonl"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "cat >> hook-stop.jsonl; echo >> hook-stop.jsonl"}]}],
  "PreToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": "cat >> hook-pre.jsonl; echo >> hook-pre.jsonl"}]}]}}`)
	r := e.run(context.Background(), "-p", "go")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "parent answer" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	sub := strings.TrimSpace(e.read("hook-sub.jsonl"))
	if strings.Count(sub, "\n") != 0 || !strings.Contains(sub, `"hook_event_name":"SubagentStop"`) {
		t.Errorf("SubagentStop inputs: %q", sub)
	}
	if stop := strings.TrimSpace(e.read("hook-stop.jsonl")); strings.Count(stop, "\n") != 0 || !strings.Contains(stop, `"hook_event_name":"Stop"`) {
		t.Errorf("Stop inputs: %q", stop)
	}
	if pre := e.read("hook-pre.jsonl"); !strings.Contains(pre, `"tool_name":"Task"`) || !strings.Contains(pre, `"subagent_type":"explore"`) {
		t.Errorf("PreToolUse inputs: %q", pre)
	}
}
