package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/streamjson"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// streamProc is aidex running in-process in the stream-json mode: the
// test writes stdin lines and reads the events from stdout.
type streamProc struct {
	t      testing.TB
	in     *io.PipeWriter
	events chan map[string]any
	code   chan int
	stderr *sharedtest.Buffer
}

func (e *e2e) startStream(args ...string) *streamProc {
	e.t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &streamProc{t: e.t, in: inW, events: make(chan map[string]any, 256), code: make(chan int, 1), stderr: &sharedtest.Buffer{}}
	go func() {
		defer close(p.events)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"type": "bad line", "text": sc.Text()}
			}
			p.events <- m
		}
	}()
	go func() {
		code := Main(Process{Chat: chat.Run, Context: context.Background(), Args: append([]string{"-w", e.ws, "--input-format", "stream-json", "--output-format", "stream-json"}, args...),
			Stdin: inR, Stdout: outW, Stderr: p.stderr, Getenv: func(k string) string { return e.env[k] }})
		_ = outW.Close()
		p.code <- code
	}()
	e.t.Cleanup(func() { _ = inW.Close() })
	return p
}

func (p *streamProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write %s: %v", line, err)
	}
}

// until reads events up to the first that match accepts; it returns all
// read. It fails when the output ends first.
func (p *streamProc) until(match func(map[string]any) bool) []map[string]any {
	p.t.Helper()
	var seen []map[string]any
	for ev := range p.events {
		seen = append(seen, ev)
		if match(ev) {
			return seen
		}
	}
	p.t.Fatalf("the output ended before the expected event; got %v\nstderr: %s", seen, p.stderr)
	return nil
}

func (p *streamProc) finish() int {
	p.t.Helper()
	_ = p.in.Close()
	for range p.events {
	}
	return <-p.code
}

func isType(typ string) func(map[string]any) bool {
	return func(ev map[string]any) bool { return ev["type"] == typ }
}

func pendingApproval(ev map[string]any) bool {
	a, ok := ev["approval"].(map[string]any)
	return ev["type"] == "approval" && ok && a["decision"] == nil
}

func userLine(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	return string(b)
}

// TestStreamJSONInputTwoTurnsAndApproval drives one process with two user
// turns and one approval: the edit waits for the approval line and lands
// after "once", and the second turn continues the same session.
func TestStreamJSONInputTwoTurnsAndApproval(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"hi\n"}`}}},
		llmtest.Turn{Text: "Wrote hello.txt."},
		llmtest.Turn{Text: "You are welcome."})
	e := newE2E(t, srv, "openai", "")
	p := e.startStream()
	p.send(userLine("create hello.txt"))
	seen := p.until(pendingApproval)
	ask := seen[len(seen)-1]["approval"].(map[string]any)
	if _, err := os.Stat(filepath.Join(e.ws, "hello.txt")); err == nil {
		t.Fatal("the file was written before the approval was answered")
	}
	p.send(`not json at all`)
	if ev := p.until(isType("error")); !strings.Contains(ev[len(ev)-1]["error"].(map[string]any)["message"].(string), "not a JSON object") {
		t.Fatalf("a malformed line gives %v, want an error event naming it", ev[len(ev)-1])
	}
	p.send(`{"type":"approval","id":"` + ask["id"].(string) + `","decision":"once"}`)
	seen = p.until(isType("done"))
	if d := seen[len(seen)-1]["done"].(map[string]any); d["stop_reason"] != "done" || d["result"] != "Wrote hello.txt." {
		t.Fatalf("first turn ended %v", d)
	}
	if got := e.read("hello.txt"); got != "hi\n" {
		t.Fatalf("hello.txt = %q after the approval", got)
	}
	p.send(userLine("thanks"))
	seen = p.until(isType("done"))
	if d := seen[len(seen)-1]["done"].(map[string]any); d["result"] != "You are welcome." {
		t.Fatalf("second turn ended %v", d)
	}
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr)
	}
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1]); !strings.Contains(last, "create hello.txt") || !strings.Contains(last, "thanks") {
		t.Fatalf("the second turn is not in the first turn's session: %s", last)
	}
}

// TestStreamJSONInputInterruptAndDeny: an interrupt stops the turn waiting
// for an approval (cancelled), the process goes on; a deny reaches the
// model with its reason; an answer to an unknown id is an error event.
func TestStreamJSONInputInterruptAndDeny(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"a"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"b.txt","content":"b"}`}}},
		llmtest.Turn{Text: "Understood."})
	e := newE2E(t, srv, "openai", "")
	p := e.startStream()
	p.send(userLine("write a"))
	p.until(pendingApproval)
	p.send(`{"type":"interrupt"}`)
	seen := p.until(isType("done"))
	if d := seen[len(seen)-1]["done"].(map[string]any); d["stop_reason"] != "cancelled" {
		t.Fatalf("interrupted turn ended %v", d)
	}
	p.send(userLine("write b"))
	seen = p.until(pendingApproval)
	id := seen[len(seen)-1]["approval"].(map[string]any)["id"].(string)
	p.send(`{"type":"approval","id":"nope","decision":"once"}`)
	if ev := p.until(isType("error")); !strings.Contains(ev[len(ev)-1]["error"].(map[string]any)["message"].(string), `no approval is waiting with id "nope"`) {
		t.Fatalf("an unknown id gives %v", ev[len(ev)-1])
	}
	p.send(`{"type":"approval","id":"` + id + `","decision":"deny","reason":"not b, please"}`)
	p.until(isType("done"))
	code := p.finish()
	for _, name := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.ws, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	if last := string(srv.Requests()[len(srv.Requests())-1]); !strings.Contains(last, "not b, please") {
		t.Fatalf("the denial's reason did not reach the model: %s", last)
	}
	if code != ExitDenied {
		t.Fatalf("exit %d after a denied last turn, want %d: %s", code, ExitDenied, p.stderr)
	}
}

