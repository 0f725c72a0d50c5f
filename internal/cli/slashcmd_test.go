package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// firstUserText returns the text of the user message of the script's
// first request (OpenAI wire format).
func firstUserText(t *testing.T, srv *llmtest.Script) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[0], &body); err != nil {
		t.Fatal(err)
	}
	for _, m := range body.Messages {
		if m.Role == "user" {
			return string(m.Content)
		}
	}
	t.Fatalf("no user message in %s", reqs[0])
	return ""
}

// trust runs `aidex trust WS`: the folder is trusted and its current
// content approved.
func (e *e2e) trust() {
	e.t.Helper()
	// A project whose files do not load is still trusted (the tests of
	// broken files then see the load error in their run).
	if r := e.run(context.Background(), "trust", e.ws); !strings.Contains(r.stdout, "trusted: ") {
		e.t.Fatalf("aidex trust: exit %d: %s", r.code, r.stderr)
	}
}

func (e *e2e) writeHome(name, content string) {
	e.t.Helper()
	p := filepath.Join(e.home, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func TestCustomCommandHeadlessArguments(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "hi"})
	e := newE2E(t, srv, "openai", "")
	e.write(".claude/commands/hello.md", "---\ndescription: Greet\n---\nSay hello to $ARGUMENTS.\n")
	r := e.run(context.Background(), "-p", "/hello world")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := firstUserText(t, srv); !strings.Contains(got, "Say hello to world.") || strings.Contains(got, "/hello") {
		t.Fatalf("the model got %s", got)
	}
}

func TestCustomCommandNamespacePositionalAndInclude(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	e.write("src/main.go", "package main // MARKER\n")
	e.writeHome(".claude/commands/frontend/review.md", "Review @$1 for $2.\n")
	r := e.run(context.Background(), "-p", `/frontend:review src/main.go "data races"`)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := firstUserText(t, srv)
	if !strings.Contains(got, "Review @src/main.go for data races.") || !strings.Contains(got, `\u003cfile path=\"src/main.go\"\u003e`) && !strings.Contains(got, `<file path=\"src/main.go\">`) || !strings.Contains(got, "MARKER") {
		t.Fatalf("the model got %s", got)
	}
}

func TestCustomCommandIncludeOutsideWorkspaceRefused(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	e.writeHome("secret.txt", "SECRET\n")
	e.write(".aidex/commands/leak.md", "Read @../home/secret.txt\n")
	r := e.run(context.Background(), "-p", "/leak")
	if r.code != ExitDenied || !strings.Contains(r.stderr, "/leak: @../home/secret.txt") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d, stderr %s, %d requests", r.code, r.stderr, len(srv.Requests()))
	}
}

func TestCustomCommandBangAllowedAndDenied(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	// echo is allowed by the user's command's allowed-tools; the turn's
	// added rule lets it run headless (where an ask is a denial).
	e.writeHome(".claude/commands/status.md", "---\nallowed-tools: Bash(echo:*)\n---\nOutput: !`echo BANG-OK`\n")
	e.writeHome(".claude/commands/wipe.md", "Output: !`touch made-by-wipe`\n")
	r := e.run(context.Background(), "-p", "/status")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := firstUserText(t, srv); !strings.Contains(got, "Output: BANG-OK") {
		t.Fatalf("the model got %s", got)
	}
	r = e.run(context.Background(), "-p", "/wipe")
	if r.code != ExitDenied || !strings.Contains(r.stderr, "/wipe: !`touch made-by-wipe`") || !strings.Contains(r.stderr, "was refused") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made-by-wipe")); err == nil {
		t.Fatal("the denied command ran")
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("%d requests: a refused command must not send", len(srv.Requests()))
	}
}

func TestCustomCommandUntrustedAllowedToolsIgnored(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	e.write(".claude/commands/touch.md", "---\nallowed-tools: Bash(touch:*)\n---\nDone: !`touch made-by-project`\n")
	r := e.run(context.Background(), "-p", "/touch")
	if r.code != ExitDenied || !strings.Contains(r.stderr, "untrusted project") || !strings.Contains(r.stderr, "allowed-tools (Bash(touch:*)) are ignored") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made-by-project")); err == nil {
		t.Fatal("an untrusted project's allowed-tools were honoured")
	}
	e.trust()
	r = e.run(context.Background(), "-p", "/touch")
	if r.code != 0 || strings.Contains(r.stderr, "untrusted") {
		t.Fatalf("trusted: exit %d, stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made-by-project")); err != nil {
		t.Fatal("a trusted project's allowed-tools were not honoured")
	}
}

