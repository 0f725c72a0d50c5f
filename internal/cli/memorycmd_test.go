package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/notestore"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// cmdEnv is a temp home and workspace for running one subcommand.
type cmdEnv struct {
	ws, home string
	env      map[string]string
}

func newCmdEnv(t *testing.T, config string) *cmdEnv {
	t.Helper()
	root := t.TempDir()
	e := &cmdEnv{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home")}
	cfgDir := filepath.Join(e.home, ".config", "aidex")
	require.NoError(t, os.MkdirAll(e.ws, 0o755))
	require.NoError(t, os.MkdirAll(cfgDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(config), 0o600))
	e.env = map[string]string{
		"HOME": e.home, "XDG_CONFIG_HOME": filepath.Join(e.home, ".config"), "XDG_DATA_HOME": filepath.Join(e.home, ".local", "share"),
		"XDG_STATE_HOME": filepath.Join(e.home, ".local", "state"), "XDG_CACHE_HOME": filepath.Join(e.home, ".cache"),
	}
	return e
}

// run executes the command built by build with args; it returns stdout,
// stderr and the error.
func (e *cmdEnv) run(t *testing.T, build func(*cliApp) *cobra.Command, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	a := newApp(Process{Chat: chat.Run, Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(k string) string { return e.env[k] }})
	a.flags.workspace = e.ws
	cmd := build(a)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func TestMemoryCommands(t *testing.T) {
	e := newCmdEnv(t, "")
	out, _, err := e.run(t, newMemoryCmd, "list")
	require.NoError(t, err)
	require.Equal(t, "no memories\n", out)

	out, _, err = e.run(t, newMemoryCmd, "add", "Use pnpm, not npm", "--category", "preference", "-t", "js,tooling")
	require.NoError(t, err)
	id := strings.Fields(out)[0]
	_, _, err = e.run(t, newMemoryCmd, "add", "Answer briefly", "--scope", "global", "--pin")
	require.NoError(t, err)

	out, _, err = e.run(t, newMemoryCmd, "list")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	require.Contains(t, lines[0], "Answer briefly")
	require.Contains(t, lines[0], "(pinned)")
	require.Contains(t, lines[1], "[preference] Use pnpm, not npm  #js  #tooling")

	_, _, err = e.run(t, newMemoryCmd, "pin", id)
	require.NoError(t, err)
	notesText, err := memstore.PinnedNotes(e.ws, filepath.Join(e.home, ".config", "aidex", "memory"))
	require.NoError(t, err)
	require.Contains(t, notesText[0], "Use pnpm, not npm")
	require.Contains(t, notesText[0], "Answer briefly")

	out, _, err = e.run(t, newMemoryCmd, "list", "--json", "--scope", "project")
	require.NoError(t, err)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 1)
	require.Equal(t, "project", rows[0]["scope"])
	require.Equal(t, true, rows[0]["pinned"])

	_, _, err = e.run(t, newMemoryCmd, "unpin", id)
	require.NoError(t, err)
	out, _, err = e.run(t, newMemoryCmd, "list", "--pinned")
	require.NoError(t, err)
	require.NotContains(t, out, "pnpm")

	_, _, err = e.run(t, newMemoryCmd, "edit", id, "Use pnpm 9")
	require.NoError(t, err)
	_, _, err = e.run(t, newMemoryCmd, "delete", id)
	require.NoError(t, err)
	out, _, err = e.run(t, newMemoryCmd, "list", "-s", "pnpm")
	require.NoError(t, err)
	require.Equal(t, "no memories\n", out)

	_, _, err = e.run(t, newMemoryCmd, "pin", "nope")
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, ExitUsage, ee.Code)
	_, _, err = e.run(t, newMemoryCmd, "list", "--scope", "team")
	require.ErrorContains(t, err, "unknown --scope")
}

