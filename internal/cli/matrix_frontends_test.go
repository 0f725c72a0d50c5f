package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/chat"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The front ends' drivers of the guarantee matrix (matrix_test.go): each
// runs one turn through a front end as its user or client would.

// mcpAidexRun drives `aidex mcp serve` over stdio as an MCP client does
// (newline-delimited JSON-RPC): the handshake, then one aidex_run call.
func mcpAidexRun(t *testing.T, e *e2e, prompt string) []map[string]any {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(Process{Chat: chat.Run, Context: context.Background(), Args: []string{"-w", e.ws, "mcp", "serve", "--permission-mode", "yolo"},
			Stdin: inR, Stdout: outW, Stderr: io.Discard, Getenv: func(k string) string { return e.env[k] }})
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 0, 64<<10), 4<<20)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatalf("mcp serve: %v", err)
		}
	}
	await := func(id int) string {
		for lines.Scan() {
			if strings.Contains(lines.Text(), fmt.Sprintf(`"id":%d,`, id)) || strings.Contains(lines.Text(), fmt.Sprintf(`"id":%d}`, id)) {
				return lines.Text()
			}
		}
		t.Fatalf("mcp serve ended before answering request %d", id)
		return ""
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"matrix","version":"1"}}}`)
	await(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	args, _ := json.Marshal(map[string]any{"prompt": prompt, "permission_mode": "yolo"})
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"aidex_run","arguments":` + string(args) + `}}`)
	await(2)
	_ = inW.Close()
	go func() {
		for lines.Scan() {
		}
	}()
	<-done
	return nil
}

// rpcPeer is a newline-delimited JSON-RPC peer over an in-process Main
// (ACP and MCP over stdio).
type rpcPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines *bufio.Scanner
	done  chan int
	errb  *sharedtest.Buffer
	// answer answers the requests the agent sends (nil: none expected).
	answer func(method string, params json.RawMessage) any
}

func startPeer(t *testing.T, e *e2e, args ...string) *rpcPeer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &rpcPeer{t: t, in: inW, done: make(chan int, 1), lines: bufio.NewScanner(outR), errb: &sharedtest.Buffer{}}
	p.lines.Buffer(make([]byte, 0, 64<<10), 4<<20)
	go func() {
		p.done <- Main(Process{Chat: chat.Run, Context: context.Background(), Args: append([]string{"-w", e.ws}, args...),
			Stdin: inR, Stdout: outW, Stderr: p.errb, Getenv: func(k string) string { return e.env[k] }})
		_ = outW.Close()
		_ = inR.Close()
	}()
	return p
}

func (p *rpcPeer) send(v any) {
	if _, err := p.in.Write(append(mustJSON(v), '\n')); err != nil {
		p.t.Fatalf("send: %v (stderr: %s)", err, p.errb)
	}
}

// call sends request id and returns its result, answering the agent's
// own requests meanwhile.
func (p *rpcPeer) call(id int, method string, params any) json.RawMessage {
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for p.lines.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(p.lines.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0 && p.answer != nil:
			p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": p.answer(m.Method, m.Params)})
		case m.Method == "" && string(m.ID) == fmt.Sprint(id):
			if len(m.Error) > 0 {
				p.t.Fatalf("%s: %s", method, m.Error)
			}
			return m.Result
		}
	}
	p.t.Fatalf("the peer ended before answering %s (stderr: %s)", method, p.errb)
	return nil
}

func (p *rpcPeer) close() {
	_ = p.in.Close()
	go func() {
		for p.lines.Scan() {
		}
	}()
	<-p.done
}

// acpPrompt drives `aidex acp` as an editor does: initialize, a new
// session, one prompt; the ask rule's permission request is rejected.
func acpPrompt(t *testing.T, e *e2e, prompt string) []map[string]any {
	p := startPeer(t, e, "acp") // the mode is the config's (yolo)
	p.answer = func(method string, params json.RawMessage) any {
		if method != "session/request_permission" {
			return map[string]any{}
		}
		var req struct {
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		_ = json.Unmarshal(params, &req)
		for _, o := range req.Options {
			if o.Kind == "reject_once" {
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}}
			}
		}
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}
	}
	p.call(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(p.call(2, "session/new", map[string]any{"cwd": e.ws, "mcpServers": []any{}}), &sess)
	p.call(3, "session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": prompt}}})
	p.close()
	return nil
}

