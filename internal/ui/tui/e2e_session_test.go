package tui_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// startWith is start with the configuration file cfg(url), url being the
// scripted model server's base URL.
func startWith(t *testing.T, script *llmtest.Script, cfg func(url string) string, args ...string) *e2e {
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
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg(srv.URL)), 0o600))
	e := &e2e{t: t, socket: fmt.Sprintf("aidex-e2e-%d", time.Now().UnixNano()), ws: ws}
	e.env = []string{"HOME=" + root, "XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"XDG_DATA_HOME=" + filepath.Join(root, "data"), "XDG_STATE_HOME=" + filepath.Join(root, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(root, "cache"), "TERM=xterm-256color", "NO_COLOR=", "PATH=" + os.Getenv("PATH")}
	e.launch(args...)
	return e
}

// launch runs aidex (with args) in a new tmux server of e, in a terminal
// of e.cols×e.rows cells (110×32 when unset); the previous one, if any,
// is killed first.
func (e *e2e) launch(args ...string) {
	t := e.t
	t.Helper()
	if e.socket != "" {
		_ = exec.Command("tmux", "-L", e.socket, "kill-server").Run()
	}
	e.socket = fmt.Sprintf("aidex-e2e-%d", time.Now().UnixNano())
	cmd := aidexBin + " -w " + e.ws + " " + strings.Join(args, " ")
	line := fmt.Sprintf("env -i %s bash -c '%s; echo EXIT=${PIPESTATUS[0]}; sleep 60'", strings.Join(e.env, " "), cmd)
	cols, rows := 110, 32
	if e.cols > 0 {
		cols, rows = e.cols, e.rows
	}
	out, err := exec.Command("tmux", "-L", e.socket, "-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-s", "t", line).CombinedOutput()
	require.NoError(t, err, string(out))
	socket := e.socket
	t.Cleanup(func() {
		if t.Failed() && socket == e.socket {
			t.Logf("scrollback:\n%s", e.scrollback())
		}
		_ = exec.Command("tmux", "-L", socket, "kill-server").Run()
	})
}

// scrollback returns the whole pane history and the screen, as the user
// scrolls through it (capture-pane -S -).
func (e *e2e) scrollback() string {
	out, _ := exec.Command("tmux", "-L", e.socket, "capture-pane", "-p", "-J", "-S", "-", "-t", "t").Output()
	return string(out)
}

// statusLine is the pane's last non-empty line (the status line).
func (e *e2e) statusLine() string {
	lines := strings.Split(strings.TrimRight(e.screen(), "\n "), "\n")
	return lines[len(lines)-1]
}

// typeSecret types text into the masked key prompt and presses Enter
// once the prompt shows as many bullets.
func (e *e2e) typeSecret(text string) {
	e.t.Helper()
	e.keys("-l", text)
	e.poll("the masked key", func() bool { return strings.Contains(e.screen(), strings.Repeat("•", len(text))+"█") })
	e.keys("Enter")
}

// keyedConfig is a configuration whose provider "groq" (pointed at the scripted
// model) needs a key from $FAKE_TEST_KEY, which is not set: aidex starts
// with the onboarding.
func keyedConfig(url string) string {
	return fmt.Sprintf("provider = \"groq\"\n\n[providers.groq]\nbase_url = %q\napi_key_env = \"FAKE_TEST_KEY\"\nmodels = [\"scripted-a\", \"scripted-b\"]\n", url)
}

