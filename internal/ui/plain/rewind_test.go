package plain

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// liveREPL is the line mode running in a goroutine on a pipe, so a test
// can type a line after reading what the previous one printed.
type liveREPL struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *sharedtest.Buffer
	ws   string
	ctrl *commands.Controller
	done chan error
}

// startREPL starts the line mode against a scripted model with
// extraConfig in the global config file.
func startREPL(t *testing.T, extraConfig string, turns ...llmtest.Turn) *liveREPL {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, extraConfig))
	pr, pw := io.Pipe()
	l := &liveREPL{t: t, in: pw, out: &sharedtest.Buffer{}, ws: home.WS, done: make(chan error, 1)}
	r := New(pr, l.out, false)
	ctx := context.Background()
	opts := app.Options{Workspace: home.WS, Flags: map[string]string{}, Getenv: home.Getenv}
	svc, err := app.Start(ctx, app.StartOptions{Options: opts})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	l.ctrl, err = commands.New(ctx, commands.Config{Service: svc, Session: sess, Approver: r.Approver()})
	require.NoError(t, err)
	t.Cleanup(l.ctrl.Close)
	go func() { l.done <- r.Run(ctx, l.ctrl, commands.Default()) }()
	t.Cleanup(func() {
		_ = pw.Close()
		<-l.done
	})
	return l
}

// send types one line.
func (l *liveREPL) send(line string) {
	l.t.Helper()
	_, err := fmt.Fprintln(l.in, line)
	require.NoError(l.t, err)
}

// waitFor waits until the output has want after offset from and returns
// the output from there; an error printed meanwhile fails the test.
func (l *liveREPL) waitFor(from int, want string) string {
	l.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := l.out.String()[from:]
		if strings.Contains(s, want) {
			return s
		}
		if strings.Contains(s, "error: ") {
			l.t.Fatalf("an error instead of %q; output:\n%s", want, l.out.String())
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("timed out waiting for %q; output:\n%s", want, l.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLineModeRewind(t *testing.T) {
	l := startREPL(t, `permission_mode = "auto-edit"`,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"one\n"}`}}},
		llmtest.Turn{Text: "Wrote notes.txt."})
	l.send("create notes")
	l.waitFor(0, "Wrote notes.txt.")
	require.FileExists(t, filepath.Join(l.ws, "notes.txt"))

	mark := len(l.out.String())
	l.send("/rewind")
	list := l.waitFor(mark, "(/rewind ID [code|conversation|both]")
	var id string
	for _, line := range strings.Split(list, "\n") {
		if strings.HasSuffix(strings.TrimSpace(line), "create notes") {
			id = strings.Fields(line)[0]
		}
	}
	require.NotEmpty(t, id, "the list names the checkpoint before the prompt:\n%s", list)

	mark = len(l.out.String())
	l.send("/rewind " + id)
	out := l.waitFor(mark, "── rewound to before: create notes ──")
	require.Contains(t, out, "rewound to checkpoint "+id+" (code and conversation)")
	require.Contains(t, out, "deleted notes.txt (new since the checkpoint)")
	require.Contains(t, out, "to undo this")
	_, err := os.Stat(filepath.Join(l.ws, "notes.txt"))
	require.True(t, os.IsNotExist(err), "notes.txt was new since the checkpoint")
	require.Empty(t, l.ctrl.Session().Messages, "the conversation is back to before the first prompt")

	mark = len(l.out.String())
	l.send("/rewind " + id + " sideways")
	l.waitFor(mark, `error: unknown rewind scope "sideways"`)
	l.send("/exit")
	require.NoError(t, <-l.done)
	l.done <- nil // for the cleanup
}
