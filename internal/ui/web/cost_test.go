package web

import (
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestChatCostCommands: the web chat's /cost breaks the session down per
// model, turn and tool, and /cost estimate prices the next request
// without calling the model.
func TestChatCostCommands(t *testing.T) {
	model := llmtest.NewScript(t)
	e := newEnv(t, model, "")
	if out, _ := e.commandOut("/cost estimate hello"); !strings.Contains(out["output"].(string), "next request: ~") ||
		!strings.Contains(out["output"].(string), "fake/m1: price unknown") {
		t.Errorf("/cost estimate: %v", out)
	}
	if _, msg := e.commandOut("/cost everything"); !strings.Contains(msg, `/cost takes no argument or estimate [PROMPT], not "everything"`) {
		t.Errorf("/cost everything: %q", msg)
	}
	if out, _ := e.commandOut("/cost"); !strings.Contains(out["output"].(string), "input 0 · output 0") {
		t.Errorf("/cost: %v", out)
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}
