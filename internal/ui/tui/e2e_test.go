package tui_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/tui"
)

// aidexBin is the aidex binary built once by TestMain for the tmux tests
// ("" when tmux is missing or the build failed; buildErr says why, and
// noTmux says the tests are skipped rather than failed).
var (
	aidexBin, buildErr = "", ""
	noTmux             bool
)

func TestMain(m *testing.M) {
	apptest.SandboxHelper() // the in-process runs' commands start through the test binary
	dir, err := os.MkdirTemp("", "aidex-tui-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if bin := os.Getenv("AIDEX_E2E_BIN"); bin != "" {
		aidexBin = bin // another build (an older one, to capture its behaviour)
	} else if _, err := exec.LookPath("tmux"); err != nil {
		buildErr, noTmux = "tmux is not installed (apt-get install -y tmux); skipping the terminal end-to-end tests", true
	} else {
		// aidex hands an interactive session to aidex-chat beside it, so
		// these tests go through that hand-over too.
		bin := filepath.Join(dir, "aidex")
		out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
			"github.com/zelvior/aidex/cmd/aidex", "github.com/zelvior/aidex/cmd/aidex-chat").CombinedOutput()
		if err != nil {
			buildErr = "building aidex failed: " + err.Error() + "\n" + string(out)
		} else {
			aidexBin = bin
		}
	}
	goleak.VerifyTestMain(m,
		// teatest.NewTestModel starts a goroutine per test model that waits
		// for SIGINT and is never stopped.
		goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest/v2.NewTestModel.func2"),
		// regexp2 (chroma's regexps, used by code highlighting) runs one
		// process-wide clock goroutine for match timeouts once a regexp
		// with a timeout has run; it stops itself after a while.
		goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"),
		// A Bubble Tea tick cannot be cancelled: its goroutine ends when
		// it fires, after its program quit (the 2 s "Ctrl+C again to quit"
		// window's among them).
		goleak.IgnoreTopFunction("charm.land/bubbletea/v2.Tick.func1"),
		goleak.Cleanup(func(code int) {
			os.RemoveAll(dir)
			os.Exit(code)
		}))
}

// e2e is one aidex process in a private tmux server.
type e2e struct {
	t      *testing.T
	socket string
	ws     string
	env    []string
	// cols and rows are the terminal's size for launch (0: 110×32).
	cols, rows int
}

