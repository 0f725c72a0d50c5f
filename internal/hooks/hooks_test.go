package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/cmdshell"
)

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadTOMLAndClaudeFilesWithTrust(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	global := write(t, filepath.Join(home, ".config", "aidex", "config.toml"),
		"model = \"x\"\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"g1\"\ntimeout = 5\n")
	write(t, filepath.Join(home, ".claude", "settings.json"),
		`{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "g2"}, {"type": "prompt", "prompt": "p"}]}]}}`)
	write(t, filepath.Join(ws, ".aidex", "config.toml"), "[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ncommand = \"p1\"\n")
	write(t, filepath.Join(ws, ".claude", "settings.json"), `{"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "p2", "timeout": 1.5}]}]}}`)
	write(t, filepath.Join(ws, ".claude", "settings.local.json"), `{"hooks": {"Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "p3"}]}]}}`)

	for _, trusted := range []bool{true, false} {
		list, warnings, err := Load(ProjectSources(global, home, ws, trusted))
		if err != nil {
			t.Fatal(err)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], `type "prompt" skipped`) {
			t.Errorf("warnings = %q", warnings)
		}
		var got []string
		for _, h := range list {
			got = append(got, string(h.Event)+" "+h.Matcher+" "+h.Command+" "+h.Timeout.String()+" "+filepath.Base(h.Source)+" "+strconv.FormatBool(h.Ignored == ""))
		}
		want := []string{"PreToolUse Bash g1 5s config.toml true", "Stop  g2 1m0s settings.json true",
			"SessionStart  p1 1m0s config.toml " + strconv.FormatBool(trusted),
			"PostToolUse Edit|Write p2 1.5s settings.json " + strconv.FormatBool(trusted),
			"Notification  p3 1m0s settings.local.json " + strconv.FormatBool(trusted)}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("trusted=%v:\n%s\nwant\n%s", trusted, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestLoadErrorsNameTheFileAndFix(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{`{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"command": "x"}]}]}}`, `matcher "(" is not a valid regular expression`},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}`, `has no "command"`},
		{`{"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": -1}]}]}}`, `timeout must be a positive number of seconds`},
		{`{"hooks": {"Stop": {"hooks": []}}}`, `must map event names to lists`},
		{`{"hooks": `, `settings.json`},
	} {
		f := write(t, filepath.Join(dir, "settings.json"), tc.body)
		_, _, err := Load(Sources{ClaudeGlobal: f})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: err = %v, want %q and the file", tc.body, err, tc.want)
		}
	}
}

func TestLoadUntrustedProjectErrorsAreWarnings(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".claude", "settings.json"), `{"hooks": {"Stop": [{"matcher": "(", "hooks": [{"command": "x"}]}]}}`)
	src := ProjectSources("", "", ws, false)
	list, warnings, err := Load(src)
	if err != nil || len(list) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "not trusted") {
		t.Errorf("untrusted: %v %v %q", list, err, warnings)
	}
	src.Trusted = true
	if _, _, err := Load(src); err == nil {
		t.Error("a trusted project's malformed hooks are no error")
	}
}

func TestMatchers(t *testing.T) {
	for _, tc := range []struct {
		matcher string
		names   []string
		want    bool
	}{
		{"", []string{"Bash", "run_command"}, true},
		{"*", []string{"Write"}, true},
		{"Bash", []string{"Bash", "run_command"}, true},
		{"Bash", []string{"BashOutput", "x"}, false}, // whole name
		{"Edit|Write", []string{"Write", "write_file"}, true},
		{"run_command", []string{"Bash", "run_command"}, true}, // aidex's name
		{"mcp__github__.*", []string{"mcp__github__create_issue", "mcp__github__create_issue"}, true},
		{"Read", []string{"Glob", "search_files"}, false},
	} {
		h := Hook{Matcher: tc.matcher}
		if err := h.compile(); err != nil {
			t.Fatal(err)
		}
		if got := h.Matches(tc.names...); got != tc.want {
			t.Errorf("%q matches %v = %v", tc.matcher, tc.names, got)
		}
	}
}

func TestClaudeToolMapping(t *testing.T) {
	for _, tc := range []struct{ name, args, wantName, wantInput string }{
		{"run_command", `{"command":"ls","cwd":"."}`, "Bash", `{"command":"ls"}`},
		{"write_file", `{"path":"a.txt","content":"x"}`, "Write", `{"content":"x","file_path":"/ws/a.txt"}`},
		{"edit_file", `{"path":"/abs/b","old_string":"a","new_string":"b"}`, "Edit", `{"file_path":"/abs/b","new_string":"b","old_string":"a"}`},
		{"read_file", `{"path":"c"}`, "Read", `{"file_path":"/ws/c"}`},
		{"grep", `{"pattern":"x","include":"*.go"}`, "Grep", `{"glob":"*.go","pattern":"x"}`},
		{"search_files", `{"pattern":"**/*.go"}`, "Glob", `{"pattern":"**/*.go"}`},
		{"web_fetch", `{"url":"https://e.x"}`, "WebFetch", `{"url":"https://e.x"}`},
		{"task", `{"description":"d","prompt":"p","subagent_type":"explore"}`, "Task", `{"description":"d","prompt":"p","subagent_type":"explore"}`},
		{"mcp__srv__tool", `{"a":1}`, "mcp__srv__tool", `{"a":1}`},
		{"git_status", `{}`, "git_status", `{}`},
	} {
		name, input := ClaudeTool(tc.name, json.RawMessage(tc.args), "/ws")
		if name != tc.wantName || string(input) != tc.wantInput {
			t.Errorf("%s: got %s %s, want %s %s", tc.name, name, input, tc.wantName, tc.wantInput)
		}
	}
	back, err := AidexInput("write_file", json.RawMessage(`{"path":"a","content":"old"}`), json.RawMessage(`{"file_path":"/ws/b","content":"new"}`))
	if err != nil || string(back) != `{"content":"new","path":"/ws/b"}` {
		t.Errorf("AidexInput = %s, %v", back, err)
	}
	back, _ = AidexInput("run_command", json.RawMessage(`{"command":"a","cwd":"sub"}`), json.RawMessage(`{"command":"b"}`))
	if string(back) != `{"command":"b","cwd":"sub"}` {
		t.Errorf("AidexInput keeps cwd: %s", back)
	}
}

// runner returns a runner of hooks (event, matcher, command) in dir.
func runner(t *testing.T, dir string, hs ...Hook) *Runner {
	t.Helper()
	for i := range hs {
		if hs[i].Timeout == 0 {
			hs[i].Timeout = DefaultTimeout
		}
		if err := hs[i].compile(); err != nil {
			t.Fatal(err)
		}
	}
	return &Runner{Hooks: hs, ProjectDir: dir}
}

func TestFireExitCodesAndJSON(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		ev      Event
		command string
		check   func(o Outcome) bool
	}{
		{"exit 2 blocks with stderr", PreToolUse, "echo no >&2; exit 2",
			func(o Outcome) bool { return o.Block && o.Reason == "no" && o.Decision == DecisionDeny }},
		{"exit 2 of Notification is a message", Notification, "echo hm >&2; exit 2",
			func(o Outcome) bool {
				return !o.Block && len(o.Messages) == 1 && strings.HasSuffix(o.Messages[0], "hm")
			}},
		{"other codes are a non-blocking error", PreToolUse, "echo oops >&2; exit 1",
			func(o Outcome) bool {
				return !o.Block && len(o.Messages) == 1 && strings.Contains(o.Messages[0], "exit code 1: oops")
			}},
		{"plain stdout is context at UserPromptSubmit", UserPromptSubmit, "echo ctx",
			func(o Outcome) bool { return len(o.Context) == 1 && o.Context[0] == "ctx" }},
		{"plain stdout is not context at PreToolUse", PreToolUse, "echo ctx",
			func(o Outcome) bool { return len(o.Context) == 0 && !o.Block }},
		{"continue false", Stop, `echo '{"continue": false, "stopReason": "enough", "systemMessage": "bye"}'`,
			func(o Outcome) bool { return o.Stop && o.StopReason == "enough" && o.Messages[0] == "bye" }},
		{"decision block", PostToolUse, `echo '{"decision": "block", "reason": "fix lint"}'`,
			func(o Outcome) bool { return o.Block && o.Reason == "fix lint" }},
		{"permissionDecision with updatedInput", PreToolUse,
			`echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "check", "updatedInput": {"command": "ls"}}}'`,
			func(o Outcome) bool {
				return o.Decision == DecisionAsk && o.DecisionReason == "check" && string(o.UpdatedInput) == `{"command": "ls"}`
			}},
		{"PermissionRequest behavior", PermissionRequest,
			`echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "nope"}}}'`,
			func(o Outcome) bool { return o.Decision == DecisionDeny && o.DecisionReason == "nope" }},
		{"additionalContext", SessionStart,
			`echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch main"}}'`,
			func(o Outcome) bool { return len(o.Context) == 1 && o.Context[0] == "branch main" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runner(t, dir, Hook{Event: tc.ev, Command: tc.command})
			o, err := r.Fire(context.Background(), Input{Event: tc.ev, ToolName: "Bash"})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(o) {
				t.Errorf("outcome = %+v", o)
			}
		})
	}
}

