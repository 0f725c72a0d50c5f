package cli

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// pipe runs a command with stdin and returns its stdout and exit code.
func pipe(t *testing.T, stdin string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if stderr.Len() > 0 && code > 1 {
		t.Logf("%s stderr: %s", name, stderr.String())
	}
	return out2(out), code
}

func out2(b []byte) string { return strings.TrimSpace(string(b)) }

func need(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("%s not installed", tool)
	}
	return p
}

// TestClaudeDialectScripts is the acceptance test of the Claude dialect:
// a script written for `claude -p --output-format stream-json --verbose`
// (testdata/claude_stream.py, and jq one-liners) reads aidex's output
// with --stream-dialect claude unchanged: the init line, the assistant
// text and tool calls with Claude's names, the tool results, and the
// result message, for a run that succeeds, one that hits --max-turns,
// one with a denied call, a stream-json input session of two turns, and
// --output-format json.
func TestClaudeDialectScripts(t *testing.T) {
	py := need(t, "python3")
	script, _ := filepath.Abs(filepath.Join("testdata", "claude_stream.py"))
	ls := llmtest.Call{Name: "run_command", Args: `{"command":"ls"}`}
	write := llmtest.Call{Name: "write_file", Args: `{"path":"new.txt","content":"x"}`}
	cases := []struct {
		name  string
		turns []llmtest.Turn
		stdin string
		args  []string
		code  int    // aidex's exit code
		want  string // the script's output
		fails bool   // the script exits 1 (an error result)
	}{
		{
			name:  "success",
			turns: []llmtest.Turn{{Text: "Let me look.", Calls: []llmtest.Call{ls}, OutputTokens: 5}, {Text: "There is one file: a.txt.", OutputTokens: 7}},
			args:  []string{"-p", "what is here?", "--output-format", "stream-json", "--verbose", "--stream-dialect", "claude"},
			want: `INIT True True scripted default True
TOOL Bash {"command": "ls"}
RESULT ok a.txt / [exit code: 0]
TEXT Let me look. There is one file: a.txt.
OUTCOME success False 2 There is one file: a.txt. True True 12 0`,
		},
		{
			name:  "max turns",
			turns: []llmtest.Turn{{Calls: []llmtest.Call{ls}}, {Calls: []llmtest.Call{ls}}},
			args:  []string{"-p", "loop", "--output-format", "stream-json", "--stream-dialect", "claude", "--max-turns", "1"},
			code:  ExitLimit,
			want: `INIT True True scripted default True
TOOL Bash {"command": "ls"}
RESULT ok a.txt / [exit code: 0]
TEXT 
OUTCOME error_max_turns True 1  True True 10 0`,
			fails: true,
		},
		{
			name:  "denied call",
			turns: []llmtest.Turn{{Calls: []llmtest.Call{write}}, {Text: "I could not write it."}},
			args:  []string{"-p", "write", "--output-format", "stream-json", "--stream-dialect", "claude", "--disallowedTools", "Write"},
			code:  ExitDenied,
			want: `INIT True True scripted default True
TOOL Write {"content": "x", "file_path": "WS/new.txt"}
RESULT error DENIED
TEXT I could not write it.
OUTCOME success False 2 I could not write it. True True 20 1`,
		},
		{
			name:  "stream input, two turns",
			turns: []llmtest.Turn{{Text: "First."}, {Text: "Second."}},
			stdin: userLine("one") + "\n" + `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"two"}]}}` + "\n",
			args:  []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--stream-dialect", "claude", "--permission-mode", "acceptEdits"},
			want: `INIT True True scripted acceptEdits True
TEXT First. Second.
OUTCOME success False 1 First. True True 10 0
OUTCOME success False 1 Second. True True 10 0`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewScript(t, c.turns...)
			e := newE2E(t, srv, "openai", "")
			e.write("a.txt", "x\n")
			r := e.runIn(c.stdin, c.args...)
			if r.code != c.code {
				t.Fatalf("aidex exit %d, want %d\nstderr: %s\nstdout: %s", r.code, c.code, r.stderr, r.stdout)
			}
			got, code := pipe(t, r.stdout, py, script)
			got = strings.ReplaceAll(got, e.ws, "WS")
			got = shortenDenials(got)
			if got != c.want || (code == 1) != c.fails || code > 1 {
				t.Errorf("script exit %d (fails %v), output:\n%s\nwant:\n%s\naidex stdout:\n%s", code, c.fails, got, c.want, r.stdout)
			}
		})
	}
	t.Run("jq", func(t *testing.T) {
		jq := need(t, "jq")
		srv := llmtest.NewScript(t, llmtest.Turn{Text: "The answer is 42."}, llmtest.Turn{Text: "Again 42."})
		e := newE2E(t, srv, "openai", "")
		r := e.run(context.Background(), "-p", "q", "--output-format", "stream-json", "--stream-dialect", "claude")
		if got, _ := pipe(t, r.stdout, jq, "-r", `select(.type == "result") | .result`); got != "The answer is 42." {
			t.Errorf("jq result: %q", got)
		}
		if got, _ := pipe(t, r.stdout, jq, "-r", `select(.type == "assistant") | .message.content[] | select(.type == "text") | .text`); got != "The answer is 42." {
			t.Errorf("jq assistant text: %q", got)
		}
		r = e.run(context.Background(), "-p", "q", "--output-format", "json", "--stream-dialect", "claude")
		if got, _ := pipe(t, r.stdout, jq, "-r", `[.type, .subtype, .is_error, .result, .num_turns, (.total_cost_usd|type), (.session_id|length > 0)] | @tsv`); got != "result\tsuccess\tfalse\tAgain 42.\t1\tnumber\ttrue" {
			t.Errorf("jq json result: %q from %s", got, r.stdout)
		}
	})
}