func TestNotesListCommand(t *testing.T) {
	e := newCmdEnv(t, "")
	out, _, err := e.run(t, newNotesCmd, "list")
	require.NoError(t, err)
	require.Equal(t, "no notes\n", out)
	_, err = notestore.Create(context.Background(), e.ws, "Plan for v2", "body", []string{"plan"}, mustTime(t))
	require.NoError(t, err)
	out, _, err = e.run(t, newNotesCmd, "list")
	require.NoError(t, err)
	require.Contains(t, out, "Plan for v2")
	require.Contains(t, out, ".aidex/notes/plan-for-v2.md")
	require.Contains(t, out, "#plan")
	out, _, err = e.run(t, newNotesCmd, "list", "--json")
	require.NoError(t, err)
	var ns []notestore.Note
	require.NoError(t, json.Unmarshal([]byte(out), &ns))
	require.Len(t, ns, 1)
	require.Equal(t, "plan-for-v2", ns[0].Slug)
}

func TestImageCommand(t *testing.T) {
	img := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	var gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.Path + "?" + r.URL.RawQuery
		_, _ = w.Write(img)
	}))
	defer srv.Close()
	e := newCmdEnv(t, "image_base_url = \""+srv.URL+"\"\nimage_model = \"turbo\"\n")
	dst := filepath.Join(e.ws, "out", "pic")
	out, stderr, err := e.run(t, newImageCmd, "a cat", "-o", dst, "--width", "512", "--height", "256", "--seed", "9")
	require.NoError(t, err, stderr)
	require.Contains(t, stderr, "generating with pollinations (turbo)")
	require.Contains(t, out, "saved "+dst+".png (image/png, 108 bytes, 512x256)")
	require.Contains(t, gotPath, "/prompt/a cat?")
	require.Contains(t, gotPath, "seed=9")
	require.Contains(t, gotPath, "model=turbo")
	data, err := os.ReadFile(dst + ".png")
	require.NoError(t, err)
	require.Equal(t, img, data)

	_, _, err = e.run(t, newImageCmd, "a cat", "-o", dst+".png")
	require.ErrorContains(t, err, "--force")
	_, _, err = e.run(t, newImageCmd, "a cat", "-o", dst+".png", "--force", "--seed", "-1")
	require.NoError(t, err)
	require.NotContains(t, gotPath, "seed=")

	out, _, err = e.run(t, newImageCmd, "a cat", "-o", "-")
	require.NoError(t, err)
	require.Equal(t, string(img), out)

	bad := newCmdEnv(t, "image_provider = \"openai\"\n")
	_, _, err = bad.run(t, newImageCmd, "a cat", "-o", "-")
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, ExitUsage, ee.Code)
	require.ErrorContains(t, err, "image_api_key")
}

func mustTime(t *testing.T) time.Time {
	t.Helper()
	return time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
}

// Pinning a project memory in a folder that is not trusted says at once
// that it counts only after `aidex trust`; global ones and trusted folders
// say nothing.
func TestMemoryPinUntrustedSaysTrust(t *testing.T) {
	e := newCmdEnv(t, "")
	out, errOut, err := e.run(t, newMemoryCmd, "add", "Use pnpm", "--pin")
	require.NoError(t, err)
	id := strings.Fields(out)[0]
	require.Contains(t, errOut, "note: "+id+" is pinned, but this folder is not trusted")
	require.Contains(t, errOut, "after `aidex trust`")

	_, errOut, err = e.run(t, newMemoryCmd, "unpin", id)
	require.NoError(t, err)
	require.Empty(t, errOut, "unpinning needs no note")
	_, errOut, err = e.run(t, newMemoryCmd, "pin", id)
	require.NoError(t, err)
	require.Contains(t, errOut, "aidex trust")

	_, errOut, err = e.run(t, newMemoryCmd, "add", "Answer briefly", "--scope", "global", "--pin")
	require.NoError(t, err)
	require.Empty(t, errOut, "global memories need no trust")
	_, errOut, err = e.run(t, newMemoryCmd, "add", "not pinned")
	require.NoError(t, err)
	require.Empty(t, errOut)

	_, _, err = e.run(t, newTrustCmd)
	require.NoError(t, err)
	_, errOut, err = e.run(t, newMemoryCmd, "add", "Use Go 1.26", "--pin")
	require.NoError(t, err)
	require.Empty(t, errOut, "a trusted folder's pinned memories count at once")
}