// modelServer serves a model list at /models and passes everything else
// to the scripted model's handler, in process: no second HTTP hop that a
// loaded machine could cut mid-stream.
func modelServer(t *testing.T, s *llmtest.Script) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"scripted-a","object":"model"},{"id":"scripted-b","object":"model"}]}`))
			return
		}
		s.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// start runs aidex (with args) against the scripted model in tmux, in a
// fresh HOME, XDG directories and workspace. shellWrap, when not "",
// formats the command line (e.g. "%s | cat").
func start(t *testing.T, script *llmtest.Script, shellWrap string, args ...string) *e2e {
	t.Helper()
	return startTmux(t, script, "", nil, shellWrap, args...)
}

// startSetup is start with setup (when not nil) called with the home and
// the workspace before aidex starts.
func startSetup(t *testing.T, script *llmtest.Script, setup func(home, ws string), shellWrap string, args ...string) *e2e {
	return startTmux(t, script, "", setup, shellWrap, args...)
}

// startConfig is start with extra appended to the config file.
func startConfig(t *testing.T, script *llmtest.Script, extra, shellWrap string, args ...string) *e2e {
	return startTmux(t, script, extra, nil, shellWrap, args...)
}

// startTmux starts aidex in tmux with extra appended to the config file
// and setup (when not nil) called with the home and the workspace first.
func startTmux(t *testing.T, script *llmtest.Script, extra string, setup func(home, ws string), shellWrap string, args ...string) *e2e {
	t.Helper()
	if noTmux {
		t.Skip(buildErr)
	}
	if aidexBin == "" {
		t.Fatal(buildErr)
	}
	srv := modelServer(t, script)
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	cfgDir := filepath.Join(root, "config", "aidex")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.MkdirAll(cfgDir, 0o700))
	cfg := fmt.Sprintf("provider = \"fake\"\nmodel = \"scripted-a\"\n\n[providers.fake]\ntype = \"openai\"\nbase_url = %q\napi_key = \"test-key\"\nmodels = [\"scripted-a\", \"scripted-b\"]\n", srv.URL) + extra
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600))
	if setup != nil {
		setup(root, ws)
	}
	e := &e2e{t: t, socket: fmt.Sprintf("aidex-e2e-%d", time.Now().UnixNano()), ws: ws}
	e.env = []string{"HOME=" + root, "XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"XDG_DATA_HOME=" + filepath.Join(root, "data"), "XDG_STATE_HOME=" + filepath.Join(root, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(root, "cache"), "TERM=xterm-256color", "NO_COLOR=", "PATH=" + os.Getenv("PATH")}
	cmd := aidexBin + " -w " + ws
	for _, a := range args {
		cmd += " " + a
	}
	if shellWrap != "" {
		cmd = fmt.Sprintf(shellWrap, cmd)
	}
	line := fmt.Sprintf("env -i %s bash -c '%s; echo EXIT=${PIPESTATUS[0]}; sleep 60'", strings.Join(e.env, " "), cmd)
	out, err := exec.Command("tmux", "-L", e.socket, "-f", "/dev/null", "new-session", "-d", "-x", "110", "-y", "32", "-s", "t", line).CombinedOutput()
	require.NoError(t, err, string(out))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen:\n%s", e.screen())
		}
		_ = exec.Command("tmux", "-L", e.socket, "kill-server").Run()
	})
	return e
}

// screen returns the pane with its scrollback.
func (e *e2e) screen() string {
	out, _ := exec.Command("tmux", "-L", e.socket, "capture-pane", "-p", "-J", "-S", "-200", "-t", "t").Output()
	return string(out)
}

// keys sends tmux key names or literal text (-l).
func (e *e2e) keys(keys ...string) {
	e.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", e.socket, "send-keys", "-t", "t"}, keys...)...).CombinedOutput()
	require.NoError(e.t, err, string(out))
}

// answer presses keys at an approval card or an ask_user form once the
// card's type-ahead guard has passed (keys pressed sooner never answer).
func (e *e2e) answer(keys ...string) {
	e.t.Helper()
	time.Sleep(tui.ApprovalGuard + 100*time.Millisecond)
	e.keys(keys...)
}

// typeLine types text literally and presses Enter once the text shows
// at the end of a line more than before (the application has read it).
func (e *e2e) typeLine(text string) {
	e.t.Helper()
	before := e.linesEndingWith(text)
	e.keys("-l", text)
	e.poll("typed text "+strconv.Quote(text), func() bool { return e.linesEndingWith(text) > before })
	e.keys("Enter")
}

// linesEndingWith counts the lines of the screen (with its scrollback)
// that end with text.
func (e *e2e) linesEndingWith(text string) int {
	n := 0
	for _, l := range strings.Split(e.screen(), "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), text) {
			n++
		}
	}
	return n
}

// poll checks ok every 50 ms until it holds, failing the test after 20 s.
func (e *e2e) poll(what string, ok func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFor waits until every string is on the screen and returns it.
func (e *e2e) waitFor(want ...string) string {
	e.t.Helper()
	var s string
	e.poll(fmt.Sprintf("%q", want), func() bool {
		s = e.screen()
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
	return s
}

func TestE2EStreamedAnswerAndExit(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Hello from the **scripted** model.\n\n```go\nfmt.Println(1)\n```\n"})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a", "ask")
	e.typeLine("say hello")
	e.waitFor("Hello from the scripted model.", "fmt.Println(1)")
	e.typeLine("/exit")
	e.waitFor("EXIT=0")
}

func TestE2EWriteFileApproved(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"hi there\n"}`}}},
		llmtest.Turn{Text: "I wrote hello.txt."})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("create hello.txt")
	e.waitFor("Allow write_file hello.txt?", "+hi there", "1. Yes (y)")
	e.answer("y")
	e.waitFor("I wrote hello.txt.")
	data, err := os.ReadFile(filepath.Join(e.ws, "hello.txt"))
	require.NoError(t, err)
	require.Equal(t, "hi there\n", string(data))
}