func TestFireDenyBeatsAllowAndStdinEnv(t *testing.T) {
	dir := t.TempDir()
	r := runner(t, dir,
		Hook{Event: PreToolUse, Matcher: "Bash", Command: `cat > in.json; echo "$CLAUDE_PROJECT_DIR|$AIDEX_PROJECT_DIR" > env.txt; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`},
		Hook{Event: PreToolUse, Matcher: "run_command", Command: `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"not today"}}'`},
		Hook{Event: PreToolUse, Matcher: "Write", Command: "echo never >&2; exit 2"},
	)
	o, err := r.Fire(context.Background(), Input{Event: PreToolUse, SessionID: "s1", ToolName: "Bash", AidexToolName: "run_command",
		ToolInput: json.RawMessage(`{"command":"ls"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != DecisionDeny || o.DecisionReason != "not today" || o.Block || len(o.Runs) != 2 {
		t.Errorf("outcome = %+v", o)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "in.json"))
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	if in["hook_event_name"] != "PreToolUse" || in["session_id"] != "s1" || in["cwd"] != dir || in["tool_name"] != "Bash" {
		t.Errorf("stdin = %s", data)
	}
	if env, _ := os.ReadFile(filepath.Join(dir, "env.txt")); string(env) != dir+"|"+dir+"\n" {
		t.Errorf("env = %q", env)
	}
}

func TestFireRunsInParallelAndIdenticalCommandsOnce(t *testing.T) {
	dir := t.TempDir()
	// Each waits for the other's flag: run one after the other, the
	// first would time out.
	wait := func(mine, other string) string {
		return "touch " + mine + "; i=0; while [ ! -e " + other + " ]; do sleep 0.05; i=$((i+1)); [ $i -gt 200 ] && exit 1; done; echo x >> count"
	}
	r := runner(t, dir,
		Hook{Event: Stop, Command: wait("a", "b")},
		Hook{Event: Stop, Command: wait("b", "a")},
		Hook{Event: Stop, Command: wait("a", "b")}, // identical: runs once
	)
	o, err := r.Fire(context.Background(), Input{Event: Stop})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Runs) != 2 || len(o.Messages) != 0 {
		t.Fatalf("runs %d, messages %q", len(o.Runs), o.Messages)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "count")); string(data) != "x\nx\n" {
		t.Errorf("count = %q", data)
	}
}

func TestIgnoredHooksNeverRun(t *testing.T) {
	dir := t.TempDir()
	r := runner(t, dir, Hook{Event: Stop, Command: "touch ran", Ignored: UntrustedNote})
	if r.Active(Stop) {
		t.Error("an ignored hook counts as active")
	}
	if _, err := r.Fire(context.Background(), Input{Event: Stop}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("an ignored hook ran")
	}
}

// TestHookThatCannotStartBlocks: a guarding hook whose shell or program
// is missing blocks what it guards (fail closed) and says why; other
// events only report it.
func TestHookThatCannotStartBlocks(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir()) // no sh on PATH
	for _, ev := range []Event{PreToolUse, PermissionRequest, UserPromptSubmit, PostToolUse, Notification} {
		r := runner(t, dir, Hook{Event: ev, Command: "exit 0"})
		r.Shell = cmdshell.Shell{Path: filepath.Join(dir, "no-such-sh")}
		o, err := r.Fire(context.Background(), Input{Event: ev, ToolName: "Bash"})
		if err != nil {
			t.Fatal(err)
		}
		want := ev == PreToolUse || ev == PermissionRequest || ev == UserPromptSubmit
		if o.Block != want || want && !strings.Contains(o.Reason, "could not start") {
			t.Errorf("%s: Block %v (want %v), reason %q, messages %q", ev, o.Block, want, o.Reason, o.Messages)
		}
		if want && (ev == PreToolUse || ev == PermissionRequest) && o.Decision != DecisionDeny {
			t.Errorf("%s: decision %q, want deny", ev, o.Decision)
		}
		if !want && len(o.Messages) != 1 {
			t.Errorf("%s: messages %q, want the failure reported", ev, o.Messages)
		}
	}
}