func TestCustomCommandModelForOneTurn(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	e := newE2E(t, srv, "openai", "")
	e.write(".aidex/commands/quick.md", "---\nmodel: other-model\n---\nQuick $ARGUMENTS\n")
	r := e.run(context.Background(), "-p", "/quick look")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r = e.run(context.Background(), "-c", "-p", "plain prompt")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	var a, b struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(reqs[0], &a)
	_ = json.Unmarshal(reqs[1], &b)
	if a.Model != "other-model" || b.Model != "scripted" {
		t.Fatalf("models %q then %q, want other-model then scripted", a.Model, b.Model)
	}
}

func TestUnknownSlashPromptSentAsIs(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "/usr/bin is a folder?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := firstUserText(t, srv); !strings.Contains(got, "/usr/bin is a folder?") {
		t.Fatalf("the model got %s", got)
	}
}

// A rule of allowed-tools aidex cannot read adds nothing, and one
// stderr line names it and the file; the command still runs.
func TestCustomCommandBadAllowedToolsNamesFile(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	e.writeHome(".claude/commands/bad.md", "---\nallowed-tools: Bash(git status\n---\nx\n")
	r := e.run(context.Background(), "-p", "/bad")
	if r.code != 0 || !strings.Contains(r.stderr, "/bad ("+filepath.Join(e.home, ".claude/commands/bad.md")+"): allowed-tools Bash(git status (missing closing parenthesis) add nothing") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if got := firstUserText(t, srv); !strings.Contains(got, "x") || strings.Contains(got, "/bad") {
		t.Fatalf("the model got %s", got)
	}
}

// A command file that fails to load is one stderr line naming it, in a
// headless run too, and "/name args" is then an error, never text sent
// to the model; a command in a subfolder is called by its file name.
func TestCustomCommandLoadFailureIsNamed(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	big := filepath.Join(e.home, ".claude/commands/tools/huge.md")
	e.writeHome(".claude/commands/tools/huge.md", strings.Repeat("x", 300<<10))
	e.writeHome(".claude/commands/tools/smart-debug.md", "---\nmodel: claude-sonnet-4-0\nfrobnicate: on\n---\nDebug $ARGUMENTS\n")
	r := e.run(context.Background(), "-p", "/huge now")
	if r.code != ExitUsage || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d, %d requests, stderr %s", r.code, len(srv.Requests()), r.stderr)
	}
	if n := strings.Count(r.stderr, big+": "); n != 2 || !strings.Contains(r.stderr, "/huge is not sent to the model") {
		t.Fatalf("want a warning line and the error naming %s (%d), stderr:\n%s", big, n, r.stderr)
	}
	if !strings.Contains(r.stderr, "smart-debug.md:3: unknown front matter key \"frobnicate\"") {
		t.Fatalf("stderr %s", r.stderr)
	}
	e.writeHome(".claude/commands/tools/huge.md", "Huge $ARGUMENTS\n")
	r = e.run(context.Background(), "-p", "/huge now")
	if r.code != 0 || !strings.Contains(firstUserText(t, srv), "Huge now") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// `aidex -p "/cmd"` runs the built-in commands the one table gives
// headless runs: their text on stdout, nothing sent to the model, except
// the prompt /init sends; a terminal-only command is still sent as text,
// and a JSON output format refuses a command whose output is text
// (issue 34).
func TestHeadlessBuiltinCommands(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "Wrote AGENTS.md."}, llmtest.Turn{Text: "no config here"})
	e := newE2E(t, srv, "openai", "")
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"-p", "/cost"}, 0, "input 0"},
		{[]string{"-p", "/compact"}, 0, "nothing to compact yet"},
		{[]string{"-p", "/help"}, 0, "/context"},
		{[]string{"-p", "/cost everything"}, ExitUsage, ""},
		{[]string{"-p", "/cost", "--output-format", "json"}, ExitUsage, ""},
	} {
		r := e.run(context.Background(), c.args...)
		if r.code != c.code || !strings.Contains(r.stdout, c.out) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, r.code, r.stdout, r.stderr, c.code, c.out)
		}
		if c.args[1] == "/help" && strings.Contains(r.stdout, "/config") {
			t.Errorf("-p /help lists the terminal's commands:\n%s", r.stdout)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model got %d requests from built-in commands", n)
	}
	if r := e.run(context.Background(), "-p", "/init"); r.code != 0 || !strings.Contains(r.stdout, "Wrote AGENTS.md.") ||
		!strings.Contains(firstUserText(t, srv), "AGENTS.md") {
		t.Errorf("/init: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if r := e.run(context.Background(), "-p", "/config"); r.code != 0 || !strings.Contains(r.stdout, "no config here") {
		t.Errorf("/config (not a headless command) goes to the model as before: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}
