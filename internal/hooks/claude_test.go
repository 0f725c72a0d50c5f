package hooks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An event name aidex does not know is one warning naming the file and
// the line; that hook is skipped and the file's other hooks load.
func TestLoadUnknownEventIsAWarningWithFileAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file, body string
		line             string
	}{
		{"json", "settings.json", "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"command\": \"ok\"}]}],\n    \"PreToolUsed\": [{\"hooks\": [{\"command\": \"x\"}]}]\n  }\n}\n", ":4:"},
		{"json one line", "settings.json", `{"hooks": {"Stop": [{"hooks": [{"command": "ok"}]}], "FileChanged": []}}`, ":1:"},
		{"toml", "config.toml", "model = \"m\"\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"ok\"\n\n[[hooks.WorktreeCreate]]\n[[hooks.WorktreeCreate.hooks]]\ncommand = \"x\"\n", ":6:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := write(t, filepath.Join(dir, tc.name, tc.file), tc.body)
			src := Sources{ClaudeGlobal: f}
			if strings.HasSuffix(tc.file, ".toml") {
				src = Sources{GlobalTOML: f}
			}
			list, warnings, err := Load(src)
			if err != nil {
				t.Fatalf("err = %v, want a warning", err)
			}
			if len(list) != 1 || list[0].Event != Stop || list[0].Command != "ok" {
				t.Errorf("hooks = %+v, want the Stop hook alone", list)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], f+tc.line) || !strings.Contains(warnings[0], "unknown hook event") ||
				strings.Contains(warnings[0], "\n") {
				t.Errorf("warnings = %q, want one line naming %s%s", warnings, f, tc.line)
			}
		})
	}
}

// Setup and SubagentStart are events as Claude Code has them: their
// matchers match the trigger and the agent type.
func TestSetupAndSubagentStartMatchers(t *testing.T) {
	dir := t.TempDir()
	f := write(t, filepath.Join(dir, "settings.json"), `{"hooks": {
  "Setup": [{"matcher": "init", "hooks": [{"command": "setup-init"}]}, {"matcher": "maintenance", "hooks": [{"command": "setup-maint"}]}],
  "SubagentStart": [{"matcher": "Explore|general", "hooks": [{"command": "sub-start"}]}],
  "SubagentStop": [{"matcher": "reviewer", "hooks": [{"command": "sub-stop"}]}]}}`)
	list, warnings, err := Load(Sources{ClaudeGlobal: f})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v warnings %q", err, warnings)
	}
	r := &Runner{Hooks: list}
	for _, tc := range []struct {
		in   Input
		want []string
	}{
		{Input{Event: Setup, Trigger: "init"}, []string{"setup-init"}},
		{Input{Event: Setup, Trigger: "maintenance"}, []string{"setup-maint"}},
		{Input{Event: SubagentStart, AgentType: "general"}, []string{"sub-start"}},
		{Input{Event: SubagentStart, AgentType: "reviewer"}, nil},
		{Input{Event: SubagentStop, AgentType: "reviewer"}, []string{"sub-stop"}},
		{Input{Event: SubagentStop, AgentType: "general"}, nil},
	} {
		var got []string
		for _, h := range r.Matching(&tc.in) {
			got = append(got, h.Command)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q%q: %v, want %v", tc.in.Event, tc.in.Trigger, tc.in.AgentType, got, tc.want)
		}
	}
}

// Exit code 2 blocks only where Claude Code says it does: not at Setup,
// SubagentStart, SessionStart, PreCompact, Notification or SessionEnd.
func TestExit2BlocksOnlyBlockingEvents(t *testing.T) {
	for _, tc := range []struct {
		ev    Event
		block bool
	}{
		{Setup, false}, {SubagentStart, false}, {SessionStart, false}, {SessionEnd, false}, {Notification, false}, {PreCompact, false},
		{PreToolUse, true}, {PostToolUse, true}, {UserPromptSubmit, true}, {Stop, true}, {SubagentStop, true},
	} {
		r := &Runner{Hooks: []Hook{{Event: tc.ev, Command: "echo no >&2; exit 2", Timeout: DefaultTimeout}}, ProjectDir: t.TempDir()}
		out, err := r.Fire(context.Background(), Input{Event: tc.ev})
		if err != nil {
			t.Fatal(err)
		}
		if out.Block != tc.block {
			t.Errorf("%s: Block = %v, want %v (%+v)", tc.ev, out.Block, tc.block, out)
		}
	}
}

// The input of each event carries Claude Code's fields.
func TestInputFieldsAsClaudeCode(t *testing.T) {
	empty := ""
	for _, tc := range []struct {
		in   Input
		want []string
	}{
		{Input{Event: PreCompact, Trigger: "manual", CustomInstructions: &empty}, []string{`"custom_instructions":""`, `"trigger":"manual"`}},
		{Input{Event: SessionStart, Source: "startup", Model: "fake/m"}, []string{`"model":"fake/m"`, `"source":"startup"`}},
		{Input{Event: Setup, Trigger: "init"}, []string{`"trigger":"init"`}},
		{Input{Event: SubagentStart, AgentID: "a1", AgentType: "Explore"}, []string{`"agent_id":"a1"`, `"agent_type":"Explore"`}},
		{Input{Event: SubagentStop, AgentID: "a1", AgentType: "Explore", AgentTranscript: "/t/a1.jsonl"},
			[]string{`"agent_id":"a1"`, `"agent_type":"Explore"`, `"agent_transcript_path":"/t/a1.jsonl"`}},
	} {
		js, err := json.Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(js), w) {
				t.Errorf("%s input %s lacks %s", tc.in.Event, js, w)
			}
		}
	}
}

