package longsession

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/cli"
	"github.com/zelvior/aidex/internal/session"
)

// BenchmarkResumeInProcess runs `aidex -c -p hi` in-process (cli.Main)
// on a session of 2,000 messages, for profiling the resume path without
// process start-up. One op is one resumed run to its answer;
// first-request-ms is the median time from the start to the model request.
func BenchmarkResumeInProcess(b *testing.B) {
	srv := newModelServer(b, 0)
	h, env := seededHome(b, srv.URL, 2000)
	ctx := context.Background()
	b.ReportAllocs()
	var first []float64
	for b.Loop() {
		srv.reset(0)
		start := time.Now()
		var out, errb bytes.Buffer
		code := cli.Main(cli.Process{Context: ctx, Args: []string{"-w", h.ws, "-c", "-p", "hi"}, Stdin: strings.NewReader(""),
			Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
		if code != 0 {
			b.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
		}
		first = append(first, float64((<-srv.arrived).Sub(start).Microseconds())/1000)
	}
	b.ReportMetric(median(first), "first-request-ms")
}

// BenchmarkPickSession measures the application service's resume path
// alone: app.Start, Service.Pick with continue (loading a session of 2,000
// messages) and Service.Session (engine built, model recorded), then
// closing it; what every front end does before its first prompt.
func BenchmarkPickSession(b *testing.B) {
	srv := newModelServer(b, 0)
	h, env := seededHome(b, srv.URL, 2000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		svc, err := app.Start(ctx, app.StartOptions{Options: app.Options{Workspace: h.ws, Getenv: func(k string) string { return env[k] }}})
		if err != nil {
			b.Fatal(err)
		}
		sess, err := svc.Pick(ctx, "", true)
		if err != nil {
			b.Fatal(err)
		}
		live, err := svc.Session(ctx, sess, app.SessionOptions{})
		if err != nil {
			b.Fatal(err)
		}
		live.Close()
		svc.Close()
	}
}

// seededHome is a home (newHome) whose workspace holds a session of n
// messages, and its environment as a map for Getenv.
func seededHome(b *testing.B, url string, n int) (*home, map[string]string) {
	b.Helper()
	h := newHome(b, url)
	ctx := context.Background()
	store, err := session.Open(ctx, h.data)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Write(ctx, store, h.ws, n); err != nil {
		b.Fatal(err)
	}
	_ = store.Close()
	env := map[string]string{}
	for _, kv := range h.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return h, env
}
