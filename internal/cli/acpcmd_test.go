package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/slash"
)

// acpUpdate is a session/update as the test client recorded it.
type acpUpdate struct {
	Phase         string          `json:"phase"`
	SessionUpdate string          `json:"sessionUpdate"`
	Content       json.RawMessage `json:"content"`
	ToolCallID    string          `json:"toolCallId"`
	Kind          string          `json:"kind"`
	Status        string          `json:"status"`
	Title         string          `json:"title"`
	Locations     []struct {
		Path string `json:"path"`
	} `json:"locations"`
	AvailableCommands []struct {
		Name string `json:"name"`
	} `json:"availableCommands"`
	CurrentModeID string          `json:"currentModeId"`
	Entries       json.RawMessage `json:"entries"`
}

// acpRun is what testdata/acp_client.mjs prints.
type acpRun struct {
	Init struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool `json:"loadSession"`
			PromptCapabilities struct {
				Image           bool `json:"image"`
				EmbeddedContext bool `json:"embeddedContext"`
			} `json:"promptCapabilities"`
			McpCapabilities struct {
				HTTP bool `json:"http"`
				SSE  bool `json:"sse"`
			} `json:"mcpCapabilities"`
		} `json:"agentCapabilities"`
	} `json:"init"`
	NewSession struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	} `json:"newSession"`
	Updates     []acpUpdate `json:"updates"`
	Permissions []struct {
		ToolCall struct {
			ToolCallID string `json:"toolCallId"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	} `json:"permissions"`
	EditExistedAtAsk *bool  `json:"editExistedAtAsk"`
	EditStop         string `json:"editStop"`
	EditLanded       bool   `json:"editLanded"`
	CancelStop       string `json:"cancelStop"`
}

// runACPClient runs testdata/acp_client.mjs (see runACPScript) and
// decodes what it saw.
func runACPClient(t *testing.T, e *e2e, script string, env ...string) acpRun {
	t.Helper()
	out := runACPScript(t, e, script, env...)
	var r acpRun
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	return r
}

// runACPScript runs a client script on the official ACP TypeScript SDK
// against `aidex acp` (the test binary running Main) in e's workspace,
// with env added, and returns its output.
func runACPScript(t *testing.T, e *e2e, script string, env ...string) []byte {
	t.Helper()
	out, _ := runACPScriptStderr(t, e, script, env...)
	return out
}

// runACPScriptStderr is runACPScript that also returns the stderr of the
// script and aidex.
func runACPScriptStderr(t *testing.T, e *e2e, script string, env ...string) ([]byte, string) {
	t.Helper()
	sdkDir := sharedtest.NPMModule(t, "@agentclientprotocol/sdk")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	entry := "file://" + filepath.Join(sdkDir, "dist", "v1", "stable", "acp.js")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", script), entry, e.ws, os.Args[0], "-w", e.ws, "acp")
	cmd.Env = []string{childEnv + "=1"}
	for k, v := range e.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("acp client: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), out)
	}
	return out, stderr.String()
}

// The official ACP client drives aidex acp: initialize → new session →
// prompt; it sees message chunks, a tool_call of kind edit with a diff,
// answers a permission request (the file lands only after allow) and
// gets end_turn; cancel mid-stream gives cancelled; set_mode switches the
// mode; session/load replays the history.
func TestACPOfficialClient(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Text: "I'll create it.", Calls: []llmtest.Call{
			{Name: "todo_write", Args: `{"todos":[{"content":"create hello.txt","status":"in_progress"}]}`},
			{Name: "write_file", Args: `{"path":"hello.txt","content":"hi there\n"}`}}},
		llmtest.Turn{Text: "Created hello.txt."},
		llmtest.Turn{Text: "Working on a long answer", Hang: true},
	)
	e := newE2E(t, srv, "openai", "")
	e.write(".aidex/commands/review.md", "---\ndescription: Review the diff\nargument-hint: FILE\n---\nReview $ARGUMENTS\n")
	r := runACPClient(t, e, "acp_client.mjs")
	checkPlanAndCommands(t, r)

	c := r.Init.AgentCapabilities
	if r.Init.ProtocolVersion != 1 || !c.LoadSession || !c.PromptCapabilities.Image || !c.PromptCapabilities.EmbeddedContext || !c.McpCapabilities.HTTP || !c.McpCapabilities.SSE {
		t.Errorf("initialize: %+v", r.Init)
	}
	if r.NewSession.SessionID == "" || r.NewSession.Modes.CurrentModeID != "ask" {
		t.Errorf("session/new: %+v", r.NewSession)
	}
	if r.EditStop != "end_turn" || !r.EditLanded {
		t.Errorf("edit prompt: stop %q, file landed %v; want end_turn and the file", r.EditStop, r.EditLanded)
	}
	if len(r.Permissions) != 1 || r.EditExistedAtAsk == nil || *r.EditExistedAtAsk {
		t.Fatalf("permission requests %+v (file existed when asked: %v): want one, before the write", r.Permissions, r.EditExistedAtAsk)
	}
	var kinds []string
	for _, o := range r.Permissions[0].Options {
		kinds = append(kinds, o.Kind)
	}
	if got := strings.Join(kinds, ","); got != "allow_once,allow_always,reject_once,reject_always" {
		t.Errorf("permission options %s", got)
	}
	checkEditUpdates(t, r, filepath.Join(e.ws, "hello.txt"))
	if r.CancelStop != "cancelled" {
		t.Errorf("cancelled prompt: stop %q, want cancelled", r.CancelStop)
	}
	checkLoadReplay(t, r)
}

// checkPlanAndCommands checks the plan todo_write made and the
// available_commands_update with the workspace's /review.
func checkPlanAndCommands(t *testing.T, r acpRun) {
	t.Helper()
	var plans, commands int
	for _, u := range r.Updates {
		if u.Phase == "edit" && u.SessionUpdate == "plan" && strings.Contains(string(u.Entries), `"content":"create hello.txt"`) && strings.Contains(string(u.Entries), `"status":"in_progress"`) {
			plans++
		}
		if u.SessionUpdate == "available_commands_update" && advertised(u) == acpAdvertised()+",review" {
			commands++
		}
	}
	if plans != 1 || commands == 0 {
		t.Errorf("%d plan updates from todo_write (want 1), %d available_commands_update with /review (want at least 1)", plans, commands)
	}
}

// checkEditUpdates checks the edit prompt's updates: message chunks, a
// tool_call of kind edit at path with a diff, then completed.
func checkEditUpdates(t *testing.T, r acpRun, path string) {
	t.Helper()
	var text strings.Builder
	var call, completed *acpUpdate
	for i, u := range r.Updates {
		if u.Phase != "edit" {
			continue
		}
		switch u.SessionUpdate {
		case "agent_message_chunk":
			var c struct{ Text string }
			_ = json.Unmarshal(u.Content, &c)
			text.WriteString(c.Text)
		case "tool_call":
			call = &r.Updates[i]
		case "tool_call_update":
			if u.Status == "completed" {
				completed = &r.Updates[i]
			}
		}
	}
	if !strings.Contains(text.String(), "I'll create it.") || !strings.Contains(text.String(), "Created hello.txt.") {
		t.Errorf("message chunks %q", text.String())
	}
	if call == nil || call.Kind != "edit" || len(call.Locations) != 1 || call.Locations[0].Path != path {
		t.Fatalf("tool_call %+v: want kind edit at %s", call, path)
	}
	if !strings.Contains(string(call.Content), `"type":"diff"`) || !strings.Contains(string(call.Content), `"newText":"hi there\n"`) {
		t.Errorf("tool_call content %s: want a diff with the new text", call.Content)
	}
	if completed == nil || completed.ToolCallID != call.ToolCallID {
		t.Errorf("no completed tool_call_update for %s", call.ToolCallID)
	}
}

// checkLoadReplay checks that session/load replayed the conversation.
func checkLoadReplay(t *testing.T, r acpRun) {
	t.Helper()
	var user, agentText strings.Builder
	calls, modes := 0, 0
	for _, u := range r.Updates {
		var c struct{ Text string }
		_ = json.Unmarshal(u.Content, &c)
		switch {
		case u.Phase == "mode" && u.SessionUpdate == "current_mode_update" && u.CurrentModeID == "plan":
			modes++
		case u.Phase != "load":
		case u.SessionUpdate == "user_message_chunk":
			user.WriteString(c.Text + "|")
		case u.SessionUpdate == "agent_message_chunk":
			agentText.WriteString(c.Text)
		case u.SessionUpdate == "tool_call":
			calls++
		}
	}
	if modes != 1 {
		t.Errorf("set_mode plan: %d current_mode_update", modes)
	}
	if !strings.Contains(user.String(), "create hello.txt|") || !strings.Contains(user.String(), "a long answer|") {
		t.Errorf("replayed user messages %q", user.String())
	}
	if !strings.Contains(agentText.String(), "Created hello.txt.") || calls != 2 {
		t.Errorf("replayed answers %q, %d tool calls; want the answer and 2 calls (todo_write, write_file)", agentText.String(), calls)
	}
}

// Reject always refuses the call and saves the suggested rule as a deny
// rule of the project (the shape allow always saves as an allow rule):
// the file never lands, and the project config denies write_file(hello.txt).
func TestACPRejectAlwaysSavesDenyRule(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"hi there\n"}`}}},
		llmtest.Turn{Text: "Not created."},
		llmtest.Turn{Text: "Working on a long answer", Hang: true},
	)
	e := newE2E(t, srv, "openai", "")
	r := runACPClient(t, e, "acp_client.mjs", "ACP_ANSWER=reject_always")
	if r.EditStop != "end_turn" || r.EditLanded {
		t.Errorf("stop %q, file landed %v; want end_turn and no file", r.EditStop, r.EditLanded)
	}
	cfg, err := os.ReadFile(filepath.Join(e.ws, ".aidex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "deny") || !strings.Contains(string(cfg), `"write_file(hello.txt)"`) || strings.Contains(string(cfg), "allow") {
		t.Errorf("project config:\n%s\nwant a deny rule write_file(hello.txt) and no allow rule", cfg)
	}
}