func TestE2EWriteFileDenied(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"hi there\n"}`}}},
		llmtest.Turn{Text: "Understood, I did not write it."})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("create hello.txt")
	e.waitFor("Allow write_file hello.txt?", "+hi there")
	e.answer("n")
	e.waitFor("Reason for the model")
	e.keys("-l", "not now")
	e.keys("Enter")
	e.waitFor("Understood, I did not write it.", "denied")
	_, err := os.Stat(filepath.Join(e.ws, "hello.txt"))
	require.True(t, os.IsNotExist(err), "hello.txt must not exist after a denial")
	require.Contains(t, string(script.Requests()[1]), "not now", "the denial reason goes to the model")
}

func TestE2EEscKeepsPartialAnswer(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "This partial answer stays.\n\nMore", Hang: true})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("tell me a long story")
	<-script.Started
	e.waitFor("This partial answer stays.")
	e.keys("Escape")
	s := e.waitFor("stopped; the partial answer is kept")
	require.Contains(t, s, "This partial answer stays.")
	require.Contains(t, s, "More")
}

func TestE2EModelPickerSwitches(t *testing.T) {
	script := llmtest.NewScript(t)
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("/model")
	e.waitFor("Model of fake", "scripted-b")
	e.keys("-l", "scripted-b")
	e.keys("Enter")
	e.waitFor("model: fake/scripted-b")
	e.typeLine("hi")
	e.waitFor("done")
	reqs := script.Requests()
	require.Contains(t, string(reqs[len(reqs)-1]), `"model":"scripted-b"`)
}

func TestE2EPlainModeThroughPipe(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Text: "Plain hello."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"p.txt","content":"plain\n"}`}}},
		llmtest.Turn{Text: "Wrote p.txt."})
	e := start(t, script, "%s | cat")
	e.waitFor("/help for commands")
	e.typeLine("hello")
	e.waitFor("Plain hello.")
	e.typeLine("write p.txt")
	e.waitFor("? write_file p.txt", "+plain", "Allow? [y]es/[s]ession/[a]lways/[n]o")
	e.typeLine("y")
	e.waitFor("Wrote p.txt.")
	data, err := os.ReadFile(filepath.Join(e.ws, "p.txt"))
	require.NoError(t, err)
	require.Equal(t, "plain\n", string(data))
	e.typeLine("/model scripted-b")
	e.waitFor("model: fake/scripted-b")
	e.typeLine("/exit")
	s := e.waitFor("EXIT=0")
	require.NotContains(t, s, "\x1b[", "no ANSI colours when the output is a pipe")
}

// aidex runs the aidex binary (not in tmux) in the test's workspace and
// environment, e.g. e.aidex("ralph", "add", "TITLE"), and returns its
// output.
func (e *e2e) aidex(args ...string) string {
	e.t.Helper()
	cmd := exec.Command(aidexBin, append([]string{"-w", e.ws}, args...)...)
	cmd.Env = e.env
	out, err := cmd.CombinedOutput()
	require.NoError(e.t, err, string(out))
	return string(out)
}

