package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestStatus(t *testing.T) {
	e := newEnv(t, nil, "")
	var st Status
	if e.call(http.MethodGet, "/api/status", nil, &st) != http.StatusOK {
		t.Fatal("status failed")
	}
	if st.Provider != "fake" || st.Model != "m1" || st.Workspace != e.ws || st.PermissionMode != "ask" || st.ShellTools || st.Version != "test" {
		t.Errorf("status = %+v", st)
	}
}

func TestModelsAndSwitch(t *testing.T) {
	e := newEnv(t, nil, "")
	var ml ModelsResponse
	if e.call(http.MethodGet, "/api/models?provider=fake", nil, &ml) != http.StatusOK {
		t.Fatal("models failed")
	}
	if ml.Provider != "fake" || ml.Current != "m1" || len(ml.Models) != 2 || ml.Models[1].ID != "m2" || ml.Source != "static" || ml.Note == "" {
		t.Errorf("models = %+v", ml)
	}
	if e.call(http.MethodGet, "/api/models?provider=nope", nil, nil) != http.StatusNotFound {
		t.Error("unknown provider not 404")
	}
	var out map[string]any
	if st := e.call(http.MethodPost, "/api/models/switch", map[string]any{"model": "m2"}, &out); st != http.StatusOK || out["model"] != "m2" || out["provider"] != "fake" {
		t.Fatalf("switch: %d %v", st, out)
	}
	var st Status
	e.call(http.MethodGet, "/api/status", nil, &st)
	if st.Model != "m2" {
		t.Errorf("status after switch: %+v", st)
	}
	if code := e.call(http.MethodPost, "/api/models/switch", map[string]any{"model": ""}, nil); code != http.StatusBadRequest {
		t.Errorf("empty model: %d", code)
	}
	// PROVIDER/MODEL switches both.
	if code := e.call(http.MethodPost, "/api/models/switch", map[string]any{"model": "ollama/qwen3:8b"}, &out); code != http.StatusOK || out["provider"] != "ollama" {
		t.Errorf("provider/model switch: %d %v", code, out)
	}
	if code := e.call(http.MethodPost, "/api/provider/switch", map[string]any{"provider": "fake"}, &out); code != http.StatusOK || out["provider"] != "fake" {
		t.Errorf("provider switch: %d %v", code, out)
	}
	if code := e.call(http.MethodPost, "/api/provider/switch", map[string]any{"provider": "nope"}, nil); code != http.StatusNotFound {
		t.Errorf("unknown provider switch: %d", code)
	}
	// A provider that needs a missing key: 400 and the old runtime stays.
	if code := e.call(http.MethodPost, "/api/provider/switch", map[string]any{"provider": "anthropic"}, &out); code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["error"]), "API key") {
		t.Errorf("keyless switch: %d %v", code, out)
	}
	e.call(http.MethodGet, "/api/status", nil, &st)
	if st.Provider != "fake" {
		t.Errorf("a failed switch changed the provider: %+v", st)
	}
}

// TestSwitchedModelIsUsed: the next chat uses the model switched to.
func TestSwitchedModelIsUsed(t *testing.T) {
	model := llmtest.NewScript(t)
	e := newEnv(t, model, "")
	e.chat(map[string]any{"message": "one"}, nil)
	e.call(http.MethodPost, "/api/models/switch", map[string]any{"model": "m2"}, nil)
	e.chat(map[string]any{"message": "two"}, nil)
	reqs := model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0]), `"model":"m1"`) || !strings.Contains(string(reqs[1]), `"model":"m2"`) {
		t.Fatalf("requests: %s", reqs)
	}
}

func TestProviders(t *testing.T) {
	e := newEnv(t, nil, "")
	e.vars["GROQ_API_KEY"] = "gsk-secret-value-123456"
	status, body, _ := e.do(e.req(http.MethodGet, "/api/providers", nil))
	if status != http.StatusOK {
		t.Fatal(status)
	}
	if strings.Contains(string(body), "gsk-secret") || strings.Contains(string(body), "test-key") {
		t.Fatal("a provider key leaked")
	}
	var out struct {
		Groups []struct {
			Group     string         `json:"group"`
			Providers []ProviderView `json:"providers"`
		} `json:"groups"`
		Current string `json:"current"`
	}
	_ = json.Unmarshal(body, &out)
	if out.Current != "fake" || len(out.Groups) != 3 || out.Groups[0].Group != "no signup needed" {
		t.Fatalf("providers = %+v", out)
	}
	found := false
	for _, g := range out.Groups {
		for _, p := range g.Providers {
			if p.Name == "groq" {
				found = p.KeySet && p.KeySource == "GROQ_API_KEY"
			}
		}
	}
	if !found {
		t.Error("groq key status missing")
	}
}

