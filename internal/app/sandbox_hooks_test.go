package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// addHook appends a global SessionStart hook running command to the
// home's config; extra are more keys of the hook entry.
func addHook(t *testing.T, w *sandboxWorld, command, extra string) {
	t.Helper()
	cfg := filepath.Join(w.home.Root, "config", "aidex", "config.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString("\n[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = " +
		`"` + command + `"` + "\n" + extra)
	require.NoError(t, err)
}

// Hook commands run in the sandbox of the model's commands: a workspace
// script a hook runs (the model may have edited it) cannot write outside
// the writable set, and the hook's failure says in one line that the
// sandbox stopped it; it still writes its logs in the workspace and the
// temp folder and reads the home. "sandbox": false on the hook entry (the
// explicit way out) runs it outside, where the write lands.
func TestHooksRunSandboxed(t *testing.T) {
	requireSandbox(t)
	for _, tc := range []struct {
		name, extra string
		out         bool
	}{
		{"sandboxed", "", false},
		{"sandbox false", "sandbox = false\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newSandboxWorld(t, llmtest.NewScript(t))
			target := filepath.Join(w.home.Root, "hook-out")
			script := "cat ~/.bashrc > hook-read.log && echo log > \"$TMPDIR/hook.log\" && echo log > hook.log && touch " + target + " && echo escaped\n"
			require.NoError(t, os.WriteFile(filepath.Join(w.home.WS, "hook.sh"), []byte(script), 0o644))
			addHook(t, w, "sh hook.sh", tc.extra)
			rt, err := Load(context.Background(), Options{Workspace: w.home.WS, Getenv: os.Getenv})
			require.NoError(t, err)
			require.Len(t, rt.Hooks(), 1)
			require.Equal(t, tc.out, rt.Hooks()[0].Unsandboxed)
			out, err := rt.engineRoom().hookRunner().Fire(context.Background(), hooks.Input{Event: hooks.SessionStart, Source: "startup"})
			require.NoError(t, err)
			data, err := os.ReadFile(filepath.Join(w.home.WS, "hook-read.log"))
			require.NoError(t, err, "a hook writes its log in the workspace")
			require.Equal(t, "# rc\n", string(data), "a hook reads the home")
			require.FileExists(t, filepath.Join(os.Getenv("TMPDIR"), "hook.log"), "a hook writes the temp folder")
			if tc.out {
				require.Empty(t, out.Messages)
				require.FileExists(t, target)
				return
			}
			require.NoFileExists(t, target, "the hook escaped the sandbox")
			msg := strings.Join(out.Messages, "\n")
			require.Contains(t, msg, "is outside the folders commands may write", "the failure says the sandbox stopped it")
			require.Contains(t, msg, `"sandbox": false`, "and names the way out")
			require.NotContains(t, msg, "escaped")
		})
	}
}

// A sandboxed hook reads the transcript it is given (the data folder it is
// kept in otherwise is hidden from sandboxed commands).
func TestSandboxedHookReadsTranscript(t *testing.T) {
	requireSandbox(t)
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo hi"}`}}},
		llmtest.Turn{Text: "done"})
	w := newSandboxWorld(t, script)
	hook := `p=$(sed -n 's/.*\"transcript_path\":\"\\([^\"]*\\)\".*/\\1/p'); cat \"$p\" > transcript.log`
	cfg := filepath.Join(w.home.Root, "config", "aidex", "config.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"" + hook + "\"\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	results := runScripted(t, script, w, nil)
	require.Len(t, results, 1)
	require.True(t, results[0].OK, results[0].Error)
	data, err := os.ReadFile(filepath.Join(w.home.WS, "transcript.log"))
	require.NoError(t, err)
	require.Contains(t, string(data), `"type":"user"`, "the hook read the transcript")
}
