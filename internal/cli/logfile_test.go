package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// aidex's own log: errors and warnings with their times under the state
// directory, private, never a key, rotated.
func TestLogFileKeepsErrorsWithoutSecrets(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.runIn("", "-p", "x", "--permission-mode", "sk-proj-abcdefghijklmnop1234567890")
	require.Equal(t, ExitUsage, r.code)
	state := filepath.Join(e.env["XDG_STATE_HOME"], "aidex", LogFileName)
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	line := string(data)
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ERROR exit 2: `, line)
	require.Contains(t, line, "unknown permission mode")
	require.NotContains(t, line, "abcdefghijklmnop1234567890", "secret-shaped text is scrubbed")
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(state)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}

	// Rotation: a log past 1 MiB moves to aidex.log.1.
	require.NoError(t, os.WriteFile(state, []byte(strings.Repeat("x", maxLogSize+1)), 0o600))
	logLine(func(k string) string { return e.env[k] }, time.Now(), "WARN", "after rotation")
	data, err = os.ReadFile(state)
	require.NoError(t, err)
	require.Contains(t, string(data), "WARN after rotation")
	require.Less(t, len(data), 200)
	_, err = os.Stat(state + ".1")
	require.NoError(t, err)
}

func TestScrubLogLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Authorization: Bearer abc.def", "[redacted]"},
		{"api_key=sk-123", "[redacted]"},
		{"key AIzaSyA1234567890abcdefghijklmn leaked", "key [redacted] leaked"},
		{"line1\nline2", "line1 line2"},
		{"open /home/user/project/main.go: no such file", "open /home/user/project/main.go: no such file"},
	} {
		require.Equal(t, c.want, scrubLogLine(c.in), c.in)
	}
	require.LessOrEqual(t, len(scrubLogLine(strings.Repeat("é ", 600))), maxLogLine+len("…"))
}

// A model's [providers.NAME.models.MODEL] effort reaches its requests
// (iptic-memex's per-model reasoning settings), over reasoning_effort.
func TestModelTableEffortReachesRequest(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "reasoning_effort = \"low\"\n[providers.fake.models.scripted]\neffort = \"high\"\n")
	r := e.runIn("", "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, string(srv.Requests()[0]), `"reasoning_effort":"high"`)
}