func TestConfigGetMasksAndPostAllowlist(t *testing.T) {
	e := newEnv(t, nil, "")
	status, body, _ := e.do(e.req(http.MethodGet, "/api/config", nil))
	if status != http.StatusOK || strings.Contains(string(body), "test-key") || !strings.Contains(string(body), "providers.fake.api_key") {
		t.Fatalf("config: %d %s", status, body)
	}
	var out map[string]any
	cfgFile := filepath.Join(e.home, ".config", "aidex", "config.toml")
	if err := os.Chmod(cfgFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if st := e.call(http.MethodPost, "/api/config", map[string]any{"values": map[string]string{"max_tool_turns": "7", "providers.groq.api_key": "gsk-new"}}, &out); st != http.StatusOK {
		t.Fatalf("post: %d %v", st, out)
	}
	if fi, err := os.Stat(cfgFile); err != nil {
		t.Fatal(err)
	} else if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("a key saved from the web UI left the config file mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(filepath.Join(e.home, ".config", "aidex", "config.toml"))
	if !strings.Contains(string(data), "max_tool_turns = 7") || !strings.Contains(string(data), "gsk-new") {
		t.Errorf("config file:\n%s", data)
	}
	// E-097: nothing that widens the agent's permissions.
	for _, key := range []string{"permission_mode", "permissions.allow", "safe_mode", "confine", "allowed_dirs", "web_allow_shell_tools",
		"tools.profile", "system_prompt_file", "verify_command", "workspace", "providers.fake.base_url", "web_fetch_allow_private",
		"command_env_allow"} {
		before, _ := os.ReadFile(filepath.Join(e.home, ".config", "aidex", "config.toml"))
		if st := e.call(http.MethodPost, "/api/config", map[string]any{"values": map[string]string{key: "yolo", "max_tokens": "5"}}, nil); st != http.StatusForbidden {
			t.Errorf("set %s: %d, want 403", key, st)
		}
		after, _ := os.ReadFile(filepath.Join(e.home, ".config", "aidex", "config.toml"))
		if string(before) != string(after) {
			t.Errorf("a refused request changed the file (%s)", key)
		}
	}
	if st := e.call(http.MethodPut, "/api/settings", map[string]any{"permissions": map[string]any{"mode": "yolo"}}, nil); st != http.StatusNotFound && st != http.StatusMethodNotAllowed {
		t.Errorf("PUT /api/settings: %d", st)
	}
	var st Status
	e.call(http.MethodGet, "/api/status", nil, &st)
	if st.PermissionMode != "ask" {
		t.Errorf("permission mode changed to %s", st.PermissionMode)
	}
	if code := e.call(http.MethodPost, "/api/config", map[string]any{"values": map[string]string{"max_tool_turns": "many"}}, nil); code != http.StatusBadRequest {
		t.Errorf("bad value: %d", code)
	}
	if code := e.call(http.MethodPost, "/api/config", map[string]any{"values": map[string]string{}}, nil); code != http.StatusBadRequest {
		t.Errorf("empty values: %d", code)
	}
}

func TestWebConfigKeyOK(t *testing.T) {
	for key, want := range map[string]bool{
		"model": true, "providers.groq.api_key": true, "image_api_key": true,
		"providers.groq.base_url": false, "providers..api_key": false, "providers.a.b.api_key": false,
		"permission_mode": false, "permissions.allow": false, "web_allow_shell_tools": false, "": false,
	} {
		if got := webConfigKeyOK(key); got != want {
			t.Errorf("webConfigKeyOK(%q) = %v", key, got)
		}
	}
}

func TestHistorySessionsResume(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "first answer"}, llmtest.Turn{Text: "second answer"})
	e := newEnv(t, model, "")
	var hist SessionView
	if e.call(http.MethodGet, "/api/history", nil, &hist); len(hist.Messages) != 0 || hist.ID != "" {
		t.Fatalf("history before any chat: %+v", hist)
	}
	e.chat(map[string]any{"message": "one"}, nil)
	e.call(http.MethodGet, "/api/history", nil, &hist)
	first := hist.ID
	var cleared map[string]any
	e.call(http.MethodPost, "/api/history/clear", nil, &cleared)
	if cleared["session_id"] == first {
		t.Fatal("clear kept the session")
	}
	e.chat(map[string]any{"message": "two"}, nil)
	var list struct {
		Sessions []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"sessions"`
		Current string `json:"current"`
	}
	e.call(http.MethodGet, "/api/sessions", nil, &list)
	if len(list.Sessions) != 2 || list.Current != cleared["session_id"] {
		t.Fatalf("sessions = %+v", list)
	}
	var one SessionView
	if st := e.call(http.MethodGet, "/api/sessions/"+first, nil, &one); st != http.StatusOK || len(one.Messages) != 2 || one.Messages[1].Text() != "first answer" {
		t.Fatalf("session %s: %d %+v", first, st, one)
	}
	if st := e.call(http.MethodGet, "/api/sessions/nope", nil, nil); st != http.StatusNotFound {
		t.Errorf("unknown session: %d", st)
	}
	var resumed SessionView
	if st := e.call(http.MethodPost, "/api/sessions/"+first+"/resume", nil, &resumed); st != http.StatusOK || resumed.ID != first {
		t.Fatalf("resume: %d %+v", st, resumed)
	}
	e.call(http.MethodGet, "/api/history", nil, &hist)
	if hist.ID != first {
		t.Errorf("history after resume: %s", hist.ID)
	}
	if st := e.call(http.MethodPost, "/api/sessions/nope/resume", nil, nil); st != http.StatusNotFound {
		t.Errorf("resume unknown: %d", st)
	}
	// A session of another workspace cannot be resumed here.
	other, err := e.srv.svc.Store().Create(context.Background(), e.home, "fake", "m1")
	if err != nil {
		t.Fatal(err)
	}
	if st := e.call(http.MethodPost, "/api/sessions/"+other.ID+"/resume", nil, nil); st != http.StatusForbidden {
		t.Errorf("resume another workspace's session: %d, want 403", st)
	}
}

func TestToolsList(t *testing.T) {
	e := newEnv(t, nil, "")
	var out struct {
		Tools []ToolView `json:"tools"`
	}
	e.call(http.MethodGet, "/api/tools", nil, &out)
	avail := map[string]bool{}
	for _, tv := range out.Tools {
		avail[tv.Name] = tv.Available
	}
	if !avail["read_file"] || avail["run_command"] || avail["run_python"] || avail["run_background_process"] {
		t.Errorf("availability: %v", avail)
	}
	if _, ok := avail["run_command"]; !ok {
		t.Error("run_command not listed at all")
	}
}

func TestToolEndpoint(t *testing.T) {
	e := newEnv(t, nil, "")
	e.write("a.txt", "hello\n")
	var res map[string]any
	if st := e.call(http.MethodPost, "/api/tool", map[string]any{"tool": "read_file", "params": map[string]any{"path": "a.txt"}}, &res); st != http.StatusOK || res["ok"] != true {
		t.Fatalf("read_file: %d %v", st, res)
	}
	for _, tool := range []string{"run_command", "bash", "run_python", "run_background_process", "get_background_output", "kill_background_process", "list_background_processes"} {
		st := e.call(http.MethodPost, "/api/tool", map[string]any{"tool": tool, "params": map[string]any{"command": "touch pwned"}}, &res)
		if st != http.StatusForbidden {
			t.Errorf("%s over /api/tool: %d %v, want 403", tool, st, res)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "pwned")); err == nil {
		t.Fatal("a shell tool ran")
	}
	outside := filepath.Join(filepath.Dir(e.ws), "out.txt")
	for _, p := range []map[string]any{
		{"tool": "read_file", "params": map[string]any{"path": "../out.txt"}},
		{"tool": "write_file", "params": map[string]any{"path": outside, "content": "x"}},
		{"tool": "list_directory", "params": map[string]any{"path": "/etc"}},
	} {
		if st := e.call(http.MethodPost, "/api/tool", p, &res); st != http.StatusForbidden {
			t.Errorf("%v: %d %v, want 403", p, st, res)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("a tool wrote outside the workspace")
	}
	if st := e.call(http.MethodPost, "/api/tool", map[string]any{"tool": "read_file", "params": map[string]any{"nope": 1}}, &res); st != http.StatusBadRequest {
		t.Errorf("bad params: %d", st)
	}
	if st := e.call(http.MethodPost, "/api/tool", map[string]any{"tool": "no_such_tool"}, nil); st != http.StatusNotFound {
		t.Errorf("unknown tool: %d", st)
	}
	// A write the policy would ask about runs: the request is the user's own action.
	if st := e.call(http.MethodPost, "/api/tool", map[string]any{"tool": "write_file", "params": map[string]any{"path": "new.txt", "content": "x"}}, &res); st != http.StatusOK || res["ok"] != true {
		t.Errorf("write_file: %d %v", st, res)
	}
}

func TestToolEndpointShellAllowedByConfig(t *testing.T) {
	e := newEnv(t, nil, "web_allow_shell_tools = true\n")
	var res map[string]any
	st := e.call(http.MethodPost, "/api/tool", map[string]any{"tool": "run_command", "params": map[string]any{"command": "echo hi"}}, &res)
	if st != http.StatusOK || !strings.Contains(fmt.Sprint(res["output"]), "hi") {
		t.Errorf("run_command with web_allow_shell_tools: %d %v", st, res)
	}
	// The policy still refuses what it denies.
	st = e.call(http.MethodPost, "/api/tool", map[string]any{"tool": "run_command", "params": map[string]any{"command": "cat ../../etc/passwd > /tmp/x"}}, &res)
	if st != http.StatusForbidden {
		t.Errorf("escaping command: %d %v", st, res)
	}
}

// TestWebChatHidesShellTools: a web chat does not offer shell tools to the
// model, and a call to one is refused.
func TestWebChatHidesShellTools(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"touch pwned"}`}}}, llmtest.Turn{Text: "ok"})
	e := newEnv(t, model, "permission_mode = \"yolo\"\n")
	_, evs := e.chat(map[string]any{"message": "run it"}, nil)
	for _, ev := range evs {
		if ev.Name == "tool_result" && ev.Data["tool_result"].(map[string]any)["ok"] == true {
			t.Error("run_command ran in a web chat")
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "pwned")); err == nil {
		t.Fatal("a shell command ran")
	}
	if reqs := model.Requests(); len(reqs) == 0 || strings.Contains(string(reqs[0]), `"name":"run_command"`) {
		t.Error("run_command was offered to the model")
	}
}