func TestE2ETasksViewRunsTheLoop(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Text: "Writing the greeting.\n", Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"greeting written"}`}}},
		llmtest.Turn{Text: "Finished the task."})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	require.Contains(t, e.aidex("ralph", "add", "Write the greeting", "--priority", "P1"), "added T-001 [P1]")
	e.typeLine("/tasks")
	e.waitFor("Ralph tasks", "T-001", "Write the greeting", "r run the loop")
	e.keys("r")
	e.waitFor("✓ T-001 done (reported): greeting written", "Ralph finished (completed): ran 1")
	require.Contains(t, e.aidex("ralph", "show", "T-001"), "status: done")
	e.keys("Escape")
	e.waitFor("Ask anything")
	e.typeLine("/exit")
	e.waitFor("EXIT=0")
}

func TestE2EMemoryListsSavedMemories(t *testing.T) {
	e := start(t, llmtest.NewScript(t), "")
	e.waitFor("fake/scripted-a")
	out := e.aidex("memory", "add", "Prefer tabs over spaces", "--category", "style")
	id := strings.Fields(out)[0]
	e.typeLine("/memory")
	e.waitFor(id, "[style] Prefer tabs over spaces")
	e.typeLine("/memory pin " + id)
	e.waitFor("(pinned)")
	require.Contains(t, e.aidex("memory", "list", "--pinned"), "Prefer tabs over spaces")
}

// BenchmarkE2EStartToPrompt measures the time from starting aidex in tmux
// to the first drawn prompt (polling the pane every 2 ms).
func BenchmarkE2EStartToPrompt(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := startB(b)
		b.StartTimer()
		start := time.Now()
		for !strings.Contains(e.screen(), "/help for commands") {
			if time.Since(start) > 20*time.Second {
				b.Fatal("no prompt")
			}
			time.Sleep(2 * time.Millisecond)
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms-to-prompt")
		b.StopTimer()
		_ = exec.Command("tmux", "-L", e.socket, "kill-server").Run()
	}
}

// BenchmarkE2EIdleCPU reports the CPU time aidex uses per second while it
// sits idle at the prompt (from /proc/PID/stat; Linux only).
func BenchmarkE2EIdleCPU(b *testing.B) {
	for i := 0; i < b.N; i++ {
		e := startB(b)
		for start := time.Now(); !strings.Contains(e.screen(), "/help for commands"); time.Sleep(20 * time.Millisecond) {
			if time.Since(start) > 20*time.Second {
				b.Fatal("no prompt")
			}
		}
		pid := strings.TrimSpace(string(must(exec.Command("pgrep", "-n", "-f", aidexBin+" -w "+e.ws).Output())))
		t0 := cpuTicks(b, pid)
		time.Sleep(3 * time.Second)
		t1 := cpuTicks(b, pid)
		b.ReportMetric(float64(t1-t0)*10/3, "cpu-ms/s")
		_ = exec.Command("tmux", "-L", e.socket, "kill-server").Run()
	}
}

func must(b []byte, _ error) []byte { return b }

func cpuTicks(b *testing.B, pid string) int {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	var u, s int
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &s)
	return u + s
}

// startB starts aidex in tmux for a benchmark.
func startB(b *testing.B) *e2e {
	if aidexBin == "" {
		b.Skip(buildErr)
	}
	script := llmtest.NewScript(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { script.Config.Handler.ServeHTTP(w, r) }))
	b.Cleanup(srv.Close)
	root := b.TempDir()
	ws := filepath.Join(root, "ws")
	cfgDir := filepath.Join(root, "config", "aidex")
	_ = os.MkdirAll(ws, 0o755)
	_ = os.MkdirAll(cfgDir, 0o700)
	cfg := fmt.Sprintf("provider = \"fake\"\nmodel = \"scripted-a\"\n[providers.fake]\ntype = \"openai\"\nbase_url = %q\napi_key = \"k\"\n", srv.URL)
	_ = os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600)
	e := &e2e{socket: fmt.Sprintf("aidex-bench-%d", time.Now().UnixNano()), ws: ws}
	env := []string{"HOME=" + root, "XDG_CONFIG_HOME=" + filepath.Join(root, "config"), "XDG_DATA_HOME=" + filepath.Join(root, "data"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_CACHE_HOME=" + filepath.Join(root, "cache"), "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	line := fmt.Sprintf("env -i %s %s -w %s", strings.Join(env, " "), aidexBin, ws)
	if out, err := exec.Command("tmux", "-L", e.socket, "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", "-s", "t", line).CombinedOutput(); err != nil {
		b.Fatal(err, string(out))
	}
	b.Cleanup(func() { _ = exec.Command("tmux", "-L", e.socket, "kill-server").Run() })
	return e
}
