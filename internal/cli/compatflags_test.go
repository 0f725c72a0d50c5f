package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// runIn runs aidex in-process in the workspace with stdin.
func (e *e2e) runIn(stdin string, args ...string) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := Main(Process{Chat: chat.Run, Context: context.Background(), Args: append([]string{"-w", e.ws}, args...), Stdin: strings.NewReader(stdin),
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
	return result{code, out.String(), errb.String()}
}

func (e *e2e) exists(name string) bool {
	_, err := os.Stat(filepath.Join(e.ws, name))
	return err == nil
}

// TestCompatFlags runs a headless call under each of Claude Code's and
// Codex CLI's permission flags and checks what the policy did with it:
// the file the call writes exists or not, the exit code, the warning.
func TestCompatFlags(t *testing.T) {
	write := llmtest.Call{Name: "write_file", Args: `{"path":"a.txt","content":"x"}`}
	touch := llmtest.Call{Name: "run_command", Args: `{"command":"touch a.txt"}`}
	const yoloWarning = "permission mode yolo runs every tool call without asking"
	cases := []struct {
		name    string
		args    []string
		call    llmtest.Call
		code    int
		written bool
		stderr  string // "" = no warning
	}{
		{"skip permissions", []string{"--dangerously-skip-permissions"}, write, 0, true, "--dangerously-skip-permissions: " + yoloWarning},
		{"yolo", []string{"--yolo"}, touch, 0, true, "--yolo: " + yoloWarning},
		{"bypassPermissions", []string{"--permission-mode", "bypassPermissions"}, write, 0, true, "--permission-mode bypassPermissions: " + yoloWarning},
		{"acceptEdits", []string{"--permission-mode", "acceptEdits"}, write, 0, true, ""},
		{"acceptEdits asks for commands", []string{"--permission-mode", "acceptEdits"}, touch, ExitDenied, false, ""},
		{"default", []string{"--permission-mode", "default"}, write, ExitDenied, false, ""},
		{"plan", []string{"--permission-mode", "plan"}, write, ExitDenied, false, ""},
		{"aidex's own mode", []string{"--permission-mode", "auto-edit"}, write, 0, true, ""},
		{"full-auto", []string{"--full-auto"}, write, 0, true, ""},
		{"full-auto asks for commands", []string{"--full-auto"}, touch, ExitDenied, false, ""},
		{"allowedTools", []string{"--allowedTools", "Bash(touch:*)"}, touch, 0, true, ""},
		{"allowedTools, several words", []string{"--allowedTools", "Read", "Bash(touch:*)", "-p", "go"}, touch, 0, true, ""},
		{"allowed-tools, commas", []string{"--allowed-tools", "Read,Bash(touch *)"}, touch, 0, true, ""},
		{"allowedTools=, spaces", []string{"--allowedTools=Read Edit"}, write, 0, true, ""},
		{"allowedTools, another command", []string{"--allowedTools", "Bash(git diff:*)"}, touch, ExitDenied, false, ""},
		{"disallowedTools beats yolo", []string{"--yolo", "--disallowedTools", "Write"}, write, ExitDenied, false, yoloWarning},
		{"disallowed-tools Bash prefix", []string{"--yolo", "--disallowed-tools", "Bash(touch:*)"}, touch, ExitDenied, false, yoloWarning},
		{"untranslatable allow", []string{"--allowedTools", "WebFetch(https://x.org)"}, write, ExitDenied, false, `--allowedTools: "WebFetch(https://x.org)" cannot be translated exactly`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{c.call}}, llmtest.Turn{Text: "done"})
			e := newE2E(t, srv, "openai", "")
			args := c.args
			if !strings.Contains(strings.Join(args, " "), "-p go") {
				args = append([]string{"-p", "go"}, args...)
			}
			r := e.run(context.Background(), args...)
			if r.code == ExitUsage && strings.Contains(r.stderr, "sandbox") && c.name == "full-auto" {
				t.Skipf("no OS sandbox here: %s", r.stderr)
			}
			if r.code != c.code || e.exists("a.txt") != c.written {
				t.Fatalf("exit %d (want %d), a.txt written %v (want %v)\nstderr: %s", r.code, c.code, e.exists("a.txt"), c.written, r.stderr)
			}
			if c.stderr == "" && strings.Contains(r.stderr, "warning") || c.stderr != "" && !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("stderr %q, want %q", r.stderr, c.stderr)
			}
		})
	}
}

