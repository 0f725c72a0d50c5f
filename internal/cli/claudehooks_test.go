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

// hookInputs reads a JSONL file of hook inputs the hooks appended.
func hookInputs(t *testing.T, e *e2e, name string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(e.read(name)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v: %q", name, err, line)
		}
		out = append(out, m)
	}
	return out
}

// recordTo is a hook command appending its input, one line, to file.
func recordTo(file string) string {
	return `{"type": "command", "command": "cat >> ` + file + `; echo >> ` + file + `"}`
}

// hookCmd is a hook entry running the shell command cmd.
func hookCmd(cmd string) string {
	js, _ := json.Marshal(map[string]string{"type": "command", "command": cmd})
	return string(js)
}

// copyField is shell that copies the file the input's JSON field names
// (a path) to dst (the transcripts outlive no session: read them in the
// hook).
func copyField(field, dst string) string {
	return `p=$(printf '%s' "$in" | sed -n 's/.*"` + field + `":"\([^"]*\)".*/\1/p'); cp "$p" ` + dst
}

// A headless run whose call a hook blocked exits 0 when it otherwise
// finished, as claude -p does; the JSON result lists the call in denials
// with the hook as its source.
func TestHookBlockedCallExitsZeroAndIsListed(t *testing.T) {
	for _, tc := range []struct {
		name, settings, rule string
	}{
		{"exit 2", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}}`, `PreToolUse hook "echo no >&2; exit 2"`},
		{"permissionDecision deny", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}'"}]}]}}`,
			`PreToolUse hook "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}'"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewScript(t,
				llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"touch blocked.txt"}`}}},
				llmtest.Turn{Text: "The hook refused it."})
			e := hookE2E(t, srv, true, tc.settings)
			r := e.run(context.Background(), "-p", "go", "--permission-mode", "yolo", "--output-format", "json")
			if r.code != 0 {
				t.Errorf("exit %d, want 0: %s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(e.ws, "blocked.txt")); err == nil {
				t.Fatal("the blocked command ran")
			}
			var res struct {
				StopReason string `json:"stop_reason"`
				Denials    []struct {
					Tool, Command, Decision, Rule, Source string
				} `json:"denials"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatalf("%v: %s", err, r.stdout)
			}
			want := filepath.Join(e.ws, ".claude", "settings.json")
			if res.StopReason != "done" || len(res.Denials) != 1 || res.Denials[0].Tool != "run_command" || res.Denials[0].Command != "touch blocked.txt" ||
				res.Denials[0].Decision != "deny" || res.Denials[0].Rule != tc.rule || res.Denials[0].Source != want {
				t.Errorf("result = %+v", res)
			}
		})
	}
}

// The inputs of Bash calls and of the session's points carry Claude
// Code's fields and units.
func TestHookInputsFieldByField(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo out; echo err >&2","timeout":30}`}}},
		llmtest.Turn{Text: "done"})
	e := hookE2E(t, srv, true, `{"hooks": {
  "SessionStart": [{"hooks": [`+recordTo("start.jsonl")+`]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [`+recordTo("pre.jsonl")+`]}],
  "PostToolUse": [{"matcher": "Bash", "hooks": [`+recordTo("post.jsonl")+`]}],
  "Stop": [{"hooks": [`+hookCmd(`in=$(cat); printf '%s\n' "$in" >> stop.jsonl; `+copyField("transcript_path", "transcript.jsonl"))+`]}]}}`)
	if r := e.run(context.Background(), "-p", "go", "--permission-mode", "yolo"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if start := hookInputs(t, e, "start.jsonl"); len(start) != 1 || start[0]["model"] != "fake/scripted" || start[0]["source"] != "startup" {
		t.Errorf("SessionStart inputs: %v", start)
	}
	pre := hookInputs(t, e, "pre.jsonl")
	if len(pre) != 1 || pre[0]["tool_input"].(map[string]any)["timeout"] != 30000.0 {
		t.Errorf("PreToolUse inputs (timeout in ms): %v", pre)
	}
	post := hookInputs(t, e, "post.jsonl")
	if len(post) != 1 {
		t.Fatalf("PostToolUse fired %d times", len(post))
	}
	resp := post[0]["tool_response"].(map[string]any)
	if out := resp["stdout"].(string); out != "out\nerr\n" || strings.Contains(out, "exit code") || resp["stderr"] != "" || resp["interrupted"] != false {
		t.Errorf("tool_response = %v", resp)
	}
	stop := hookInputs(t, e, "stop.jsonl")
	if len(stop) != 1 || stop[0]["last_assistant_message"] != "done" {
		t.Fatalf("Stop inputs: %v", stop)
	}
	checkClaudeTranscript(t, e, stop[0])
}

