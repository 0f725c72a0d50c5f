package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm"
)

// PreCompact always carries custom_instructions ("" for a plain
// /compact); Bash's tool_response is the command's output without the
// exit-code line.
func TestHookAdapterInputs(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "in.jsonl")
	h := &Hooks{Runner: &hooks.Runner{ProjectDir: dir, Hooks: []hooks.Hook{
		{Event: hooks.PreCompact, Command: "cat >> " + rec + "; echo >> " + rec, Timeout: hooks.DefaultTimeout},
		{Event: hooks.PostToolUse, Command: "cat >> " + rec + "; echo >> " + rec, Timeout: hooks.DefaultTimeout}}},
		Workspace: dir, Transcripts: filepath.Join(dir, "transcripts"), State: &HookState{}}
	s := &agent.Conversation{ID: "s1", Messages: []llm.Message{llm.UserText("hi <b>")}}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		fire func()
		want string
	}{
		{"plain /compact", func() { h.Compact(ctx, s, "manual", "") }, `"custom_instructions":""`},
		{"/compact with focus", func() { h.Compact(ctx, s, "manual", "keep the plan") }, `"custom_instructions":"keep the plan"`},
		{"Bash output", func() {
			h.AfterTool(ctx, s, &agent.Call{ID: "c1", Name: "run_command", Args: []byte(`{"command":"make"}`)},
				agent.ToolResultInfo{OK: true, Output: "built\nok\n[exit code: 0]"})
		}, `"stdout":"built\nok\n"`},
	} {
		_ = os.Remove(rec)
		tc.fire()
		data, err := os.ReadFile(rec)
		if err != nil || !strings.Contains(string(data), tc.want) {
			t.Errorf("%s: input %s (%v), want %s", tc.name, data, err, tc.want)
		}
	}
	// The transcript keeps <, > and & as they are, one compact line each.
	data, err := os.ReadFile(filepath.Join(dir, "transcripts", "s1.jsonl"))
	if err != nil || !strings.Contains(string(data), `"text":"hi <b>"`) || strings.Count(string(data), "\n") != 1 {
		t.Errorf("transcript %s (%v)", data, err)
	}
}
