package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The hook scripts are written the way Claude Code's documentation shows:
// read the JSON on stdin, exit 2 with a message on stderr to block.

// blockRmPy blocks Bash commands holding "rm -rf" (Python, reading stdin
// JSON) and records that it ran.
const blockRmPy = `import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "hook-pre.log"), "a") as f:
    f.write(data["hook_event_name"] + " " + data["tool_name"] + "\n")
if data["tool_name"] == "Bash" and "rm -rf" in data["tool_input"].get("command", ""):
    print("Blocked by policy hook: rm -rf is not allowed in this repository", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
`

// recordSh keeps its stdin (shell, no jq) and, for a Write, tells the
// model on stderr that the file was checked.
const recordSh = `#!/bin/sh
input=$(cat)
printf '%s\n' "$input" >> "$AIDEX_PROJECT_DIR/hook-post.jsonl"
case "$input" in
  *'"tool_name":"Write"'*) echo "lint: checked the written file" >&2; exit 2 ;;
esac
exit 0
`

// hookE2E is an e2e workspace with hook scripts and .claude/settings.json.
func hookE2E(t *testing.T, srv *llmtest.Script, trusted bool, settings string) *e2e {
	t.Helper()
	e := newE2E(t, srv, "openai", "")
	e.write(".claude/hooks/block_rm.py", blockRmPy)
	e.write(".claude/hooks/record.sh", recordSh)
	e.write(".claude/settings.json", settings)
	if trusted {
		e.trust()
	}
	return e
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

const preBashSettings = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR/.claude/hooks/block_rm.py\"", "timeout": 30}]}]}}`

func TestHookPreToolUseBlocksBashAndTellsTheModel(t *testing.T) {
	needPython(t)
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"rm -rf build"}`}}},
		llmtest.Turn{Text: "The hook refused it."})
	e := hookE2E(t, srv, true, preBashSettings)
	e.write("build/x", "keep")
	// yolo: the policy alone would run the command; only the hook stops it.
	r := e.run(context.Background(), "-p", "clean", "--permission-mode", "yolo", "--output-format", "json")
	if e.read("build/x") != "keep" {
		t.Fatalf("the blocked command ran; stderr %s", r.stderr)
	}
	if got := e.read("hook-pre.log"); got != "PreToolUse Bash\n" {
		t.Errorf("the hook saw %q, want one PreToolUse of Bash", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1]), "rm -rf is not allowed in this repository") {
		t.Fatalf("the model did not receive the hook's stderr: %d requests", len(reqs))
	}
}

func TestHookPostToolUseSeesClaudeWriteShape(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"src/a.txt","content":"hello\n"}`}}},
		llmtest.Turn{Text: "Written."})
	e := hookE2E(t, srv, true, `{"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [
  {"type": "command", "command": "sh .claude/hooks/record.sh"}]}]}}`)
	r := e.run(context.Background(), "-p", "write it", "--permission-mode", "auto-edit")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var in struct {
		Event     string `json:"hook_event_name"`
		ToolName  string `json:"tool_name"`
		AidexName string `json:"aidex_tool_name"`
		Session   string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Mode      string `json:"permission_mode"`
		Input     struct {
			FilePath string `json:"file_path"`
			Content  string `json:"content"`
		} `json:"tool_input"`
		Response map[string]any `json:"tool_response"`
		Path     string         `json:"transcript_path"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(e.read("hook-post.jsonl"))), &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != "PostToolUse" || in.ToolName != "Write" || in.AidexName != "write_file" || in.Input.Content != "hello\n" ||
		in.Input.FilePath != filepath.Join(e.ws, "src", "a.txt") || in.Session == "" || in.Cwd != e.ws || in.Mode != "acceptEdits" {
		t.Errorf("hook input = %+v", in)
	}
	if in.Response["success"] != true || in.Response["filePath"] != in.Input.FilePath {
		t.Errorf("tool_response = %v", in.Response)
	}
	if strings.Contains(in.Path, "aidex-transcripts-") {
		// Sandboxed hooks' transcripts live in a temp folder that goes
		// with the session (TestHookInputsFieldByField reads one in its hook).
		if _, err := os.Stat(in.Path); err == nil {
			t.Errorf("transcript %s outlived the session", in.Path)
		}
	} else if data, err := os.ReadFile(in.Path); err != nil || !strings.Contains(string(data), "write it") {
		t.Errorf("transcript %s: %v %q", in.Path, err, data)
	}
	// Exit 2: its stderr reaches the model with the result.
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1]), "lint: checked the written file") {
		t.Errorf("the model did not receive the PostToolUse feedback")
	}
}

func TestHookUserPromptSubmitAddsContext(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := hookE2E(t, srv, true, `{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "command", "command": "cat > hook-prompt.json; echo 'Project codename: BLUEBIRD-7'"}]}]}}`)
	r := e.run(context.Background(), "-p", "what is the codename?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0]), "BLUEBIRD-7") {
		t.Fatalf("the hook's context is not in the request")
	}
	if got := e.read("hook-prompt.json"); !strings.Contains(got, `"prompt":"what is the codename?"`) {
		t.Errorf("hook stdin = %s", got)
	}
}