// TestCompatFlagConflicts: an alias contradicting the flag it stands for
// is bad usage (exit 2), before any model is asked.
func TestCompatFlagConflicts(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--yolo", "--permission-mode", "plan"}, "--yolo is --permission-mode yolo; it cannot be combined with --permission-mode plan"},
		{[]string{"--full-auto", "--dangerously-skip-permissions"}, "--full-auto is --permission-mode auto-edit; it cannot be combined with --dangerously-skip-permissions"},
		{[]string{"--full-auto", "--sandbox", "off"}, "--full-auto runs commands in the workspace-write sandbox"},
		{[]string{"--permission-mode", "acceptedits2"}, `unknown permission mode "acceptedits2"`},
		{[]string{"--allowedTools", "Bash(git"}, "--allowedTools: "},
	} {
		r := e.run(context.Background(), append([]string{"-p", "go"}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// TestMistypedFlagSuggests: a mistyped flag names the one it likely
// meant (exit 2), also for Claude Code's and Codex CLI's spellings.
func TestMistypedFlagSuggests(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "x", "--allowedtools", "Read"}, "unknown flag: --allowedtools; did you mean --allowedTools?"},
		{[]string{"-p", "x", "--allowed_tools", "Read"}, "did you mean --allowedTools?"},
		{[]string{"-p", "x", "--permision-mode", "plan"}, "unknown flag: --permision-mode; did you mean --permission-mode?"},
		{[]string{"-p", "x", "--permissionMode", "plan"}, "did you mean --permission-mode?"},
		{[]string{"-p", "x", "--output-fromat", "json"}, "did you mean --output-format?"},
		{[]string{"-p", "x", "--max-budget-usd", "1"}, "did you mean --max-cost?"},
		{[]string{"exec", "--jsonn", "x"}, "did you mean --json?"},
		{[]string{"sessions", "list", "--al"}, "did you mean --all?"},
	} {
		r := e.run(context.Background(), c.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r := e.run(context.Background(), "-p", "x", "--zzzzzzzz")
	if r.code != ExitUsage || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("a flag like no other: exit %d stderr %q", r.code, r.stderr)
	}
}

// TestPrintFlag: Claude Code's -p is a switch: -p followed by a flag (or
// nothing) runs headless with the prompt from the arguments or stdin.
func TestPrintFlag(t *testing.T) {
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"-p", "--output-format", "text", "what is 6*7"}},
		{"what is 6*7", []string{"-p", "--output-format", "text"}},
		{"what is 6*7", []string{"--output-format", "text", "-p"}},
		{"", []string{"--print", "what is 6*7"}},
		{"", []string{"-p", "what is 6*7"}},
	} {
		srv := llmtest.NewScript(t, llmtest.Turn{Text: "42"})
		e := newE2E(t, srv, "openai", "")
		r := e.runIn(c.stdin, c.args...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "42" || len(srv.Requests()) != 1 || !strings.Contains(string(srv.Requests()[0]), "what is 6*7") {
			t.Errorf("%v (stdin %q): exit %d stdout %q stderr %q", c.args, c.stdin, r.code, r.stdout, r.stderr)
		}
	}
}