// checkClaudeTranscript checks the transcript the Stop hook of
// TestHookInputsFieldByField copied: Claude Code's format, one compact
// object a line, and its temp folder gone with the session.
func checkClaudeTranscript(t *testing.T, e *e2e, stop map[string]any) {
	t.Helper()
	// transcript_path is Claude Code's format: one compact object a line.
	data := []byte(e.read("transcript.jsonl"))
	if p := stop["transcript_path"].(string); strings.Contains(p, "aidex-transcripts-") {
		// The temp folder of sandboxed hooks' transcripts goes with the session.
		if _, err := os.Stat(filepath.Dir(p)); err == nil {
			t.Errorf("the transcripts temp folder %s is left behind", filepath.Dir(p))
		}
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 4 {
		t.Fatalf("transcript has %d lines:\n%s", len(lines), data)
	}
	want := []struct{ typ, block string }{{"user", "text"}, {"assistant", "tool_use"}, {"user", "tool_result"}, {"assistant", "text"}}
	for i, l := range lines {
		var m struct {
			Type    string `json:"type"`
			Session string `json:"session_id"`
			UUID    string `json:"uuid"`
			Message struct {
				Role    string           `json:"role"`
				Content []map[string]any `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m.Type != want[i].typ || m.Message.Role != want[i].typ || m.Session != stop["session_id"] || len(m.UUID) != 36 ||
			len(m.Message.Content) == 0 || m.Message.Content[0]["type"] != want[i].block {
			t.Errorf("line %d = %s", i+1, l)
		}
		if want[i].typ == "assistant" && !strings.Contains(l, `"role":"assistant"`) {
			t.Errorf("line %d is not compact: %s", i+1, l)
		}
	}
	if !strings.Contains(lines[1], `"name":"Bash"`) || !strings.Contains(lines[2], `"tool_use_id":`) {
		t.Errorf("tool lines: %s\n%s", lines[1], lines[2])
	}
}

// A subagent's start and stop: SubagentStart (agent_id, agent_type, its
// additionalContext in the child's first request), SubagentStop (the
// main session's session_id and transcript_path, the child's agent_id
// and agent_transcript_path), and PostToolUse once for the task call.
func TestHookSubagentStartStopAndTaskOnce(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: `{"subagent_type":"explore","description":"look","prompt":"look around"}`}}},
		llmtest.Turn{Text: "child answer"},
		llmtest.Turn{Text: "parent answer"})
	ctx := `{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"REMEMBER THE CONVENTIONS"}}`
	e := hookE2E(t, srv, true, `{"hooks": {
  "SubagentStart": [{"matcher": "explore", "hooks": [`+hookCmd("cat >> sub-start.jsonl; echo >> sub-start.jsonl; echo '"+ctx+"'")+`]},
                    {"matcher": "general", "hooks": [`+recordTo("wrong-type.jsonl")+`]}],
  "SubagentStop": [{"matcher": "explore", "hooks": [`+hookCmd(`in=$(cat); printf '%s\n' "$in" >> sub-stop.jsonl; `+copyField("agent_transcript_path", "agent.jsonl"))+`]}],
  "PostToolUse": [{"hooks": [`+recordTo("post.jsonl")+`]}],
  "Stop": [{"hooks": [`+recordTo("stop.jsonl")+`]}]}}`)
	if r := e.run(context.Background(), "-p", "go"); r.code != 0 || strings.TrimSpace(r.stdout) != "parent answer" {
		t.Fatalf("exit %d stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	stop := hookInputs(t, e, "stop.jsonl")
	if len(stop) != 1 {
		t.Fatalf("Stop inputs: %v", stop)
	}
	mainID, mainPath := stop[0]["session_id"], stop[0]["transcript_path"]
	start := hookInputs(t, e, "sub-start.jsonl")
	if len(start) != 1 || start[0]["agent_type"] != "explore" || start[0]["agent_id"] == "" || start[0]["session_id"] != mainID {
		t.Fatalf("SubagentStart inputs: %v", start)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "wrong-type.jsonl")); err == nil {
		t.Error("a SubagentStart hook of another agent type ran")
	}
	if child := string(srv.Requests()[1]); !strings.Contains(child, "REMEMBER THE CONVENTIONS") || !strings.Contains(child, "look around") {
		t.Errorf("the child's first request lacks the context: %s", child)
	}
	sub := hookInputs(t, e, "sub-stop.jsonl")
	if len(sub) != 1 {
		t.Fatalf("SubagentStop inputs: %v", sub)
	}
	s := sub[0]
	if s["session_id"] != mainID || s["transcript_path"] != mainPath || s["agent_id"] != start[0]["agent_id"] || s["agent_type"] != "explore" ||
		s["agent_transcript_path"] == "" || s["agent_transcript_path"] == mainPath || s["last_assistant_message"] != "child answer" {
		t.Errorf("SubagentStop input = %v (main %v %v)", s, mainID, mainPath)
	}
	if data := e.read("agent.jsonl"); !strings.Contains(data, "child answer") || !strings.Contains(data, "look around") {
		t.Errorf("agent transcript: %s", data)
	}
	tasks := 0
	for _, p := range hookInputs(t, e, "post.jsonl") {
		if p["tool_name"] == "Task" {
			tasks++
		}
	}
	if tasks != 1 {
		t.Errorf("PostToolUse fired %d times for the task call, want once", tasks)
	}
}

// What a SessionStart hook exports through CLAUDE_ENV_FILE reaches the
// session's commands, through the environment filter: a credential-
// looking name only when command_env_allow names it.
func TestHookEnvFileReachesCommands(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
	}{
		{"filtered", "", "greeting=hello token= project=p1\n"},
		{"allowed", `command_env_allow = ["DEPLOY_TOKEN"]`, "greeting=hello token=s3cret project=p1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewScript(t,
				llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo greeting=$GREETING token=$DEPLOY_TOKEN project=$PROJECT > env.txt"}`}}},
				llmtest.Turn{Text: "done"})
			e := newE2E(t, srv, "openai", tc.config)
			e.write(".claude/hooks/env.sh", "cat > /dev/null\nprintf 'export GREETING=hello\\nexport DEPLOY_TOKEN=s3cret\\nPROJECT=\"p1\"\\n' >> \"$CLAUDE_ENV_FILE\"\n")
			e.write(".claude/settings.json", `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "sh .claude/hooks/env.sh"}]}]}}`)
			e.trust()
			if r := e.run(context.Background(), "-p", "go", "--permission-mode", "yolo"); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := e.read("env.txt"); got != tc.want {
				t.Errorf("the command saw %q, want %q", got, tc.want)
			}
		})
	}
}

