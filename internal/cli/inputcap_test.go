package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// endless is a big stdin (a log of 16 MiB piped in) that counts what was
// read from it.
type endless struct{ read int64 }

func (r *endless) Read(p []byte) (int, error) {
	if r.read >= 16<<20 {
		return 0, io.EOF
	}
	p = p[:min(len(p), 16<<20-int(r.read))]
	for i := range p {
		p[i] = 'x'
	}
	r.read += int64(len(p))
	return len(p), nil
}

// Piped stdin and -f over the input cap stop the run before any model
// request and before a session is made, with exit 2 and a message naming
// the size, the cap and the ways to give a big file; reading stops at the
// cap, whatever the input's size. Every way input arrives is covered:
// stdin as the prompt, stdin as context of -p, -f FILE, -f - and exec.
func TestInputOverTheCapStopsBeforeTheModel(t *testing.T) {
	const capBytes = 64 << 10
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "max_input_bytes = 65536\n")
	big := filepath.Join(e.ws, "big.log")
	if err := os.WriteFile(big, bytes.Repeat([]byte("a log line\n"), 20000), 0o600); err != nil { // 220,000 bytes
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		args  []string
		stdin bool
		want  string
	}{
		"stdin as the prompt":     {args: nil, stdin: true, want: "stdin has more than 64 KiB"},
		"stdin as context of -p":  {args: []string{"-p", "summarise"}, stdin: true, want: "stdin has more than 64 KiB"},
		"-f FILE":                 {args: []string{"-f", big}, want: big + " is 215 KiB (220000 bytes)"},
		"-f -":                    {args: []string{"-f", "-"}, stdin: true, want: "stdin has more than 64 KiB"},
		"exec with stdin context": {args: []string{"exec", "summarise"}, stdin: true, want: "stdin has more than 64 KiB"},
	} {
		t.Run(name, func(t *testing.T) {
			in := &endless{}
			var stdin io.Reader = strings.NewReader("")
			if c.stdin {
				stdin = in
			}
			var out, errb bytes.Buffer
			code := Main(Process{Chat: chat.Run, Context: context.Background(), Args: append([]string{"-w", e.ws}, c.args...), Stdin: stdin,
				Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, ExitUsage, errb.String())
			}
			for _, want := range []string{c.want, "over the 64 KiB input cap (max_input_bytes)", "--attach", "read_file"} {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errb.String())
				}
			}
			if in.read > capBytes+64<<10 {
				t.Errorf("read %d bytes of stdin for a %d-byte cap", in.read, capBytes)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model requests", n)
			}
		})
	}
	if r := e.run(context.Background(), "sessions", "list"); !strings.Contains(r.stdout, "no sessions yet") {
		t.Errorf("a refused run left a session:\n%s", r.stdout)
	}
}

// The cap is never more than the model's context window holds (4 bytes a
// token): a raised max_input_bytes still stops input a small window
// cannot take, naming the window.
func TestInputCapFollowsTheContextWindow(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "max_input_bytes = 104857600\ncontext_window = 8192\n")
	var out, errb bytes.Buffer
	code := Main(Process{Chat: chat.Run, Context: context.Background(), Args: []string{"-w", e.ws, "-p", "summarise"}, Stdin: strings.NewReader(strings.Repeat("y", 40000)),
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
	if code != ExitUsage || !strings.Contains(errb.String(), "over the 32 KiB input cap (what scripted's 8192-token context window holds)") {
		t.Fatalf("exit %d; stderr %q", code, errb.String())
	}
	if len(srv.Requests()) != 0 {
		t.Error("the input reached the model")
	}
}

// Input within the cap reaches the model whole; the default cap is 1 MiB.
func TestInputWithinTheCapIsSent(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "context_window = 1000000\n")
	input := strings.Repeat("z", 1<<20-100) + "END"
	var out, errb bytes.Buffer
	code := Main(Process{Chat: chat.Run, Context: context.Background(), Args: []string{"-w", e.ws, "-p", "summarise"}, Stdin: strings.NewReader(input),
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
	if code != 0 || !strings.Contains(string(srv.Requests()[0]), "zzzEND") {
		t.Fatalf("exit %d; stderr %q", code, errb.String())
	}
	errb.Reset()
	code = Main(Process{Chat: chat.Run, Context: context.Background(), Args: []string{"-w", e.ws, "-p", "summarise"}, Stdin: strings.NewReader(input + strings.Repeat("z", 200)),
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
	if code != ExitUsage || !strings.Contains(errb.String(), "over the 1.0 MiB input cap") {
		t.Fatalf("just over 1 MiB: exit %d; stderr %q", code, errb.String())
	}
}