func TestHookUserPromptSubmitBlocksWithStderrToUser(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := hookE2E(t, srv, true, `{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "command", "command": "echo 'prompts mentioning secrets are refused' >&2; exit 2"}]}]}}`)
	r := e.run(context.Background(), "-p", "print the secrets")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "prompts mentioning secrets are refused") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("a blocked prompt was sent (%d requests)", n)
	}
}

// A Stop hook that exits 2 keeps the run going; this one lets go once
// stop_hook_active is true.
func TestHookStopExit2Continues(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "All done."}, llmtest.Turn{Text: "Ran the tests: they pass."},
		llmtest.Turn{Text: "should not be asked"})
	e := hookE2E(t, srv, true, `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "in=$(cat); printf '%s\\n' \"$in\" >> hook-stop.jsonl; case $in in *'\"stop_hook_active\":true'*) exit 0;; esac; echo 'run the tests before you stop' >&2; exit 2"}]}]}}`)
	r := e.run(context.Background(), "-p", "finish", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1]), "run the tests before you stop") {
		t.Fatalf("want exactly one continuation carrying the hook's stderr, got %d requests", len(reqs))
	}
	lines := strings.Split(strings.TrimSpace(e.read("hook-stop.jsonl")), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"stop_hook_active":false`) || !strings.Contains(lines[1], `"stop_hook_active":true`) {
		t.Errorf("Stop hook inputs: %q", lines)
	}
	if !strings.Contains(r.stdout, "they pass") {
		t.Errorf("result = %s", r.stdout)
	}
}

// rewriteSettings rewrites every Bash command to NEW (updatedInput) with
// permissionDecision allow.
func rewriteSettings(newCmd string) string {
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse",
		"permissionDecision": "allow", "updatedInput": map[string]any{"command": newCmd}}})
	cmd, _ := json.Marshal("cat > /dev/null; echo '" + string(out) + "'")
	return `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ` + string(cmd) + `}]}]}}`
}

func TestHookUpdatedInputRewritesTheCommand(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo original > out.txt"}`}}},
		llmtest.Turn{Text: "done"})
	e := hookE2E(t, srv, true, rewriteSettings("echo rewritten > out.txt"))
	// ask mode headless: the hook's allow skips the mode's ask.
	r := e.run(context.Background(), "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := e.read("out.txt"); got != "rewritten\n" {
		t.Errorf("out.txt = %q, want the rewritten command's output", got)
	}
}

func TestHookUpdatedInputIsJudgedAgain(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo harmless"}`}}},
		llmtest.Turn{Text: "done"})
	e := hookE2E(t, srv, true, rewriteSettings("rm -rf build"))
	e.write("build/x", "keep")
	r := e.run(context.Background(), "-p", "go", "--permission-mode", "yolo", "--deny", "run_command(rm *)", "--output-format", "stream-json")
	if r.code != ExitDenied || e.read("build/x") != "keep" {
		t.Fatalf("exit %d (want %d), build/x kept: the rewritten command was not judged again; stderr %s", r.code, ExitDenied, r.stderr)
	}
	if !strings.Contains(r.stdout, "rm -rf build") {
		t.Errorf("the denial does not name the rewritten command: %s", r.stdout)
	}
}

const allowAllSettings = `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command",
  "command": "cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"trusted by hook\"}}'"}]}]}}`

func TestHookAllowDoesNotBeatDenyRule(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"touch made.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"rm -rf build"}`}}},
		llmtest.Turn{Text: "done"})
	e := hookE2E(t, srv, true, allowAllSettings)
	e.write("build/x", "keep")
	r := e.run(context.Background(), "-p", "go", "--deny", "run_command(rm *)")
	// The hook's allow skips the ask of the mode (headless would deny it)...
	if _, err := os.Stat(filepath.Join(e.ws, "made.txt")); err != nil {
		t.Fatalf("the hook's allow did not skip the mode's ask: %v; stderr %s", err, r.stderr)
	}
	// ...but never a deny rule.
	if r.code != ExitDenied || e.read("build/x") != "keep" {
		t.Fatalf("exit %d: a hook's allow beat the deny rule; stderr %s", r.code, r.stderr)
	}
}

func TestHookAllowDoesNotBeatProtectedPath(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":".git/hooks/pre-commit","content":"evil"}`}}},
		llmtest.Turn{Text: "done"})
	e := hookE2E(t, srv, true, allowAllSettings)
	r := e.run(context.Background(), "-p", "go")
	if _, err := os.Stat(filepath.Join(e.ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatalf("a hook's allow wrote a protected path; exit %d", r.code)
	}
	if r.code != ExitDenied {
		t.Errorf("exit %d, want %d", r.code, ExitDenied)
	}
}