// Allow always saves the same allow rule as the terminal's "a".
func TestACPAllowAlwaysSavesAllowRule(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"hi there\n"}`}}},
		llmtest.Turn{Text: "Created."},
		llmtest.Turn{Text: "Working on a long answer", Hang: true},
	)
	e := newE2E(t, srv, "openai", "")
	r := runACPClient(t, e, "acp_client.mjs", "ACP_ANSWER=allow_always")
	if !r.EditLanded {
		t.Errorf("file did not land")
	}
	cfg, err := os.ReadFile(filepath.Join(e.ws, ".aidex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "allow") || !strings.Contains(string(cfg), `"write_file(hello.txt)"`) {
		t.Errorf("project config:\n%s\nwant an allow rule write_file(hello.txt)", cfg)
	}
}

// When the client offers fs/read_text_file and fs/write_text_file, the
// file tools read the editor's buffer (unsaved text the disk does not
// have) and write through the client, still confined: a read outside the
// workspace is refused and never reaches the client.
func TestACPFileToolsGoThroughTheEditor(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}, {Name: "read_file", Args: `{"path":"../outside.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"notes.txt","old_string":"editor buffer","new_string":"edited buffer"}`}}},
		llmtest.Turn{Text: "Edited."},
	)
	e := newE2E(t, srv, "openai", "")
	e.write("notes.txt", "on disk\n")
	if err := os.WriteFile(filepath.Join(filepath.Dir(e.ws), "outside.txt"), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := runACPScript(t, e, "acp_fs.mjs")
	var r struct {
		Reads  []string
		Writes []struct{ Path, Content string }
		Stop   string
		Calls  []struct {
			Title   string
			Content []struct{ Type, Path, OldText, NewText string }
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	notes := filepath.Join(e.ws, "notes.txt")
	if r.Stop != "end_turn" {
		t.Errorf("stop %q", r.Stop)
	}
	for _, p := range r.Reads {
		if p != notes {
			t.Errorf("fs/read_text_file of %s: only %s may reach the editor", p, notes)
		}
	}
	if len(r.Reads) == 0 {
		t.Error("no fs/read_text_file")
	}
	if len(r.Writes) != 1 || r.Writes[0].Path != notes || r.Writes[0].Content != "from the edited buffer\n" {
		t.Errorf("fs/write_text_file calls %+v: want the edited buffer written to %s", r.Writes, notes)
	}
	diffs := 0
	for _, c := range r.Calls {
		for _, d := range c.Content {
			if d.Type == "diff" && d.Path == notes && d.OldText == "from the editor buffer\n" && d.NewText == "from the edited buffer\n" {
				diffs++
			}
		}
	}
	if diffs != 1 {
		t.Errorf("tool calls %+v: want the edit's diff against the editor's buffer", r.Calls)
	}
	if b, _ := os.ReadFile(notes); string(b) != "on disk\n" {
		t.Errorf("the disk changed to %q: the editor holds the write", b)
	}
	reqs := srv.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1]), "from the editor buffer") {
		t.Errorf("the model did not see the editor's buffer")
	}
}