// TestImageProvidersAndUnknownRalphOp: the image provider list never shows
// the key; an unknown Ralph operation is 404.
func TestImageProvidersAndUnknownRalphOp(t *testing.T) {
	e := newEnv(t, nil, "image_provider = \"pollinations\"\nimage_api_key = \"img-secret-key-1234\"\n")
	if st := e.call(http.MethodPost, "/api/ralph/explode", nil, nil); st != http.StatusNotFound {
		t.Errorf("unknown Ralph op: %d", st)
	}
	status, body, _ := e.do(e.req(http.MethodGet, "/api/image-providers", nil))
	if status != http.StatusOK || strings.Contains(string(body), "img-secret-key-1234") || !strings.Contains(string(body), `"api_key_set":true`) || !strings.Contains(string(body), "pollinations") {
		t.Errorf("image providers: %d %s", status, body)
	}
	var out struct {
		Providers []ImageProvider `json:"providers"`
	}
	_ = json.Unmarshal(body, &out)
	for _, p := range out.Providers {
		if _, err := imagegen.New(imagegen.Config{Provider: p.Provider, BaseURL: p.BaseURL, APIKey: "k", AccountID: "acc"}); err != nil {
			t.Errorf("preset %s: its image_provider %q does not configure: %v", p.Name, p.Provider, err)
		}
	}
}

