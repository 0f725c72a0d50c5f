package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/mcp/oauth/oauthtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// inspector runs the MCP Inspector CLI against `aidex mcp serve` (this
// test binary running aidex) in e's workspace and home, with the
// inspector's own arguments (--method ...); it returns stdout and whether
// the inspector succeeded.
func inspector(t *testing.T, e *e2e, args ...string) (string, bool) {
	t.Helper()
	bin := sharedtest.NPMBin(t, "mcp-inspector")
	cli := []string{"--cli", "-e", childEnv + "=1"}
	for k, v := range e.env {
		cli = append(cli, "-e", k+"="+v)
	}
	cli = append(cli, os.Args[0])
	cli = append(cli, args...)
	cli = append(cli, "--", "-w", e.ws, "mcp", "serve")
	cmd := exec.Command(bin, cli...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil && out.Len() == 0 {
		t.Logf("inspector: %v; stderr %s", err, errb.String())
	}
	return out.String(), err == nil
}

// The MCP Inspector CLI (a client no one here wrote) lists the tools of
// `aidex mcp serve`, reads a workspace file through read_file, and gets an
// error result naming the workspace boundary for ../outside, whose
// content never comes back.
func TestMCPServeWithTheInspector(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	e.write("hello.txt", "hello from the workspace\n")
	outside := filepath.Join(filepath.Dir(e.ws), "outside")
	if err := os.WriteFile(outside, []byte("SECRET-OUTSIDE\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	out, ok := inspector(t, e, "--method", "tools/list")
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnly bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if !ok || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("tools/list: ok %v, output %q", ok, out)
	}
	names := map[string]bool{}
	for _, tool := range list.Tools {
		names[tool.Name] = true
		if tool.Name == "read_file" && !tool.Annotations.ReadOnly {
			t.Error("read_file is not marked read-only")
		}
	}
	for _, want := range []string{"read_file", "write_file", "run_command", "aidex_run"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}

	out, ok = inspector(t, e, "--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=hello.txt")
	if !ok || !strings.Contains(out, "hello from the workspace") || strings.Contains(out, `"isError": true`) {
		t.Fatalf("read_file hello.txt: ok %v, output %s", ok, out)
	}

	out, _ = inspector(t, e, "--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=../outside")
	if !strings.Contains(out, `"isError": true`) || !strings.Contains(out, "outside the workspace") {
		t.Fatalf("read_file ../outside: want an error result naming the workspace boundary, got %s", out)
	}
	if strings.Contains(out, "SECRET-OUTSIDE") {
		t.Fatalf("the file outside the workspace was read: %s", out)
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// `aidex mcp serve --http 127.0.0.1:0` prints its address and a token once
// on stderr; a client with the token lists the tools; Ctrl+C stops it.
func TestMCPServeHTTPPrintsTheTokenOnce(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr, stdout sharedtest.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(Process{Chat: chat.Run, Context: ctx, Args: []string{"-w", e.ws, "mcp", "serve", "--http", "127.0.0.1:0"}, Stdin: strings.NewReader(""),
			Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return e.env[k] }})
	}()
	re := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)[^\n]*\ntoken: (\S+)\n`)
	var m []string
	for m == nil {
		select {
		case code := <-done:
			t.Fatalf("aidex mcp serve exited %d: %s", code, stderr.String())
		default:
		}
		m = re.FindStringSubmatch(stderr.String())
		time.Sleep(5 * time.Millisecond) // poll, not a pass/fail timing
	}
	url, token := m[1], m[2]
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v", err)
	}
	_ = cs.Close()
	resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", resp.StatusCode)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d after Ctrl+C: %s", code, stderr.String())
	}
	if n := strings.Count(stderr.String(), token); n != 1 {
		t.Errorf("the token was printed %d times", n)
	}
	if strings.Contains(stdout.String(), token) {
		t.Error("the token went to stdout")
	}
}

// --http refuses an address other than loopback; an unknown mode or
// profile is bad usage.
func TestMCPServeHTTPOnlyOnLoopback(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.run(context.Background(), "mcp", "serve", "--http", "0.0.0.0:0")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "loopback address only") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = e.run(context.Background(), "mcp", "serve", "--permission-mode", "sideways")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "sideways") {
		t.Fatalf("bad mode: exit %d, stderr %q", r.code, r.stderr)
	}
	r = e.run(context.Background(), "mcp", "serve", "--profile", "everything")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--profile") || !strings.Contains(r.stderr, "everything") {
		t.Fatalf("bad profile: exit %d, stderr %q", r.code, r.stderr)
	}
}

// `aidex mcp login NAME` signs in to [mcp_servers.NAME] url (the browser
// follows the printed URL), stores the token 0600 in the state directory;
// `aidex mcp logout NAME` deletes it.
func TestMCPLoginLogout(t *testing.T) {
	as := oauthtest.NewServer(t)
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	cfg := filepath.Join(e.home, ".config", "aidex", "config.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("\n[mcp_servers.remote]\nurl = \"" + as.URL + "/mcp\"\n\n[mcp_servers.local]\ncommand = \"npx\"\n")
	_ = f.Close()
	var out, errb bytes.Buffer
	code := Main(Process{Chat: chat.Run, Args: []string{"-w", e.ws, "mcp", "login", "remote"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return e.env[k] }, OpenURL: oauthtest.Browser})
	if code != ExitOK || !strings.Contains(out.String(), "signed in to MCP server remote") || !strings.Contains(errb.String(), as.URL+"/authorize?") {
		t.Fatalf("login: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	tokenFile := filepath.Join(e.env["XDG_STATE_HOME"], "aidex", "mcp-oauth", "remote.json")
	info, err := os.Stat(tokenFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", info, err)
	}
	// A session reaches the OAuth-protected server with the stored token
	// (before the login it answered 401: needs authorisation).
	r := e.run(context.Background(), "mcp", "get", "remote")
	if r.code != ExitOK || strings.Contains(r.stdout+r.stderr, "needs authorisation") || !strings.Contains(r.stdout, "whoami") {
		t.Fatalf("mcp get remote after login: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		name, want string
	}{{"local", "has no url"}, {"nowhere", "[mcp_servers.nowhere] url"}} {
		r := e.run(context.Background(), "mcp", "login", tc.name)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("login %s: exit %d, stderr %q, want %q", tc.name, r.code, r.stderr, tc.want)
		}
	}
	r = e.run(context.Background(), "mcp", "logout", "remote")
	if r.code != ExitOK || !strings.Contains(r.stdout, "signed out") {
		t.Fatalf("logout: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Fatalf("token file still there: %v", err)
	}
	r = e.run(context.Background(), "mcp", "logout", "remote")
	if r.code != ExitOK || !strings.Contains(r.stdout, "nothing to do") {
		t.Fatalf("second logout: %d %q", r.code, r.stdout)
	}
}

// urlFollower is stderr for `aidex mcp login --no-browser`: when the
// sign-in URL appears, it follows it as the user's browser would.
type urlFollower struct {
	sharedtest.Buffer
	once sync.Once
}

func (u *urlFollower) Write(p []byte) (int, error) {
	n, err := u.Buffer.Write(p)
	if m := regexp.MustCompile(`http://\S+/authorize\?\S+`).FindString(u.String()); m != "" {
		u.once.Do(func() { _ = oauthtest.Browser(m) })
	}
	return n, err
}