// With the provider's key missing, initialize offers an auth method
// naming the variable, authenticate and session/new answer auth_required
// naming it too, and a relative cwd is refused with the fix.
func TestACPMissingKey(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	cfg := "provider = \"groq\"\nmodel = \"scripted\"\n[providers.groq]\nbase_url = \"" + srv.URL + "/v1\"\napi_key_env = \"AIDEX_TEST_ACP_KEY\"\n"
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out := runACPScript(t, e, "acp_misc.mjs", "ACP_MODE=auth")
	var r struct {
		Init struct {
			AuthMethods []struct{ ID, Description string }
		}
		Authenticate, NewSession, Relative struct {
			Code int
			Data struct{ Error string }
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if len(r.Init.AuthMethods) != 1 || !strings.Contains(r.Init.AuthMethods[0].Description, "AIDEX_TEST_ACP_KEY") {
		t.Errorf("auth methods %+v: want one naming AIDEX_TEST_ACP_KEY", r.Init.AuthMethods)
	}
	for name, res := range map[string]struct {
		Code int
		Data struct{ Error string }
	}{"authenticate": r.Authenticate, "session/new": r.NewSession} {
		if res.Code != -32000 || !strings.Contains(res.Data.Error, "AIDEX_TEST_ACP_KEY") {
			t.Errorf("%s: %+v, want auth_required (-32000) naming AIDEX_TEST_ACP_KEY", name, res)
		}
	}
	if r.Relative.Code != -32602 || !strings.Contains(r.Relative.Data.Error, "absolute path") {
		t.Errorf("relative cwd: %+v", r.Relative)
	}
}

// The client's MCP servers start with the session (their tools reach the
// model and run; one that fails is a warning on stderr, the editor's log;
// a second session with the same servers opens), and a prompt's image and
// embedded file reach the model.
func TestACPClientMCPServersAndContent(t *testing.T) {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__echo", Args: `{"message":"hello from the editor's server"}`}}},
		llmtest.Turn{Text: "Seen."},
	)
	e := newE2E(t, srv, "openai", "")
	seesImages(t, e) // the image part must reach the model
	e.write("broken-mcp.sh", "#!/bin/sh\nexit 3\n")
	out, stderr := runACPScriptStderr(t, e, "acp_misc.mjs", "ACP_MODE=content", "ACP_MCP="+bin, "ACP_BROKEN_MCP="+filepath.Join(e.ws, "broken-mcp.sh"))
	if !strings.Contains(stderr, "aidex acp: warning: ") || !strings.Contains(stderr, "broken") {
		t.Errorf("stderr %q: want a warning naming the MCP server that did not start", stderr)
	}
	var r struct {
		Stop   string
		Second struct {
			OK struct {
				SessionID string `json:"sessionId"`
			}
			Message string
		}
		Updates []struct {
			SessionUpdate string          `json:"sessionUpdate"`
			Status        string          `json:"status"`
			Content       json.RawMessage `json:"content"`
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if r.Stop != "end_turn" {
		t.Errorf("stop %q", r.Stop)
	}
	if r.Second.OK.SessionID == "" {
		t.Errorf("a second session/new with the same MCP server failed: %s", r.Second.Message)
	}
	echoed := false
	for _, u := range r.Updates {
		if u.SessionUpdate == "tool_call_update" && u.Status == "completed" && strings.Contains(string(u.Content), "hello from the editor's server") {
			echoed = true
		}
	}
	if !echoed {
		t.Errorf("no completed echo from the client's MCP server in %s", out)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	first := string(reqs[0])
	for _, want := range []string{"look at these", "data:image/png;base64,iVBORw0KGgo", "embedded notes text", "main.go", "mcp__everything__echo"} {
		if !strings.Contains(first, want) {
			t.Errorf("the model's first request lacks %q", want)
		}
	}
}

// The stop reasons: a response cut at the token limit is max_tokens, one
// the provider filtered is refusal, and max_tool_turns reached is
// max_turn_requests.
func TestACPStopReasons(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Text: "cut sh", Finish: "length"},
		llmtest.Turn{Text: "", Finish: "content_filter"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "list_directory", Args: `{"path":"."}`}}},
	)
	e := newE2E(t, srv, "openai", "max_tool_turns = 1\n")
	out := runACPScript(t, e, "acp_misc.mjs", "ACP_MODE=stops")
	var r struct{ Stops []string }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if got := strings.Join(r.Stops, ","); got != "max_tokens,refusal,max_turn_requests" {
		t.Errorf("stop reasons %s, want max_tokens,refusal,max_turn_requests", got)
	}
}

