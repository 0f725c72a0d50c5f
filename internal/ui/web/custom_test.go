package web

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
)

func TestChatExpandsCustomCommand(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newEnv(t, model, "")
	p := filepath.Join(e.ws, ".claude", "commands", "hello.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nallowed-tools: Read\n---\nSay hello to $ARGUMENTS.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, evs := e.chat(map[string]any{"message": "/hello web"}, nil)
	if status != http.StatusOK {
		t.Fatalf("chat: %d", status)
	}
	reqs := model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), "Say hello to web.") || strings.Contains(string(reqs[0]), "/hello web") {
		t.Fatalf("the model did not get the expanded command: %d requests", len(reqs))
	}
	notice := ""
	for _, ev := range evs {
		if ev.Name == "notice" {
			notice, _ = ev.Data["text"].(string)
		}
	}
	if !strings.Contains(notice, "untrusted project") {
		t.Fatalf("no notice of the ignored allowed-tools in %v", names(evs))
	}
}

func TestChatCustomCommandRefusedEndsStream(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newEnv(t, model, "")
	p := filepath.Join(e.ws, ".aidex", "commands", "st.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("!`git status`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, evs := e.chat(map[string]any{"message": "/st"}, nil)
	got := names(evs)
	if status != http.StatusOK || len(got) < 2 || got[len(got)-1] != "done" || got[len(got)-2] != "error" {
		t.Fatalf("status %d, events %v", status, got)
	}
	if msg, _ := evs[len(evs)-2].Data["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "/st: !`git status`") {
		t.Fatalf("error %v", evs[len(evs)-2].Data)
	}
	if len(model.Requests()) != 0 {
		t.Fatal("a failed expansion must not reach the model")
	}
}

// TestBrowserCustomCommandNotice: a custom command typed in the chat is
// expanded server-side, and the page shows the notice that an untrusted
// project's allowed-tools are ignored.
func TestBrowserCustomCommandNotice(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t, llmtest.Turn{Text: "Greeted."})
	e := newEnv(t, model, "")
	e.write(".claude/commands/hello.md", "---\nallowed-tools: Read\n---\nSay hello to $ARGUMENTS.\n")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "send the command", chromedp.SetValue(chromedp.CSS("#chat-input"), "/hello page"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the answer", `[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('Greeted.')) && !document.body.classList.contains('running')`)
	waitJS(t, ctx, "the notice", `[...document.querySelectorAll('.msg.note')].some(m => m.textContent.includes('allowed-tools (Read) are ignored'))`)
	if reqs := model.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0]), "Say hello to page.") {
		t.Fatal("the model did not get the expanded command")
	}
	checkNoPageErrors(t, ctx)
}

// An MCP server's prompt runs as /mcp__SERVER__PROMPT in the web chat as in
// the terminal front ends: the model gets the prompt's text.
func TestChatRunsMCPPrompt(t *testing.T) {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	model := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newEnv(t, model, fmt.Sprintf("\n[mcp_servers.everything]\ncommand = %q\nargs = [\"stdio\"]\nstartup_timeout_sec = 60\n", bin))
	status, evs := e.chat(map[string]any{"message": "/mcp__everything__args-prompt city=Paris state=Texas"}, nil)
	if status != http.StatusOK {
		t.Fatalf("chat: %d", status)
	}
	reqs := model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), "Paris, Texas") || strings.Contains(string(reqs[0]), "/mcp__everything") {
		t.Fatalf("the model did not get the MCP prompt's text: %d requests, events %v", len(reqs), names(evs))
	}
}