func TestE2EOnboardingKeyStartsTheProvider(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Hello after onboarding."})
	e := startWith(t, script, keyedConfig)
	e.waitFor("Welcome to aidex", "no provider/- · setup")
	e.keys("-l", "groq")
	e.poll("the filtered list", func() bool { return strings.Contains(e.screen(), "search: groq") })
	e.keys("Enter")
	e.waitFor("API key for groq")
	e.typeSecret("sk-test-123")
	e.waitFor("key for groq stored", "ready: groq/scripted-a")
	e.poll("the status line groq/scripted-a", func() bool { return strings.Contains(e.statusLine(), "groq/scripted-a · ask") })
	require.NotContains(t, e.screen(), "API key for groq (stored", "the key prompt must not come back")
	e.typeLine("hi")
	e.waitFor("Hello after onboarding.")
	cfg, err := os.ReadFile(filepath.Join(filepath.Dir(e.ws), "config", "aidex", "config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), "sk-test-123")
}

func TestE2EProviderCommandAsksKeyThenSwitches(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Hello from groq."})
	e := startWith(t, script, func(url string) string {
		return fmt.Sprintf("provider = \"fake\"\nmodel = \"scripted-a\"\n\n[providers.fake]\ntype = \"openai\"\nbase_url = %q\napi_key = \"test-key\"\nmodels = [\"scripted-a\"]\n\n[providers.groq]\nbase_url = %q\nmodels = [\"scripted-b\"]\n", url, url)
	})
	e.waitFor("fake/scripted-a")
	e.typeLine("/provider groq")
	e.waitFor("API key for groq")
	e.typeSecret("gsk-test-456")
	e.waitFor("key for groq stored", "provider: groq · model scripted-b")
	e.poll("the status line groq/scripted-b", func() bool { return strings.Contains(e.statusLine(), "groq/scripted-b") })
	require.NotContains(t, e.screen(), "API key for groq (stored", "the key prompt must not come back")
	e.typeLine("hi")
	e.waitFor("Hello from groq.")
	reqs := script.Requests()
	require.Contains(t, string(reqs[len(reqs)-1]), `"model":"scripted-b"`)
}

// closedURL is a base URL nothing listens on.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr + "/v1"
}

// "/mode" + Enter runs /mode, not the highlighted /model completion; Down
// then Enter still runs the completion chosen.
func TestE2EExactCommandWinsOverCompletion(t *testing.T) {
	e := start(t, llmtest.NewScript(t), "")
	e.waitFor("fake/scripted-a")
	e.typeLine("/mode")
	e.waitFor("Permission mode (current: ask)")
	require.NotContains(t, e.screen(), "Model of fake", "/mode must not open the model picker")
	e.keys("Escape")
	e.poll("the mode picker to close", func() bool { return !strings.Contains(e.screen(), "Permission mode (current") })
	e.keys("-l", "/mode")
	e.poll("the completion menu", func() bool { return strings.Contains(e.screen(), "show or set the permission mode") })
	e.keys("Down")
	e.keys("Enter") // a command with arguments is put into the input
	e.poll("/model in the input", func() bool { return e.linesEndingWith("› /model") == 1 })
	e.keys("Enter")
	e.waitFor("Model of fake")
}

// -c prints the resumed conversation into the scrollback: the prompts,
// the answers and the tool calls, not only a message count.
func TestE2EContinueShowsTheConversation(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}},
		llmtest.Turn{Text: "The notes say **hello** twice."},
		llmtest.Turn{Text: "Second answer here."})
	e := start(t, script, "")
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("hello\nhello\n"), 0o600))
	e.waitFor("fake/scripted-a")
	e.typeLine("read the notes")
	e.waitFor("The notes say hello twice.")
	e.typeLine("and then?")
	e.waitFor("Second answer here.")
	e.typeLine("/exit")
	e.waitFor("EXIT=0")

	e.launch("-c")
	e.waitFor("resumed session")
	s := e.scrollback()
	for _, want := range []string{"› read the notes", "✓ read_file notes.txt", "The notes say hello twice.", "› and then?", "Second answer here."} {
		require.Contains(t, s, want)
	}
	require.Less(t, strings.Index(s, "› read the notes"), strings.Index(s, "Second answer here."), "oldest first")
	require.Less(t, strings.Index(s, "Second answer here."), strings.Index(s, "resumed session"), "the conversation comes before the resumed line")
}

// A provider that cannot be reached shows the error and points to
// /provider.
func TestE2EUnreachableProviderPointsToProvider(t *testing.T) {
	dead := closedURL(t)
	e := startWith(t, llmtest.NewScript(t), func(string) string {
		return fmt.Sprintf("provider = \"fake\"\nmodel = \"scripted-a\"\n\n[providers.fake]\ntype = \"openai\"\nbase_url = %q\napi_key = \"test-key\"\nmodels = [\"scripted-a\"]\n", dead)
	})
	e.waitFor("fake/scripted-a")
	e.typeLine("hello?")
	s := e.waitFor("error: ", "use /provider to choose another provider")
	host := strings.TrimSuffix(strings.TrimPrefix(dead, "http://"), "/v1")
	require.Contains(t, s, host, "the error names the host")
}