// --no-browser prints the sign-in URL and never opens a browser.
func TestMCPLoginNoBrowser(t *testing.T) {
	as := oauthtest.NewServer(t)
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	cfg := filepath.Join(e.home, ".config", "aidex", "config.toml")
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(b, []byte("\n[mcp_servers.remote]\nurl = \""+as.URL+"/mcp\"\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	errw := &urlFollower{}
	code := Main(Process{Chat: chat.Run, Args: []string{"-w", e.ws, "mcp", "login", "remote", "--no-browser"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: errw,
		Getenv: func(k string) string { return e.env[k] }, OpenURL: func(string) error { t.Error("a browser was opened"); return nil }})
	if code != ExitOK || !strings.Contains(errw.String(), "Open this URL to sign in") {
		t.Fatalf("exit %d, stderr %q", code, errw.String())
	}
}

// mcp login finds a server of a trusted project's .mcp.json, as sessions
// do (Claude Code's file), not only the TOML tables.
func TestMCPLoginFromMCPJSON(t *testing.T) {
	as := oauthtest.NewServer(t)
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	e.write(".mcp.json", `{"mcpServers": {"linear": {"type": "http", "url": "`+as.URL+`/mcp"}}}`)
	if r := e.run(context.Background(), "trust", e.ws); r.code != ExitOK {
		t.Fatalf("trust: %d %s", r.code, r.stderr)
	}
	var out, errb bytes.Buffer
	code := Main(Process{Chat: chat.Run, Args: []string{"-w", e.ws, "mcp", "login", "linear"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return e.env[k] }, OpenURL: oauthtest.Browser})
	if code != ExitOK || !strings.Contains(out.String(), "signed in to MCP server linear") {
		t.Fatalf("login: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// --token-file writes the token to the file (0600, replacing a wider
// file), prints its name, and the 401 without the token names it; it
// needs --http.
func TestMCPServeTokenFile(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	file := filepath.Join(e.home, "mcp-token")
	if err := os.WriteFile(file, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr, stdout sharedtest.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(Process{Chat: chat.Run, Context: ctx, Args: []string{"-w", e.ws, "mcp", "serve", "--http", "127.0.0.1:0", "--token-file", file}, Stdin: strings.NewReader(""),
			Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return e.env[k] }})
	}()
	re := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)[^\n]*\ntoken: (\S+)\n(?s:.*)token file: (\S+)\n`)
	var m []string
	for m == nil {
		select {
		case code := <-done:
			t.Fatalf("aidex mcp serve exited %d: %s", code, stderr.String())
		default:
		}
		m = re.FindStringSubmatch(stderr.String())
		time.Sleep(5 * time.Millisecond) // poll, not a pass/fail timing
	}
	url, token := m[1], m[2]
	if m[3] != file {
		t.Errorf("token file printed as %q, want %q", m[3], file)
	}
	b, err := os.ReadFile(file)
	if err != nil || string(b) != token+"\n" {
		t.Fatalf("token file holds %q (%v), want the printed token", b, err)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v (%v), want 0600", info.Mode(), err)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), file) || strings.Contains(string(body), token) {
		t.Errorf("no token: %d %q, want 401 naming %s (and not the token)", resp.StatusCode, body, file)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d after Ctrl+C: %s", code, stderr.String())
	}
	r := e.run(context.Background(), "mcp", "serve", "--token-file", file)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--token-file needs --http") {
		t.Fatalf("--token-file without --http: exit %d, stderr %q", r.code, r.stderr)
	}
}