// shortenDenials shortens the error result of a denied call to DENIED.
func shortenDenials(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "RESULT error ") && strings.Contains(l, "denied") {
			lines[i] = "RESULT error DENIED"
		}
	}
	return strings.Join(lines, "\n")
}

// TestClaudeDialectFlagErrors: the dialect shapes JSON output only.
func TestClaudeDialectFlagErrors(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "x", "--stream-dialect", "claude"}, "--stream-dialect claude shapes --output-format stream-json or json"},
		{[]string{"-p", "x", "--output-format", "stream-json", "--stream-dialect", "codex"}, `unknown stream dialect "codex": use aidex or claude`},
		{[]string{"-p", "x", "--output-format", "json", "--stream-dialect", "claude", "--raw"}, "--raw"},
	} {
		r := e.run(context.Background(), c.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q", c.args, r.code, r.stderr)
		}
	}
}

// TestClaudeDialectStreamInputErrors: in the Claude dialect a line that
// is not a message is a warning on stderr (Claude's lines have none for
// it), and a user message that cannot run gets an error result, so a
// program waiting for one result per message is not left waiting.
func TestClaudeDialectStreamInputErrors(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "Fine."})
	e := newE2E(t, srv, "openai", "")
	stdin := "not json\n" + `{"type":"user","message":{"role":"user","content":[{"type":"video"}]}}` + "\n" + userLine("ok") + "\n"
	r := e.runIn(stdin, "--input-format", "stream-json", "--output-format", "stream-json", "--stream-dialect", "claude")
	var got []string
	for _, ev := range events(t, r.stdout) {
		got = append(got, ev["type"].(string)+"/"+fmtAny(ev["subtype"]))
	}
	if strings.Join(got, " ") != "system/init result/error_during_execution assistant/ result/success" {
		t.Errorf("lines %v\n%s", got, r.stdout)
	}
	if !strings.Contains(r.stderr, "aidex: warning: stream-json input: bad stream-json input: not a JSON object") || !strings.Contains(r.stderr, `"video"`) {
		t.Errorf("stderr %q", r.stderr)
	}
}

func fmtAny(v any) string {
	if v == nil {
		return ""
	}
	s, _ := v.(string)
	return s
}
