package cli

import (
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// `aidex chat` is iptic-memex's chat mode (issue 36 item 5): an
// interactive chat, not a prompt "chat", where iptic's user commands work
// without a slash. "set model X" switches the model, "save chat" writes
// the session, "clear" starts a new conversation, "quit" ends the chat
// before the lines after it; other text is a prompt.
func TestChatIpticCommands(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "hello there"})
	e := newE2E(t, script, "openai", "")
	r := e.runIn("hi\nsave chat chat.md\nset model other\nclear\nquit\nnever sent\n", "chat")
	if r.code != 0 {
		t.Fatalf("aidex chat: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, want := range []string{"hello there", "(/export chat.md)", "(/model other)", "(/clear)", "(/exit)", "iptic-memex's commands work here"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in:\n%s", want, r.stdout)
		}
	}
	if !e.exists("chat.md") || !strings.Contains(e.read("chat.md"), "hello there") {
		t.Errorf("save chat did not write chat.md")
	}
	if n := len(script.Requests()); n != 1 {
		t.Errorf("%d model requests; want 1 (the commands and the line after quit are not prompts)", n)
	}
	if strings.Contains(r.stdout, "never sent") {
		t.Errorf("a line after quit was read:\n%s", r.stdout)
	}
	// The headless flags are not chat's.
	if r := e.runIn("", "chat", "-p", "hi"); r.code != ExitUsage || !strings.Contains(r.stderr, "aidex -p") {
		t.Errorf("aidex chat -p: exit %d, stderr %q; want usage naming aidex -p", r.code, r.stderr)
	}
}

// Outside `aidex chat` iptic's words are prompts: `aidex --plain` sends
// "clear" to the model.
func TestPlainKeepsIpticWordsAsPrompts(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "cleared what?"})
	e := newE2E(t, script, "openai", "")
	r := e.runIn("clear\n", "--plain")
	if r.code != 0 || len(script.Requests()) != 1 || strings.Contains(r.stdout, "(/clear)") {
		t.Errorf("exit %d, %d requests:\n%s", r.code, len(script.Requests()), r.stdout)
	}
}

// `aidex -c --plain` reprints the resumed conversation, as the terminal
// UI shows it (iptic-memex's reprint_chat), and /reprint prints it again.
func TestPlainResumeReprints(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		llmtest.Turn{Text: "the file says hello"})
	e := newE2E(t, script, "openai", "")
	e.write("a.txt", "hello\n")
	if r := e.runIn("", "-p", "what does a.txt say"); r.code != 0 {
		t.Fatalf("first run: exit %d, %s", r.code, r.stderr)
	}
	r := e.runIn("/reprint\n", "-c", "--plain")
	if r.code != 0 {
		t.Fatalf("aidex -c --plain: exit %d, %s", r.code, r.stderr)
	}
	for _, want := range []string{"> what does a.txt say", "✓ read_file a.txt", "the file says hello"} {
		if n := strings.Count(r.stdout, want); n != 2 {
			t.Errorf("%q %d times; want 2 (resumed, then /reprint):\n%s", want, n, r.stdout)
		}
	}
}