func TestStreamJSONInputFlagErrors(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--input-format", "stream-json"}, "needs --output-format stream-json"},
		{[]string{"--input-format", "stream-json", "--output-format", "stream-json", "-p", "hi"}, "drop -p/-f"},
		{[]string{"--input-format", "xml"}, "must be text or stream-json"},
	} {
		r := e.run(context.Background(), c.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestStreamJSONInputAnswersAskUser: ask_user is offered, its questions
// are an interaction event, a wrong answer is an error event, and the
// right one reaches the model.
func TestStreamJSONInputAnswersAskUser(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askDB}}},
		llmtest.Turn{Text: "Using SQLite."})
	e := newE2E(t, srv, "openai", "")
	p := e.startStream()
	p.send(userLine("set up storage"))
	seen := p.until(isType("interaction"))
	id := seen[len(seen)-1]["interaction"].(map[string]any)["id"].(string)
	p.send(`{"type":"interaction","id":"` + id + `","answers":{"Which database?":"MySQL","Which files?":["db.go"]}}`)
	if ev := p.until(isType("error")); !strings.Contains(ev[len(ev)-1]["error"].(map[string]any)["message"].(string), "MySQL") {
		t.Fatalf("an answer that fits no option gives %v", ev[len(ev)-1])
	}
	p.send(`{"type":"interaction","id":"` + id + `","answers":{"Which database?":"SQLite","Which files?":["db.go"]}}`)
	seen = p.until(isType("done"))
	if d := seen[len(seen)-1]["done"].(map[string]any); d["result"] != "Using SQLite." {
		t.Fatalf("turn ended %v", d)
	}
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr)
	}
	if last := string(srv.Requests()[1]); !strings.Contains(last, `\"Which database?\": \"SQLite\"`) {
		t.Fatalf("the answer is not the tool result: %s", last)
	}
}

// TestStreamJSONInputClosedStdinDenies: an approval still waiting when
// stdin closes is denied ("stdin is closed"), the turn ends, and the exit
// code says a call was denied.
func TestStreamJSONInputClosedStdinDenies(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"a"}`}}},
		llmtest.Turn{Text: "Not written."})
	e := newE2E(t, srv, "openai", "")
	p := e.startStream()
	p.send(userLine("write a"))
	p.until(pendingApproval)
	if code := p.finish(); code != ExitDenied {
		t.Fatalf("exit %d, want %d: %s", code, ExitDenied, p.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "a.txt")); err == nil {
		t.Fatal("a.txt was written without an answer")
	}
	if last := string(srv.Requests()[len(srv.Requests())-1]); !strings.Contains(last, "stdin is closed") {
		t.Fatalf("the model was not told why: %s", last)
	}
}

// TestStreamControlAnswerBeforeAsk: the ask's event is printed before the
// engine calls Approve or Ask, so a quick program can answer first; the
// answer waits for them instead of being lost (the run hung before), and
// a second answer to the same id is refused.
func TestStreamControlAnswerBeforeAsk(t *testing.T) {
	ctl := newStreamControl(newStreamJSON(io.Discard))
	ap := agent.ApprovalInfo{ID: "ap_call_1", CallID: "call_1", Tool: "write_file"}
	ctl.event(agent.Event{Type: agent.EventApproval, Approval: &ap})
	if err := ctl.dispatch(streamjson.Input{Type: streamjson.InputApproval, Approval: &streamjson.ApprovalInput{ID: ap.ID, Decision: agent.AnswerOnce}}); err != nil {
		t.Fatal(err)
	}
	if err := ctl.dispatch(streamjson.Input{Type: streamjson.InputApproval, Approval: &streamjson.ApprovalInput{ID: ap.ID, Decision: agent.AnswerDeny}}); err == nil {
		t.Error("a second answer to the same approval was accepted")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if d, _, err := ctl.Approve(ctx, ap); err != nil || d != agent.AnswerOnce {
		t.Fatalf("Approve after the answer came: %q, %v", d, err)
	}
	ctl.closeInput()
	if d, reason, _ := ctl.Approve(ctx, agent.ApprovalInfo{ID: "ap_call_2"}); d != agent.AnswerDeny || reason != stdinClosed {
		t.Fatalf("Approve after stdin closed: %q %q", d, reason)
	}
}