// SessionStart and Setup hooks get CLAUDE_ENV_FILE; what they export
// there is the outcome's Env. Other events get no CLAUDE_ENV_FILE.
func TestEnvFileOfSessionStartAndSetup(t *testing.T) {
	script := `test -n "$CLAUDE_ENV_FILE" || { echo none; exit 0; }
printf 'export FOO=bar\nexport GREETING="hello world"\n# comment\nPLAIN=1\n' >> "$CLAUDE_ENV_FILE"`
	for _, tc := range []struct {
		ev   Event
		want []string
	}{
		{SessionStart, []string{"FOO=bar", "GREETING=hello world", "PLAIN=1"}},
		{Setup, []string{"FOO=bar", "GREETING=hello world", "PLAIN=1"}},
		{UserPromptSubmit, nil},
		{PreToolUse, nil},
	} {
		r := &Runner{Hooks: []Hook{{Event: tc.ev, Command: script, Timeout: DefaultTimeout}}, ProjectDir: t.TempDir()}
		out, err := r.Fire(context.Background(), Input{Event: tc.ev})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out.Env, tc.want) {
			t.Errorf("%s: Env = %q, want %q (%+v)", tc.ev, out.Env, tc.want, out)
		}
	}
}

// Bash's tool_input.timeout is in milliseconds, as Claude's; aidex's
// run_command takes seconds, and a hook's updatedInput comes back in
// Claude's unit.
func TestBashTimeoutInMilliseconds(t *testing.T) {
	name, in := ClaudeTool("run_command", json.RawMessage(`{"command":"make","timeout":30}`), "/ws")
	if name != "Bash" || !strings.Contains(string(in), `"timeout":30000`) {
		t.Errorf("ClaudeTool = %s %s, want Bash with timeout 30000", name, in)
	}
	back, err := AidexInput("run_command", json.RawMessage(`{"command":"make","timeout":30,"cwd":"sub"}`), json.RawMessage(`{"command":"make -j2","timeout":45500}`))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
		Cwd     string `json:"cwd"`
	}
	if err := json.Unmarshal(back, &a); err != nil || a.Command != "make -j2" || a.Timeout != 46 || a.Cwd != "sub" {
		t.Errorf("AidexInput = %s (%v), want timeout 46 s and the cwd kept", back, err)
	}
}

// CLAUDE_ENV_FILE is read, never run: assignments are taken, anything
// else is a warning naming the line.
func TestParseEnvFile(t *testing.T) {
	getenv := func(n string) string { return map[string]string{"PATH": "/bin", "HOME": "/h"}[n] }
	for _, tc := range []struct {
		name, in string
		want     []string
		warn     []string
	}{
		{"forms", "export A=1\nB='two words'\nexport C=\"x \\\"y\\\" \\$z\"\n\n# note\nD=plain # trailing\n",
			[]string{"A=1", "B=two words", `C=x "y" $z`, "D=plain"}, nil},
		{"expansion", "export PATH=\"$PATH:/opt/bin\"\nN=${HOME}/n\nM='$HOME'\nP=$N/p\n",
			[]string{"PATH=/bin:/opt/bin", "N=/h/n", "M=$HOME", "P=/h/n/p"}, nil},
		{"later wins in place", "A=1\nB=2\nA=3\n", []string{"A=3", "B=2"}, nil},
		{"statements", "source ~/.nvm/nvm.sh\neval \"$(pyenv init -)\"\nunset X\nA=$(id)\nB=`id`\nC=1; rm -rf /\nD=x y\n",
			nil, []string{"line 1:", "line 2:", "line 3:", "line 4:", "line 5:", "line 6:", "line 7:"}},
		{"bad names", "1A=x\nA-B=y\n=z\n", nil, []string{"line 1:", "line 2:", "line 3:"}},
		{"risky", "export LD_PRELOAD=/tmp/x.so\nBASH_ENV=/x\nGIT_CONFIG_GLOBAL=/x\nexport OK=1\nBASH_FUNC_f%%=x\n",
			[]string{"OK=1"}, []string{"line 1: LD_PRELOAD", "line 2: BASH_ENV", "line 3: GIT_CONFIG_GLOBAL", "line 5:"}},
		{"unbalanced", "A='x\nB=\"y\n", nil, []string{"line 1:", "line 2:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warns, err := ParseEnvFile(strings.NewReader(tc.in), getenv)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("vars = %q, want %q", got, tc.want)
			}
			if len(warns) != len(tc.warn) {
				t.Fatalf("warnings = %q, want %d", warns, len(tc.warn))
			}
			for i, w := range tc.warn {
				if !strings.HasPrefix(warns[i], w) || strings.Contains(warns[i], "\n") {
					t.Errorf("warning %d = %q, want %q...", i, warns[i], w)
				}
			}
		})
	}
	if _, _, err := ParseEnvFile(strings.NewReader(strings.Repeat("A=1\n", MaxEnvFileBytes/4+1)), nil); err == nil {
		t.Error("an env file over the cap is no error")
	}
}

// FuzzParseEnvFile: any input ends in bounded time with entries that are
// NAME=value of a shell name, never a risky one.
func FuzzParseEnvFile(f *testing.F) {
	for _, s := range []string{"export A=1\n", "B=\"x$C${D}\\\"\"\n", "E='q'\"r\"s\n", "source x\n", "A=${\n", "A=$\n", "A=\"\\\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		vars, _, err := ParseEnvFile(strings.NewReader(in), func(string) string { return "v" })
		if err != nil {
			return
		}
		for _, kv := range vars {
			name, _, ok := strings.Cut(kv, "=")
			if !ok || !envName(name) || riskyEnvName(name) {
				t.Fatalf("entry %q from %q", kv, in)
			}
		}
	})
}
