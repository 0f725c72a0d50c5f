package longsession

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/session"
)

// tuiReady starts the TUI (`aidex` with args) in a detached tmux session of
// 120×40 in h's workspace and returns the time until every string of want
// is on the screen (the pane polled every 2 ms), then ends the session.
func tuiReady(tb testing.TB, bin string, h *home, want []string, args ...string) time.Duration {
	socket := fmt.Sprintf("aidex-long-%d", time.Now().UnixNano())
	defer func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() }()
	line := fmt.Sprintf("env -i %s TERM=xterm-256color %s -w %s %s; sleep 60", strings.Join(h.env, " "), bin, h.ws, strings.Join(args, " "))
	start := time.Now()
	if out, err := exec.Command("tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-s", "t", line).CombinedOutput(); err != nil {
		tb.Fatalf("tmux: %v\n%s", err, out)
	}
	deadline := start.Add(20 * time.Second)
	for {
		out, _ := exec.Command("tmux", "-L", socket, "capture-pane", "-p", "-J", "-S", "-400", "-t", "t").Output()
		screen, ready := string(out), true
		for _, w := range want {
			ready = ready && strings.Contains(screen, w)
		}
		if ready {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the TUI never showed %q:\n%s", want, screen)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// BenchmarkTUIResume measures `aidex -c` (the TUI in tmux) resuming a
// session of 2,000 messages until its last exchange and the status line
// are on the screen (the prompt is ready), beside `aidex` starting a new
// session in an empty workspace, alternating the two. Needs tmux.
func BenchmarkTUIResume(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed")
	}
	bin := aidexBinary(b)
	srv := newModelServer(b, 0)
	long, fresh := newHome(b, srv.URL), newHome(b, srv.URL)
	ctx := context.Background()
	store, err := session.Open(ctx, long.data)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Write(ctx, store, long.ws, 2000); err != nil {
		b.Fatal(err)
	}
	_ = store.Close()
	var resumed, started []float64
	for b.Loop() {
		resumed = append(resumed, float64(tuiReady(b, bin, long, []string{"Done with step 200", "fake/scripted"}, "-c").Microseconds())/1000)
		started = append(started, float64(tuiReady(b, bin, fresh, []string{"fake/scripted"}).Microseconds())/1000)
	}
	b.ReportMetric(median(resumed), "resume-ms")
	b.ReportMetric(median(started), "new-ms")
}
