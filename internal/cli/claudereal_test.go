package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The hook configurations of ../shared/claude-real (Anthropic's plugins
// and a popular hooks collection), copied byte for byte into
// testdata/claude-real, run unchanged. Their scripts are third-party
// code and not included: each test writes scripts of its own to the
// item's contract, at the paths the configuration names. A plugin's
// hooks.json is used as the project's .claude/settings.json, with
// CLAUDE_PLUGIN_ROOT set to the plugin's folder (Claude Code sets it for
// plugin hooks).

// claudeRealDir is the shared original; when present, the copies must
// match it.
const claudeRealDir = "/work/shared/claude-real/hooks"

// claudeRealConfigs are the hook configurations of claude-real.
var claudeRealConfigs = []string{
	"disler-hooks-mastery/.claude/settings.json",
	"explanatory-output-style/hooks/hooks.json",
	"hookify/hooks/hooks.json",
	"ralph-wiggum/hooks/hooks.json",
}

func TestClaudeRealCopiesMatch(t *testing.T) {
	if _, err := os.Stat(claudeRealDir); err != nil {
		t.Skip("the shared claude-real folder is not on this machine")
	}
	for _, name := range claudeRealConfigs {
		want, err := os.ReadFile(filepath.Join(claudeRealDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := readTestdata(t, name); !bytes.Equal(got, want) {
			t.Errorf("testdata/claude-real/%s differs from %s", name, filepath.Join(claudeRealDir, name))
		}
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "claude-real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// pluginE2E is a workspace whose .claude/settings.json is plugin's
// hooks.json (unchanged), with CLAUDE_PLUGIN_ROOT at root and files
// (path: content) written under it, executable.
func pluginE2E(t *testing.T, srv *llmtest.Script, config string, files map[string]string) *e2e {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CLAUDE_PLUGIN_ROOT", root)
	e := newE2E(t, srv, "openai", "")
	e.write(".claude/settings.json", string(readTestdata(t, config)))
	e.trust()
	return e
}

// Every configuration loads as Claude Code loads it: each event known,
// no warning.
func TestClaudeRealHookConfigsLoad(t *testing.T) {
	for _, name := range claudeRealConfigs {
		t.Run(name, func(t *testing.T) {
			var raw struct {
				Hooks map[string]json.RawMessage `json:"hooks"`
			}
			if err := json.Unmarshal(readTestdata(t, name), &raw); err != nil {
				t.Fatal(err)
			}
			e := pluginE2E(t, llmtest.NewScript(t), name, nil)
			r := e.run(context.Background(), "hooks", "list")
			if r.code != 0 || strings.Contains(r.stderr, "warning") {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for ev := range raw.Hooks {
				if !strings.Contains(r.stdout, ev) {
					t.Errorf("event %s is not listed:\n%s", ev, r.stdout)
				}
			}
		})
	}
}

// explanatory-output-style: the SessionStart hook's additionalContext
// reaches the model.
func TestClaudeRealExplanatoryOutputStyle(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := pluginE2E(t, srv, "explanatory-output-style/hooks/hooks.json", map[string]string{
		"hooks-handlers/session-start.sh": "#!/bin/sh\ncat > /dev/null\n" +
			`printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"You are in explanatory output style: add Insight blocks."}}'` + "\n"})
	if r := e.run(context.Background(), "-p", "hi"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if req := string(srv.Requests()[0]); !strings.Contains(req, "explanatory output style") {
		t.Errorf("the first request lacks the SessionStart context: %s", req)
	}
}

// hookifyEngine is a rule engine written to hookify's contract: rules
// in .claude/hookify.*.local.md (front matter: name, enabled, event
// bash|file|stop|prompt|all, pattern, action warn|block; the body is the
// message); a matching warn rule is a systemMessage, a block rule denies
// the tool call (PreToolUse) or blocks (Stop, UserPromptSubmit).
const hookifyEngine = `import glob, json, os, re, sys

def rules():
    out = []
    for path in sorted(glob.glob(os.path.join(os.environ.get("CLAUDE_PROJECT_DIR", "."), ".claude", "hookify.*.local.md"))):
        text = open(path).read()
        m = re.match(r"---\n(.*?)\n---\n(.*)", text, re.S)
        if not m:
            continue
        meta = {}
        for line in m.group(1).splitlines():
            if ":" in line and not line.startswith(" "):
                k, v = line.split(":", 1)
                meta[k.strip()] = v.strip()
        if meta.get("enabled", "true") != "true":
            continue
        meta["message"] = m.group(2).strip()
        out.append(meta)
    return out

def main(event):
    data = json.load(sys.stdin)
    with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "hookify.log"), "a") as f:
        f.write(data["hook_event_name"] + "\n")
    tool = data.get("tool_name", "")
    inp = data.get("tool_input", {})
    kind = {"Bash": "bash", "Write": "file", "Edit": "file"}.get(tool, "")
    text = inp.get("command", "") if kind == "bash" else inp.get("content", inp.get("new_string", ""))
    for r in rules():
        if r.get("event") not in (kind, "all") or "pattern" not in r or not re.search(r["pattern"], text):
            continue
        if r.get("action") == "block" and event == "PreToolUse":
            print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}, "systemMessage": r["message"]}))
        else:
            print(json.dumps({"systemMessage": r["message"]}))
        return
    print("{}")
`

// hookify: its example rules, loaded by an engine written to its
// contract, block rm -rf and warn about console.log.
func TestClaudeRealHookify(t *testing.T) {
	needPython(t)
	files := map[string]string{"hooks/hookify_engine.py": hookifyEngine}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit"} {
		files["hooks/"+strings.ToLower(ev)+".py"] = "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\nimport hookify_engine\nhookify_engine.main(\"" + ev + "\")\n"
	}
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"rm -rf build"}`},
			{Name: "write_file", Args: `{"path":"app.js","content":"console.log(1)\n"}`}}},
		llmtest.Turn{Text: "done"})
	e := pluginE2E(t, srv, "hookify/hooks/hooks.json", files)
	for _, rule := range []string{"dangerous-rm", "console-log-warning"} {
		data, err := os.ReadFile(filepath.Join(claudeRealDir, "hookify", "examples", rule+".local.md"))
		if err != nil {
			t.Skip("the shared claude-real folder is not on this machine")
		}
		e.write(".claude/hookify."+rule+".local.md", string(data))
	}
	e.write("build/keep", "keep")
	r := e.run(context.Background(), "-p", "go", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if e.read("build/keep") != "keep" {
		t.Error("rm -rf ran: the hookify block rule did not hold")
	}
	if !strings.Contains(r.stderr, "Dangerous rm command detected") || !strings.Contains(r.stderr, "Console.log detected") {
		t.Errorf("the rules' messages were not shown: %s", r.stderr)
	}
	log := e.read("hookify.log")
	for _, ev := range []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
		if !strings.Contains(log, ev) {
			t.Errorf("hookify's %s hook did not run: %q", ev, log)
		}
	}
}

// ralph-wiggum: the setup script writes the loop's state file, the Stop
// hook reads the last assistant text from the transcript and answers
// {"decision":"block","reason":PROMPT} until the completion promise or
// the iteration cap ends the loop.
func TestClaudeRealRalphWiggumLoop(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed (the ralph-wiggum scripts use it, as the plugin's do)")
	}
	const prompt = "Build the parser. Say <promise>DONE</promise> when it passes."
	for _, tc := range []struct {
		name     string
		max      string
		turns    []string
		requests int
		result   string
	}{
		{"ends at the completion promise", "10", []string{"started", "half done", "all tests pass <promise>DONE</promise>", "never asked"}, 3, "all tests pass"},
		{"ends at max iterations", "2", []string{"started", "still going", "never asked"}, 2, "still going"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var turns []llmtest.Turn
			for _, s := range tc.turns {
				turns = append(turns, llmtest.Turn{Text: s})
			}
			srv := llmtest.NewScript(t, turns...)
			e := pluginE2E(t, srv, "ralph-wiggum/hooks/hooks.json", map[string]string{
				"hooks/stop-hook.sh":          string(readTestdata(t, "ralph-wiggum/hooks/stop-hook.sh")),
				"scripts/setup-ralph-loop.sh": string(readTestdata(t, "ralph-wiggum/scripts/setup-ralph-loop.sh")),
			})
			setup := exec.Command("sh", filepath.Join(os.Getenv("CLAUDE_PLUGIN_ROOT"), "scripts", "setup-ralph-loop.sh"), prompt,
				"--max-iterations", tc.max, "--completion-promise", "DONE")
			setup.Dir = e.ws
			if out, err := setup.CombinedOutput(); err != nil {
				t.Fatalf("setup: %v: %s", err, out)
			}
			// Sandboxed commands cannot write .claude/, where the plugin
			// keeps its state: the loop runs with the sandbox off (or the
			// hook entry's "sandbox": false).
			r := e.run(context.Background(), "-p", prompt, "--output-format", "json", "--sandbox", "off")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != tc.requests || !strings.Contains(r.stdout, tc.result) {
				t.Fatalf("%d requests, result %s; want %d and %q\n%s", len(reqs), r.stdout, tc.requests, tc.result, r.stderr)
			}
			for i := 1; i < len(reqs); i++ {
				var req struct {
					Messages []struct {
						Role    string          `json:"role"`
						Content json.RawMessage `json:"content"`
					} `json:"messages"`
				}
				_ = json.Unmarshal(reqs[i], &req)
				last := req.Messages[len(req.Messages)-1]
				if last.Role != "user" || !strings.Contains(string(last.Content), "Build the parser") {
					t.Errorf("request %d does not continue with the loop's prompt: %s", i+1, last.Content)
				}
			}
			if _, err := os.Stat(filepath.Join(e.ws, ".claude", "ralph-loop.local.md")); err == nil {
				t.Error("the loop's state file is left: the loop did not end")
			}
		})
	}
}

// dislerLogger is a hook script written to the contract of
// disler/claude-code-hooks-mastery's: log the input to
// logs/SCRIPT.jsonl; pre_tool_use blocks rm -rf (exit 2).
const dislerLogger = `import json, os, sys
data = json.load(sys.stdin)
logs = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "logs")
os.makedirs(logs, exist_ok=True)
with open(os.path.join(logs, os.path.basename(sys.argv[0])[:-3] + ".jsonl"), "a") as f:
    f.write(json.dumps(data) + "\n")
if data["hook_event_name"] == "PreToolUse" and data["tool_name"] == "Bash" and "rm -rf" in data["tool_input"].get("command", ""):
    print("BLOCKED: Dangerous rm command detected and prevented", file=sys.stderr)
    sys.exit(2)
`

// disler/claude-code-hooks-mastery: every event's hook (run with `uv
// run`, here a stand-in that runs python3) logs its input, as the
// collection's scripts do; pre_tool_use blocks rm -rf.
func TestClaudeRealDislerHooksMastery(t *testing.T) {
	needPython(t)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "uv"), []byte("#!/bin/sh\n[ \"$1\" = run ] && shift\nexec python3 \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"README.md"}`}, {Name: "read_file", Args: `{"path":"missing.md"}`},
			{Name: "run_command", Args: `{"command":"rm -rf build"}`}, {Name: "write_file", Args: `{"path":"new.txt","content":"x\n"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: `{"subagent_type":"explore","description":"look","prompt":"look around"}`}}},
		llmtest.Turn{Text: "child answer"},
		llmtest.Turn{Text: "done"})
	e := pluginE2E(t, srv, "disler-hooks-mastery/.claude/settings.json", nil)
	names := []string{"pre_tool_use", "post_tool_use", "notification", "stop", "subagent_stop", "user_prompt_submit", "pre_compact",
		"session_start", "session_end", "permission_request", "post_tool_use_failure", "subagent_start", "setup"}
	for _, n := range names {
		e.write(".claude/hooks/"+n+".py", dislerLogger)
	}
	e.write("README.md", "readme\n")
	e.write("build/keep", "keep")
	e.trust() // the scripts the hooks name are part of what trust approves
	r := e.run(context.Background(), "--init", "-p", "go")
	// Exit 0: the collection's settings.json allows Write (a permission
	// rule the trust above approved), and a hook's block of rm -rf ends a
	// finished run with 0, as claude -p does.
	if r.code != ExitOK || !strings.Contains(r.stderr, `run_command "rm -rf build" was blocked by the PreToolUse hook`) {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if e.read("new.txt") != "x\n" {
		t.Error("the write the project's Claude settings allow did not run")
	}
	if e.read("build/keep") != "keep" {
		t.Error("rm -rf ran: pre_tool_use's block did not hold")
	}
	// Notification and PermissionRequest need someone to ask, PreCompact
	// a compaction: a headless run has none (they load:
	// TestClaudeRealHookConfigsLoad).
	for _, n := range names {
		if n == "notification" || n == "pre_compact" || n == "permission_request" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(e.ws, "logs", n+".jsonl"))
		if err != nil {
			t.Errorf("%s did not run: %v", n, err)
			continue
		}
		var in map[string]any
		if err := json.Unmarshal([]byte(strings.SplitN(string(data), "\n", 2)[0]), &in); err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(strings.Title(strings.ReplaceAll(n, "_", " ")), " ", "") //nolint:staticcheck // ASCII names
		if in["hook_event_name"] != want || in["session_id"] == "" || in["cwd"] != e.ws {
			t.Errorf("%s: input %v, want event %s", n, in, want)
		}
	}
}