// TestNoEndpointReturnsToken (E-109): no answer carries the token.
func TestNoEndpointReturnsToken(t *testing.T) {
	e := newEnv(t, llmtest.NewScript(t), "")
	e.chat(map[string]any{"message": "hi"}, nil)
	for _, path := range []string{"/api/status", "/api/config", "/api/history", "/api/sessions", "/api/providers", "/api/token", "/api/tools", "/", "/app.js"} {
		_, body, _ := e.do(e.req(http.MethodGet, path, nil))
		if strings.Contains(string(body), testToken) {
			t.Errorf("%s returns the token", path)
		}
	}
	if st, _, _ := e.do(e.req(http.MethodGet, "/api/token", nil)); st != http.StatusNotFound {
		t.Errorf("/api/token: %d", st)
	}
}

func TestUnknownEndpointsAndMethods(t *testing.T) {
	e := newEnv(t, nil, "")
	if st := e.call(http.MethodGet, "/api/nope", nil, nil); st != http.StatusNotFound {
		t.Errorf("unknown endpoint: %d", st)
	}
	if st := e.call(http.MethodGet, "/api/chat", nil, nil); st != http.StatusNotFound && st != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/chat: %d", st)
	}
	if st, _, _ := e.do(e.req(http.MethodPost, "/", map[string]any{})); st != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", st)
	}
	if st, _, _ := e.do(e.req(http.MethodGet, "/nope.js", nil)); st != http.StatusNotFound {
		t.Errorf("missing asset: %d", st)
	}
	for _, asset := range []string{"/app.js", "/md.js", "/api.js", "/dom.js", "/notify.js"} {
		_, _, hdr := e.do(e.req(http.MethodGet, asset, nil))
		if !strings.HasPrefix(hdr.Get("Content-Type"), "text/javascript") {
			t.Errorf("%s Content-Type %q", asset, hdr.Get("Content-Type"))
		}
	}
}