// webChat runs one turn through `aidex web`'s HTTP API as the page does:
// POST /chat streams the turn's events; the ask rule's approval is
// answered "deny" through POST /approvals/{id}.
func webChat(t *testing.T, e *e2e, prompt string) []map[string]any {
	w := startWebCmd(t, e)
	url := w.waitURL(t)
	token := url[strings.Index(url, "token=")+len("token="):]
	base := strings.TrimSuffix(url[:strings.Index(url, "?")], "/") + "/api/v1"
	post := func(path string, body any) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(string(mustJSON(body))))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("/chat", map[string]any{"message": prompt})
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /chat: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var shown []map[string]any
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var raw map[string]any
		if json.Unmarshal([]byte(data), &raw) == nil {
			shown = append(shown, raw)
		}
		var ev struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
			Approval  *struct {
				ID       string `json:"id"`
				Decision string `json:"decision"`
			} `json:"approval"`
		}
		_ = json.Unmarshal([]byte(data), &ev)
		if ev.Type == "approval" && ev.Approval != nil && ev.Approval.Decision == "" {
			r := post("/approvals/"+ev.Approval.ID, map[string]any{"decision": "deny", "session_id": ev.SessionID})
			_ = r.Body.Close()
		}
		if ev.Type == "done" {
			break
		}
	}
	w.stop(t)
	return shown
}

// tuiTurn types the prompt into the terminal UI (this test binary running
// aidex in tmux), says no at the ask rule's approval card once its
// type-ahead guard has passed, waits for the run's Stop hook and quits.
func tuiTurn(t *testing.T, e *e2e, prompt string) []map[string]any {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	socket := fmt.Sprintf("aidex-matrix-%d", time.Now().UnixNano())
	env := []string{childEnv + "=1", "TERM=xterm-256color"}
	for k, v := range e.env {
		env = append(env, k+"="+v)
	}
	line := fmt.Sprintf("env -i %s %s -w %s; echo EXIT=$?; sleep 60", strings.Join(env, " "), os.Args[0], e.ws)
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "t", line)
	defer func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() }()
	screen := func() string { return tmux("capture-pane", "-p", "-J", "-S", "-300", "-t", "t") }
	waitFor := func(what string, ok func() bool) {
		for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, screen())
			}
		}
	}
	waitFor("the prompt", func() bool { return strings.Contains(screen(), "›") })
	tmux("send-keys", "-t", "t", "-l", prompt)
	time.Sleep(200 * time.Millisecond)
	tmux("send-keys", "-t", "t", "Enter")
	waitFor("the ask rule's approval card", func() bool { return strings.Contains(screen(), "Allow run_command?") })
	// Past the card's type-ahead guard, choose 4 (no; a number answers
	// even when a stray key went to the input box), then Enter: no reason.
	// Under load a key can still land inside the guard: press again until
	// the card is gone.
	for attempt := 0; !strings.Contains(screen(), "Reason for the model"); attempt++ {
		if attempt == 20 {
			t.Fatalf("the approval card does not take an answer; screen:\n%s", screen())
		}
		time.Sleep(time.Second)
		tmux("send-keys", "-t", "t", "4")
		time.Sleep(500 * time.Millisecond)
	}
	tmux("send-keys", "-t", "t", "Enter") // no reason
	hookLog := filepath.Join(e.home, "hooks.log")
	waitFor("the run's Stop hook", func() bool {
		data, _ := os.ReadFile(hookLog)
		return strings.Contains(string(data), "\nstop ") || strings.HasPrefix(string(data), "stop ")
	})
	tmux("send-keys", "-t", "t", "-l", "/exit")
	time.Sleep(200 * time.Millisecond)
	tmux("send-keys", "-t", "t", "Enter")
	waitFor("aidex to exit", func() bool { return strings.Contains(screen(), "EXIT=") })
	return nil
}
