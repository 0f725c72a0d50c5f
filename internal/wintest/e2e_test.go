//go:build linux && amd64

package wintest

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// winPath is the Linux path p as Wine's programs see it (drive Z: is /).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// aidexWin is aidex.exe under Wine with its own config folders and
// mvdan.cc/sh's gosh standing in for Git for Windows' sh on its PATH.
type aidexWin struct {
	w       *wine
	exe, ws string
	env     []string
}

func newAidexWin(t *testing.T, w *wine, srv *llmtest.Script) *aidexWin {
	t.Helper()
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	a := &aidexWin{w: w, exe: filepath.Join(bin, "aidex.exe"), ws: filepath.Join(root, "ws")}
	w.build(t, a.exe, "./cmd/aidex", false)
	w.build(t, filepath.Join(bin, "aidex-chat.exe"), "./cmd/aidex-chat", false)
	w.build(t, filepath.Join(bin, "sh.exe"), "mvdan.cc/sh/v3/cmd/gosh", false)
	appdata, local := filepath.Join(root, "Roaming"), filepath.Join(root, "Local")
	for _, d := range []string{a.ws, filepath.Join(appdata, "aidex"), local} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "provider = \"fake\"\nmodel = \"scripted\"\nmax_retries = 0\n\n[providers.fake]\ntype = \"openai\"\nbase_url = \"" +
		srv.URL + "/v1\"\napi_key = \"test-key\"\n"
	if err := os.WriteFile(filepath.Join(appdata, "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// Wine sets %APPDATA% from its own profile, so the XDG variables
	// (which aidex honours on every OS) point it at the test's folders.
	a.env = []string{"XDG_CONFIG_HOME=" + winPath(appdata), "XDG_DATA_HOME=" + winPath(local), "XDG_STATE_HOME=" + winPath(local),
		"XDG_CACHE_HOME=" + winPath(filepath.Join(local, "cache")), "WINEPATH=" + winPath(bin), "SHELL="}
	return a
}

// run runs aidex.exe -w WS args... and returns its exit code, stdout and
// stderr.
func (a *aidexWin) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := a.w.cmd(ctx, a.ws, append([]string{a.exe, "-w", winPath(a.ws)}, args...)...)
	c.Env = append(c.Env, a.env...)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := c.ProcessState.ExitCode()
	if err != nil && code == 0 {
		code = -1
	}
	return code, out.String(), errb.String()
}

// TestAidexUnderWine: a headless session of aidex.exe against a scripted
// model reads a file, edits a CRLF file (which keeps its CRLF line
// endings), runs a command in sh; `sessions list` shows it and -c
// continues it; `aidex web` serves its page.
func TestAidexUnderWine(t *testing.T) {
	w := newWine(t)
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}, {Name: "read_file", Args: `{"path":"crlf.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"crlf.txt","old_string":"two","new_string":"TWO"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo hello-from-sh && test -f crlf.txt && echo found"}`}}},
		llmtest.Turn{Text: "Edited crlf.txt and ran the check."},
		llmtest.Turn{Text: "Continued."},
	)
	a := newAidexWin(t, w, srv)
	mustWrite(t, filepath.Join(a.ws, "notes.txt"), "remember the milk\n")
	mustWrite(t, filepath.Join(a.ws, "crlf.txt"), "one\r\ntwo\r\nthree\r\n")

	code, out, errOut := a.run(t, "-p", "edit crlf.txt", "--output-format", "stream-json", "--permission-mode", "auto-edit")
	if code != 0 {
		t.Fatalf("aidex.exe -p: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"remember the milk", "hello-from-sh", "found", "Edited crlf.txt"} {
		if !strings.Contains(out, want) {
			t.Errorf("the session's output lacks %q:\n%s\nstderr: %s", want, out, errOut)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(a.ws, "crlf.txt")); string(got) != "one\r\nTWO\r\nthree\r\n" {
		t.Errorf("crlf.txt = %q, want its CRLF line endings kept", got)
	}
	if first := string(srv.Requests()[0]); !strings.Contains(first, "Shell: sh (Git for Windows") || !strings.Contains(first, `sh.exe`) {
		t.Errorf("the system prompt does not name the shell (sh.exe); first request: %.2000s", first)
	}

	code, out, errOut = a.run(t, "sessions", "list")
	if code != 0 || !strings.Contains(out, "edit crlf.txt") {
		t.Errorf("sessions list: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = a.run(t, "-c", "-p", "and now?")
	if code != 0 || !strings.Contains(out, "Continued.") {
		t.Fatalf("-c: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if last := string(srv.Requests()[len(srv.Requests())-1]); !strings.Contains(last, "edit crlf.txt") || !strings.Contains(last, "and now?") {
		t.Errorf("-c did not continue the session: %.2000s", last)
	}
	checkChat(t, a)
	checkWeb(t, a)
}

// checkChat starts the line mode (aidex.exe hands it to aidex-chat.exe, a
// child it waits for in a Job Object): it prints its banner and ends at the
// end of its input; a set-up error's exit code comes back through aidex.exe.
func checkChat(t *testing.T, a *aidexWin) {
	code, out, errOut := a.run(t, "--plain")
	if code != 0 || !strings.Contains(out, "/help for commands, /exit to quit") {
		t.Errorf("aidex.exe --plain: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = a.run(t, "--plain", "-r", "nosuchsession")
	if code != 2 {
		t.Errorf("aidex.exe --plain -r nosuchsession: exit %d, want 2\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// checkWeb starts `aidex web --port 0` and fetches its page.
func checkWeb(t *testing.T, a *aidexWin) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := a.w.cmd(ctx, a.ws, a.exe, "-w", winPath(a.ws), "web", "--port", "0")
	c.Env = append(c.Env, a.env...)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = c.Wait() }()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "aidex web: "); ok {
				urls <- u
			}
		}
		close(urls)
	}()
	var url string
	select {
	case url = <-urls:
	case <-ctx.Done():
	}
	if url == "" {
		t.Fatalf("aidex web printed no URL; stderr: %s", errb.String())
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(body)), "<html") {
		t.Errorf("GET %s: %s\n%.500s", url, resp.Status, body)
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