// TestCompatArgs: the rewriting of Claude Code's command lines.
func TestCompatArgs(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"--allowedTools", "Read", "Bash(git log:*)", "explain this"}, []string{"--allowedTools", "Read,Bash(git log:*)", "explain this"}},
		{[]string{"--disallowed-tools", "mcp__github", "Edit", "-p", "x"}, []string{"--disallowed-tools", "mcp__github,Edit", "-p", "x"}},
		{[]string{"--allowedTools", "Read", "hello"}, []string{"--allowedTools", "Read", "hello"}},
		{[]string{"-p", "--verbose"}, []string{"--print", "--verbose"}},
		{[]string{"-p", "-c"}, []string{"--print", "-c"}},
		{[]string{"-p"}, []string{"--print"}},
		{[]string{"-p", "-x is broken"}, []string{"-p", "-x is broken"}},
		{[]string{"-p", "hello"}, []string{"-p", "hello"}},
		{[]string{"--", "-p", "--allowedTools", "A", "B"}, []string{"--", "-p", "--allowedTools", "A", "B"}},
	} {
		if got := compatArgs(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("compatArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Bash(git log:*),Read", []string{"Bash(git log:*)", "Read"}},
		{"Bash(git log:*) Read", []string{"Bash(git log:*)", "Read"}},
		{" Edit , Write ", []string{"Edit", "Write"}},
		{"Bash(a,b c)", []string{"Bash(a,b c)"}},
	} {
		if got := splitClaudeRules(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitClaudeRules(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestResumeCommand: aidex resume --last (or alone) continues the latest
// session as -c does, aidex resume ID the session ID as -r does.
func TestResumeCommand(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "first answer"}, llmtest.Turn{Text: "second"}, llmtest.Turn{Text: "third"}, llmtest.Turn{Text: "fourth"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "remember the word PELICAN", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := between(r.stdout, `"session_id": "`, `"`)
	for i, args := range [][]string{
		{"resume", "--last", "-p", "which word?"},
		{"resume", "--last", "which word?"},
		{"resume", id, "which word?"},
	} {
		r := e.run(context.Background(), args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d stderr %s", args, r.code, r.stderr)
		}
		req := string(srv.Requests()[i+1])
		if !strings.Contains(req, "PELICAN") || !strings.Contains(req, "which word?") {
			t.Errorf("%v: the request does not continue the session: %s", args, req)
		}
	}
	r = e.run(context.Background(), "resume", "no-such-session", "x")
	if r.code != ExitUsage {
		t.Errorf("unknown session: exit %d stderr %s", r.code, r.stderr)
	}
	r = e.run(context.Background(), "resume", "--last", "-c", "x")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "drop -c/-r") {
		t.Errorf("resume -c: exit %d stderr %s", r.code, r.stderr)
	}
}

func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, to)
	return v
}

// TestCompatFlagsDocumented: every alias says so in --help, and the
// docs list it (docs/coming-from.md the aliases, docs/cli.md the flags of
// a run).
func TestCompatFlagsDocumented(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	help := e.run(context.Background(), "--help").stdout
	var readme []byte
	for _, page := range []string{"coming-from.md", "cli.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", page))
		if err != nil {
			t.Fatal(err)
		}
		readme = append(readme, data...)
	}
	for _, flag := range []string{"--dangerously-skip-permissions", "--yolo", "--full-auto", "--allowedTools", "--disallowedTools", "--print", "--stream-dialect"} {
		line := ""
		for _, l := range strings.Split(help, "\n") {
			if strings.Contains(l, flag+" ") {
				line = l
			}
		}
		if line == "" || flag != "--stream-dialect" && !strings.Contains(line, "alias") && !strings.Contains(line, "Claude Code's") {
			t.Errorf("--help does not document %s as an alias: %q", flag, line)
		}
		if !strings.Contains(string(readme), "`"+flag) {
			t.Errorf("docs/coming-from.md and docs/cli.md do not list %s", flag)
		}
	}
	for _, alias := range []string{"acceptEdits", "bypassPermissions", "aidex resume --last", "--allowed-tools", "--disallowed-tools"} {
		if !strings.Contains(string(readme), alias) {
			t.Errorf("docs/coming-from.md and docs/cli.md do not list %s", alias)
		}
	}
	if !strings.Contains(help, "resume") || !strings.Contains(e.run(context.Background(), "resume", "--help").stdout, "an alias of\naidex -r ID") {
		t.Error("aidex resume --help does not say it is an alias")
	}
}

// FuzzSplitClaudeRules: splitting keeps every character but the
// separators, and no rule has a separator outside its parentheses.
func FuzzSplitClaudeRules(f *testing.F) {
	for _, s := range []string{"Bash(git log:*),Read", "Edit Write", "Bash(a,(b) c)", ")(,", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		parts := splitClaudeRules(v)
		strip := func(s string) string {
			return strings.Map(func(r rune) rune {
				if r == ',' || unicode.IsSpace(r) {
					return -1
				}
				return r
			}, s)
		}
		if strip(strings.Join(parts, "")) != strip(v) {
			t.Fatalf("splitClaudeRules(%q) = %q loses characters", v, parts)
		}
		for _, p := range parts {
			if p == "" || strings.TrimSpace(p) != p {
				t.Fatalf("splitClaudeRules(%q): part %q", v, p)
			}
		}
	})
}

// aidex prints a flag's warning before it hands an interactive session to
// aidex-chat, which does not print it again (Process.handoff set by
// Program from aidex's hand-over).
func TestFlagWarningsNotRepeatedAfterHandOver(t *testing.T) {
	for _, handoff := range []string{"", "dev"} {
		srv := llmtest.NewScript(t, llmtest.Turn{Text: "done"})
		e := newE2E(t, srv, "openai", "")
		var out, errb bytes.Buffer
		code := Main(Process{Chat: chat.Run, handoff: handoff, Context: context.Background(),
			Args:  []string{"-w", e.ws, "-p", "go", "--yolo", "--allowedTools", "WebFetch(https://x.org)"},
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
		got := strings.Count(errb.String(), "aidex: warning:")
		if want := map[string]int{"": 2, "dev": 0}[handoff]; code != 0 || got != want {
			t.Errorf("handoff %q: exit %d, %d warnings, want 0 and %d\nstderr: %s", handoff, code, got, want, errb.String())
		}
	}
}