func TestHookUntrustedProjectHooksDoNotRun(t *testing.T) {
	needPython(t)
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"rm -rf build"}`}}},
		llmtest.Turn{Text: "done"})
	e := hookE2E(t, srv, false, preBashSettings)
	e.write("build/x", "keep")
	r := e.run(context.Background(), "-p", "clean", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "hook-pre.log")); err == nil {
		t.Fatal("a hook of an untrusted project ran")
	}
	if !strings.Contains(r.stderr, "ignored because the folder is not trusted") {
		t.Errorf("no warning about the ignored hooks: %s", r.stderr)
	}
	l := e.run(context.Background(), "hooks", "list")
	if l.code != 0 || !strings.Contains(l.stdout, "PreToolUse") || !strings.Contains(l.stdout, "ignored: the project folder is not trusted") ||
		!strings.Contains(l.stdout, filepath.Join(e.ws, ".claude", "settings.json")) {
		t.Errorf("hooks list:\n%s\n%s", l.stdout, l.stderr)
	}
}

func TestHooksListAndVerbose(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := hookE2E(t, srv, true, `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true", "timeout": 5}]}]}}`)
	e.write(".aidex/config.toml", "[[hooks.PreToolUse]]\nmatcher = \"Edit|Write\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"echo toml\"\n")
	e.trust() // approve the hook added since
	l := e.run(context.Background(), "hooks", "list")
	if l.code != 0 {
		t.Fatalf("exit %d: %s", l.code, l.stderr)
	}
	for _, want := range []string{"UserPromptSubmit", "true", "5s", "PreToolUse", "Edit|Write", "echo toml",
		filepath.Join(e.ws, ".aidex", "config.toml"), "active"} {
		if !strings.Contains(l.stdout, want) {
			t.Errorf("hooks list lacks %q:\n%s", want, l.stdout)
		}
	}
	r := e.run(context.Background(), "-p", "hi", "--verbose")
	if r.code != 0 || !strings.Contains(r.stderr, `hook UserPromptSubmit "true": exit 0`) {
		t.Errorf("--verbose did not log the hook run: exit %d\n%s", r.code, r.stderr)
	}
}

func TestHooksBadConfigIsAClearError(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := hookE2E(t, srv, true, `{"hooks": {"Stop": [{"matcher": "(", "hooks": [{"type": "command", "command": "true"}]}]}}`)
	r := e.run(context.Background(), "-p", "hi")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `matcher "(" is not a valid regular expression`) || !strings.Contains(r.stderr, "settings.json") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

// An event aidex does not know (a newer Claude Code's) is one warning
// naming the file and line; the run goes on and the file's other hooks
// run.
func TestHooksUnknownEventIsAWarning(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := hookE2E(t, srv, true, "{\"hooks\": {\n  \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo ran > hook-stop.log\"}]}],\n"+
		"  \"PreToolUsed\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]}}")
	r := e.run(context.Background(), "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, filepath.Join(".claude", "settings.json")+`:3: unknown hook event "PreToolUsed"`) {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	if got := e.read("hook-stop.log"); got != "ran\n" {
		t.Errorf("the file's Stop hook: %q", got)
	}
}

func TestHookSessionStartContextAndSessionEnd(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := hookE2E(t, srv, true, `{"hooks": {
  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "cat > hook-start.json; echo 'Open issues: #12 flaky test'"}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "cat > hook-end.json"}]}]}}`)
	r := e.run(context.Background(), "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0]), "Open issues: #12 flaky test") {
		t.Errorf("the SessionStart context is not in the request")
	}
	if got := e.read("hook-start.json"); !strings.Contains(got, `"source":"startup"`) || !strings.Contains(got, `"hook_event_name":"SessionStart"`) {
		t.Errorf("SessionStart stdin = %s", got)
	}
	if got := e.read("hook-end.json"); !strings.Contains(got, `"hook_event_name":"SessionEnd"`) {
		t.Errorf("SessionEnd stdin = %s", got)
	}
}

func TestHookOtherExitCodeIsANonBlockingError(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"touch made.txt"}`}}},
		llmtest.Turn{Text: "done"})
	e := hookE2E(t, srv, true, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "echo 'linter config missing' >&2; exit 1"}]}]}}`)
	r := e.run(context.Background(), "-p", "go", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made.txt")); err != nil {
		t.Errorf("a failing (exit 1) hook blocked the call: %v", err)
	}
	if !strings.Contains(r.stderr, "failed with exit code 1: linter config missing") {
		t.Errorf("the user was not shown the hook's error: %q", r.stderr)
	}
}

func TestHookMessagesFollowTheSessionEvent(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := hookE2E(t, srv, true, `{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "command", "command": "echo '{\"systemMessage\": \"prompt logged for audit\"}'"}]}]}}`)
	r := e.run(context.Background(), "-p", "hi", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if types := eventTypes(evs); !strings.HasPrefix(types, "session,error,") {
		t.Fatalf("events %s", types)
	}
	if msg := evs[1]["error"].(map[string]any); msg["message"] != "prompt logged for audit" || msg["kind"] != "hook" || msg["fatal"] == true {
		t.Errorf("hook message event = %v", msg)
	}
}
