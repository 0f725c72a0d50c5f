package longsession

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/session"
)

// modelServer is a scripted OpenAI Chat Completions server for a real
// aidex process: the first calls requests answer with one read_file call
// each (of f<i>.txt, so no two in a row are the same), later ones with
// "done". It keeps no request body (a long run sends megabytes a turn) and
// signals each request's arrival on arrived.
type modelServer struct {
	*httptest.Server
	mu      sync.Mutex
	n       int
	calls   int
	arrived chan time.Time
	// call, when set, names the tool and the arguments of the n-th call
	// (default: read_file of f<n>.txt).
	call func(n int) (name, args string)
	// pid, when set, is the aidex process whose CPU time (cpuNanos, in
	// nanoseconds) is recorded in cpu at each request's arrival.
	pid int
	cpu []int64
	// sizes holds each request body's size in bytes.
	sizes []int64
	// phases, when set, lists the requests (0-based) at whose arrival
	// aidex (pid) is sent SIGUSR1: a -tags pprof build then starts the
	// next phase's CPU profile (internal/pprofhook/pprof.go).
	phases []int
}

func newModelServer(tb testing.TB, calls int) *modelServer {
	s := &modelServer{calls: calls, arrived: make(chan time.Time, 1024)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// reset starts the script over.
func (s *modelServer) reset(calls int) {
	s.mu.Lock()
	s.n, s.calls, s.pid, s.cpu, s.sizes, s.phases = 0, calls, 0, nil, nil, nil
	s.mu.Unlock()
	for len(s.arrived) > 0 {
		<-s.arrived
	}
}

func (s *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"scripted","object":"model"}]}`))
		return
	}
	select {
	case s.arrived <- time.Now():
	default:
	}
	cr := &countingReader{r: r.Body}
	var body struct {
		Stream bool `json:"stream"`
	}
	_ = json.NewDecoder(cr).Decode(&body)
	_, _ = io.Copy(io.Discard, cr)
	s.mu.Lock()
	s.sizes = append(s.sizes, cr.n)
	if s.pid > 0 {
		s.cpu = append(s.cpu, cpuNanos(s.pid))
		if slices.Contains(s.phases, s.n) {
			nextPhase(s.pid)
		}
	}
	s.n++
	n, call, script := s.n, s.n <= s.calls, s.call
	s.mu.Unlock()
	delta, finish := map[string]any{"role": "assistant", "content": "done"}, "stop"
	if call {
		name, args := "read_file", fmt.Sprintf(`{"path":"f%d.txt"}`, n)
		if script != nil {
			name, args = script(n)
		}
		delta = map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", n),
			"type": "function", "function": map[string]any{"name": name, "arguments": args}}}}
		finish = "tool_calls"
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": fmt.Sprintf("c%d", n), "object": "chat.completion.chunk", "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range []any{chunk(delta, nil), chunk(map[string]any{}, finish),
		map[string]any{"id": "u", "object": "chat.completion.chunk", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020}}} {
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// home is a user home with a config naming the server, and a workspace.
type home struct {
	root, ws, data string
	env            []string
}

func newHome(tb testing.TB, url string) *home {
	root := tb.TempDir()
	h := &home{root: root, ws: filepath.Join(root, "ws"), data: filepath.Join(root, "data", "aidex")}
	cfg := fmt.Sprintf("provider = \"fake\"\nmodel = \"scripted\"\nmax_retries = 0\n\n[providers.fake]\ntype = \"openai\"\nbase_url = %q\napi_key = \"k\"\nmodels = [\"scripted\"]\n", url+"/v1")
	for _, d := range []string{h.ws, h.data, filepath.Join(root, "config", "aidex")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	h.env = []string{"HOME=" + root, "XDG_CONFIG_HOME=" + filepath.Join(root, "config"), "XDG_DATA_HOME=" + filepath.Join(root, "data"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_CACHE_HOME=" + filepath.Join(root, "cache"), "PATH=" + os.Getenv("PATH")}
	for _, k := range []string{"GODEBUG", "GOGC", "GOMEMLIMIT", "AIDEX_CPUPROFILE", "AIDEX_CPUPROFILE_SECS", "AIDEX_MEMPROFILE"} {
		if v := os.Getenv(k); v != "" {
			h.env = append(h.env, k+"="+v) // GODEBUG=gctrace=1 (printed only when the run fails); a -tags pprof build's profile
		}
	}
	return h
}

// aidexBinary builds cmd/aidex and cmd/aidex-chat (the terminal UI's
// program, which aidex starts for BenchmarkTUIResume) into one folder once
// per benchmark binary run, or takes $AIDEX_BIN, with its aidex-chat beside
// it; with AIDEX_BENCH_PROFILE both must be -tags pprof builds.
func aidexBinary(tb testing.TB) string {
	if bin := os.Getenv("AIDEX_BIN"); bin != "" {
		return bin
	}
	dir := tb.TempDir()
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	if os.Getenv("AIDEX_BENCH_PROFILE") != "" {
		args = append(args, "-tags", "pprof") // the phases' CPU profiles
	}
	cmd := exec.Command("go", append(args, "../../cmd/aidex", "../../cmd/aidex-chat")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build aidex: %v\n%s", err, out)
	}
	return filepath.Join(dir, "aidex")
}

// runAidex runs bin in h's workspace and returns the time from the start
// to the first model request, the wall time and aidex's own peak RSS in
// MiB: its VmHWM, polled every 10 ms until it exits (the rusage of a
// child also counts its own children, the git of a checkpoint).
func runAidex(tb testing.TB, bin string, h *home, srv *modelServer, args ...string) (first, wall time.Duration, rssMiB float64) {
	cmd := exec.CommandContext(context.Background(), bin, append([]string{"-w", h.ws}, args...)...)
	cmd.Env, cmd.Dir = h.env, h.ws
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatalf("aidex %v: %v", args, err)
	}
	srv.mu.Lock()
	srv.pid = cmd.Process.Pid
	srv.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var hwm float64
	var err error
	for polling := true; polling; {
		if kb := vmHWM(cmd.Process.Pid); kb > 0 {
			hwm = float64(kb) / 1024
		}
		select {
		case err = <-done:
			polling = false
		case <-time.After(10 * time.Millisecond):
		}
	}
	wall = time.Since(start)
	if path := os.Getenv("AIDEX_BENCH_OUT"); path != "" {
		appendFile(path, append([]byte(fmt.Sprintf("== aidex %v\n", args)), out.Bytes()...)) // for GODEBUG=gctrace=1
	}
	if err != nil {
		tb.Fatalf("aidex %v: %v\n%s", args, err, out.String())
	}
	select {
	case at := <-srv.arrived:
		first = at.Sub(start)
	default:
		tb.Fatalf("aidex %v sent no model request:\n%s", args, out.String())
	}
	return first, wall, hwm
}

// vmHWM returns the peak resident set size of process pid in KiB (its
// VmHWM in /proc), 0 when unknown.
func vmHWM(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	return 0
}

// cpuNanos returns the CPU time process pid has used itself (its children
// not counted), in nanoseconds: the sum of its threads' time on a CPU
// (/proc/PID/task/*/schedstat, to the nanosecond; a thread that has
// exited is no longer counted, which Go's threads seldom do), or where
// that is missing utime+stime of /proc/PID/stat, in 10 ms clock ticks
// that put up to a tick of error on each reading (±0.1 ms a turn over 100
// turns); 0 when unknown.
func cpuNanos(pid int) int64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if f := strings.Fields(string(data)); err == nil && len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			ns += n
		}
	}
	if ns > 0 {
		return ns
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(data), ") ") // the command may hold spaces
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return (utime + stime) * int64(10*time.Millisecond) // CLK_TCK is 100 on Linux
}

// appendFile adds data to the file at path (created when missing);
// failures are ignored: the file is a debugging aid.
func appendFile(path string, data []byte) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	_, _ = f.Write(data)
	_ = f.Close()
}

func median(d []float64) float64 {
	s := append([]float64(nil), d...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// BenchmarkResume measures `aidex -c -p hi` resuming a session of 2,000
// messages (1,000 tool results of 4 KiB) to its first model request, beside
// `aidex -p hi` in a new session of an empty workspace, alternating the
// two. Metrics: first-request milliseconds and peak RSS (resume and new).
func BenchmarkResume(b *testing.B) {
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
	var resumed, started, rss, rssNew []float64
	for b.Loop() {
		srv.reset(0)
		f, _, r := runAidex(b, bin, long, srv, "-c", "-p", "hi")
		resumed, rss = append(resumed, float64(f.Microseconds())/1000), append(rss, r)
		srv.reset(0)
		f, _, r = runAidex(b, bin, fresh, srv, "-p", "hi")
		started, rssNew = append(started, float64(f.Microseconds())/1000), append(rssNew, r)
	}
	b.ReportMetric(median(resumed), "resume-ms")
	b.ReportMetric(median(started), "new-ms")
	b.ReportMetric(median(rss), "resume-MiB")
	b.ReportMetric(median(rssNew), "new-MiB")
}

// BenchmarkRSS500Turns measures the peak RSS of one `aidex -p` run of
// 500 turns, each a read_file of a different 4 KiB file, beside a one-turn
// hello. Metrics: peak RSS in MiB of both and the run's wall seconds.
func BenchmarkRSS500Turns(b *testing.B) {
	const turns = 500
	bin := aidexBinary(b)
	srv := newModelServer(b, turns)
	h := newHome(b, srv.URL)
	for i := 1; i <= turns+1; i++ {
		if err := os.WriteFile(filepath.Join(h.ws, fmt.Sprintf("f%d.txt", i)), []byte(Result(i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var long, hello, wall []float64
	for b.Loop() {
		srv.reset(turns)
		_, w, r := runAidex(b, bin, h, srv, "--max-turns", fmt.Sprint(turns+1), "-p", "read the files one by one")
		long, wall = append(long, r), append(wall, w.Seconds())
		srv.mu.Lock()
		if srv.n != turns+1 {
			b.Fatalf("the long run made %d model requests, want %d", srv.n, turns+1)
		}
		srv.mu.Unlock()
		srv.reset(0)
		_, _, r = runAidex(b, bin, h, srv, "-p", "hi")
		hello = append(hello, r)
	}
	b.ReportMetric(median(long), "turns500-MiB")
	b.ReportMetric(median(hello), "hello-MiB")
	b.ReportMetric(median(wall), "turns500-s")
}
