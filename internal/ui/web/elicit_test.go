package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/mcp/mcptest"
)

// An MCP server's form request (elicitation) during a chat reaches the
// page as an interaction event with its token, naming the server that
// asks (source); the answer posted to /api/interaction/{id} goes back to
// the server, the answered event follows, and the tool's result reaches
// the model.
func TestChatMCPElicitation(t *testing.T) {
	url := mcptest.ElicitServer(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__deployer__deploy", Args: `{}`}}},
		llmtest.Turn{Text: "deployed"})
	e := newEnv(t, model, mcptest.ElicitConfig(url))
	var source, question string
	answered, status := false, 0
	code, evs := e.chat(map[string]any{"message": "deploy it"}, func(ev sseEvent) {
		if ev.Name != "interaction" {
			return
		}
		ia := ev.Data["interaction"].(map[string]any)
		if ia["answer"] != nil {
			answered = true
			return
		}
		source, _ = ia["source"].(string)
		q := ia["questions"].([]any)[0].(map[string]any)
		question = q["question"].(string)
		token, _ := ev.Data["token"].(string)
		status = e.call(http.MethodPost, "/api/interaction/"+ia["id"].(string), map[string]any{"token": token, "answers": map[string]any{question: "production"}}, nil)
	})
	if code != http.StatusOK {
		t.Fatalf("chat: %d", code)
	}
	if source != "MCP server deployer" || !strings.Contains(question, "MCP server deployer asks: Where should it go?") {
		t.Fatalf("interaction: source %q, question %q (events %v)", source, question, names(evs))
	}
	if status != http.StatusOK || !answered {
		t.Errorf("answer: %d, answered event: %v", status, answered)
	}
	if last := lastRequest(model); !strings.Contains(last, `accept {\"env\":\"production\"}`) {
		t.Errorf("the form's answer did not reach the server: %s", last)
	}
}