// A prompt sent while another runs in the session cancels it and runs
// when it ended (the editor's "send now"), instead of failing busy.
func TestACPPromptWhileRunning(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Text: "Working on a long answer", Hang: true},
		llmtest.Turn{Text: "Done instead."},
	)
	e := newE2E(t, srv, "openai", "")
	out := runACPScript(t, e, "acp_misc.mjs", "ACP_MODE=overlap")
	var r struct{ Stops []string }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if got := strings.Join(r.Stops, ","); got != "cancelled,end_turn" {
		t.Errorf("stop reasons %s, want cancelled,end_turn", got)
	}
}

// seesImages marks the e2e's scripted model as one that sees images
// (vision_models of the fake provider, the config file's last table).
func seesImages(t *testing.T, e *e2e) {
	t.Helper()
	cfg := filepath.Join(e.home, ".config", "aidex", "config.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("vision_models = [\"scripted\"]\n"); err != nil {
		t.Fatal(err)
	}
}

// advertised is the names of an available_commands_update, comma-separated.
func advertised(u acpUpdate) string {
	var names []string
	for _, c := range u.AvailableCommands {
		names = append(names, c.Name)
	}
	return strings.Join(names, ",")
}

// acpAdvertised is what ACP lists of the built-in commands: the one
// table's (slash.For(slash.ACP)), without their slash.
func acpAdvertised() string {
	var names []string
	for _, c := range slash.For(slash.ACP) {
		names = append(names, strings.TrimPrefix(c.Name, "/"))
	}
	return strings.Join(names, ",")
}

// An ACP prompt that is a built-in command of the one table runs it: its
// text comes back as agent messages and nothing reaches the model, except
// the prompt /init asks to send; an error is a message too, and every
// prompt ends its turn (issue 34).
func TestACPBuiltinCommands(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "Wrote AGENTS.md."})
	e := newE2E(t, srv, "openai", "")
	var r struct {
		Updates []acpUpdate       `json:"updates"`
		Stops   map[string]string `json:"stops"`
	}
	if err := json.Unmarshal(runACPScript(t, e, "acp_commands.mjs"), &r); err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, u := range r.Updates {
		if u.SessionUpdate == "agent_message_chunk" {
			var c struct{ Text string }
			_ = json.Unmarshal(u.Content, &c)
			text[u.Phase] += c.Text
		}
	}
	for cmd, want := range map[string]string{"/help": "/compact", "/cost": "input 0", "/compact": "nothing to compact yet",
		"/cost everything": `error: /cost takes no argument or estimate [PROMPT], not "everything"`, "/init": "Wrote AGENTS.md."} {
		if !strings.Contains(text[cmd], want) || r.Stops[cmd] != "end_turn" {
			t.Errorf("%s: stop %q, messages %q; want %q", cmd, r.Stops[cmd], text[cmd], want)
		}
	}
	if strings.Contains(text["/help"], "/config") {
		t.Errorf("/help in ACP lists the terminal's commands:\n%s", text["/help"])
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), "AGENTS.md") {
		t.Errorf("the model got %d requests, want the one of /init", len(reqs))
	}
}