// Setup hooks run only with --init, --init-only or --maintenance, their
// trigger as the matcher; --init-only exits after them; exit 2 does not
// block; what they export reaches the session's commands and their
// context the model.
func TestHookSetupFlags(t *testing.T) {
	settings := `{"hooks": {"Setup": [
  {"matcher": "init", "hooks": [` + hookCmd(`cat >> setup-init.jsonl; echo >> setup-init.jsonl; echo 'export SETUP_DONE=yes' >> "$CLAUDE_ENV_FILE"; echo '{"hookSpecificOutput":{"hookEventName":"Setup","additionalContext":"SETUP CONTEXT"}}'`) + `]},
  {"matcher": "maintenance", "hooks": [` + hookCmd(`cat >> setup-maint.jsonl; echo >> setup-maint.jsonl; echo 'maintenance says no' >&2; exit 2`) + `]}]}}`
	count := func(e *e2e, name string) int {
		data, err := os.ReadFile(filepath.Join(e.ws, name))
		if err != nil {
			return 0
		}
		return strings.Count(string(data), `"hook_event_name":"Setup"`)
	}
	for _, tc := range []struct {
		name             string
		args             []string
		init, maint, req int
	}{
		{"no flag", []string{"-p", "go"}, 0, 0, 2},
		{"--init-only", []string{"--init-only"}, 1, 0, 0},
		{"--init", []string{"--init", "-p", "go"}, 1, 0, 2},
		{"--maintenance", []string{"--maintenance", "-p", "go"}, 0, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewScript(t,
				llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo setup=$SETUP_DONE > env.txt"}`}}},
				llmtest.Turn{Text: "done"})
			e := hookE2E(t, srv, true, settings)
			r := e.run(context.Background(), append(tc.args, "--permission-mode", "yolo")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if count(e, "setup-init.jsonl") != tc.init || count(e, "setup-maint.jsonl") != tc.maint || len(srv.Requests()) != tc.req {
				t.Fatalf("init %d maintenance %d requests %d, want %d %d %d", count(e, "setup-init.jsonl"), count(e, "setup-maint.jsonl"),
					len(srv.Requests()), tc.init, tc.maint, tc.req)
			}
			if tc.maint > 0 && !strings.Contains(r.stderr, "maintenance says no") {
				t.Errorf("the Setup hook's stderr was not shown: %s", r.stderr)
			}
			if tc.init > 0 {
				in := hookInputs(t, e, "setup-init.jsonl")[0]
				if in["trigger"] != "init" || in["session_id"] == "" || in["cwd"] != e.ws {
					t.Errorf("Setup input = %v", in)
				}
			}
			if tc.req == 0 {
				return
			}
			want := "setup=\n"
			if tc.init > 0 {
				want = "setup=yes\n"
			}
			if got := e.read("env.txt"); got != want {
				t.Errorf("the command saw %q, want %q", got, want)
			}
			if has := strings.Contains(string(srv.Requests()[0]), "SETUP CONTEXT"); has != (tc.init > 0) {
				t.Errorf("the first request carries the Setup context: %v", has)
			}
		})
	}
}
