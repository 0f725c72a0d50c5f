package web

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestFSWriteRefusesProtectedPaths: the web editor cannot ask for an
// approval, so a write into .git, .aidex or an editor/agent config folder
// (which always needs one, in every mode) is refused (403) and nothing is
// written. Otherwise the page could turn web_allow_shell_tools on through
// a trusted folder's .aidex/config.toml, or plant a git hook.
func TestFSWriteRefusesProtectedPaths(t *testing.T) {
	e := newEnv(t, nil, "")
	e.write(".git/HEAD", "ref: refs/heads/main\n")
	for _, p := range []string{".git/hooks/pre-commit", ".aidex/config.toml", ".vscode/tasks.json", ".GIT/config", "sub/.claude/settings.json"} {
		var res map[string]any
		st := e.call(http.MethodPost, "/api/fs/write", map[string]any{"path": p, "content": "#!/bin/sh\ntouch pwned\n"}, &res)
		if st != http.StatusForbidden {
			t.Errorf("write %s: %d %v, want 403", p, st, res)
		}
		if _, err := os.Lstat(filepath.Join(e.ws, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	// A write below the workspace that is not protected still works.
	if st := e.call(http.MethodPost, "/api/fs/write", map[string]any{"path": "gitnotes/x.txt", "content": "ok"}, nil); st != http.StatusOK {
		t.Errorf("plain write: %d", st)
	}
}

// TestToolEndpointRefusesProtectedWrites: /api/tool runs what the policy
// would ask about, but a protected path's write (always ask, every mode)
// is refused: the endpoint has no one to ask.
func TestToolEndpointRefusesProtectedWrites(t *testing.T) {
	e := newEnv(t, nil, "")
	for _, p := range []map[string]any{
		{"tool": "write_file", "params": map[string]any{"path": ".aidex/config.toml", "content": "web_allow_shell_tools = true\n"}},
		{"tool": "write_file", "params": map[string]any{"path": ".git/hooks/post-checkout", "content": "x"}},
		{"tool": "copy_file", "params": map[string]any{"source": "a.txt", "destination": ".vscode/settings.json"}},
	} {
		e.write("a.txt", "{}")
		var res map[string]any
		if st := e.call(http.MethodPost, "/api/tool", p, &res); st != http.StatusForbidden {
			t.Errorf("%v: %d %v, want 403", p, st, res)
		}
	}
	for _, p := range []string{".aidex/config.toml", ".git/hooks/post-checkout", ".vscode/settings.json"} {
		if _, err := os.Lstat(filepath.Join(e.ws, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestWebCannotTurnOnShellTools: in a trusted folder, writing
// .aidex/config.toml from the page and reloading must not enable shell
// tools (web_allow_shell_tools is edited only by hand).
func TestWebCannotTurnOnShellTools(t *testing.T) {
	e := newEnv(t, nil, "")
	state := filepath.Join(e.vars["XDG_STATE_HOME"], "aidex")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, _ := filepath.EvalSymlinks(e.ws)
	data, _ := json.Marshal([]string{ws})
	if err := os.WriteFile(filepath.Join(state, "trusted.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	e.call(http.MethodPost, "/api/fs/write", map[string]any{"path": ".aidex/config.toml", "content": "web_allow_shell_tools = true\n"}, nil)
	e.call(http.MethodPost, "/api/tool", map[string]any{"tool": "write_file", "params": map[string]any{"path": ".aidex/config.toml", "content": "web_allow_shell_tools = true\n"}}, nil)
	e.call(http.MethodPost, "/api/config", map[string]any{"values": map[string]string{"max_tokens": "1000"}}, nil)
	var res map[string]any
	if st := e.call(http.MethodPost, "/api/tool", map[string]any{"tool": "run_command", "params": map[string]any{"command": "touch pwned"}}, &res); st != http.StatusForbidden {
		t.Errorf("run_command after the page edited .aidex/config.toml: %d %v, want 403", st, res)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "pwned")); err == nil {
		t.Fatal("a shell command ran")
	}
}

// TestImageSaveAsRefusesProtectedPaths: save_as cannot overwrite a file in
// .git or .aidex (403, before the image service is asked).
func TestImageSaveAsRefusesProtectedPaths(t *testing.T) {
	p := newPollinations(t)
	e := newEnv(t, nil, "image_provider = \"pollinations\"\nimage_base_url = \""+p.URL+"\"\n")
	e.write(".aidex/config.toml", "model = \"m1\"\n")
	e.write(".git/index", "index")
	for _, bad := range []string{".aidex/config.toml", ".git/index", ".git/hooks/pre-commit/", ".vscode/logo.png"} {
		if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "fox", "save_as": bad, "overwrite": true}, nil); st != http.StatusForbidden {
			t.Errorf("save_as %s: %d, want 403", bad, st)
		}
	}
	if e.read(".aidex/config.toml") != "model = \"m1\"\n" || e.read(".git/index") != "index" {
		t.Error("a protected file was overwritten with an image")
	}
	if p.calls.Load() != 0 {
		t.Error("a refused save_as still asked the image service")
	}
}
