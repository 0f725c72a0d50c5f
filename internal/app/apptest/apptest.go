// Package apptest sets up what the front ends' tests share: a temporary
// home with XDG directories, a workspace, and a global config file naming
// a scripted provider. Only tests import it.
package apptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// Home is a temporary user home: Root holds it, WS is the workspace, and
// Getenv answers HOME and the XDG_*_HOME variables (everything else is
// unset).
type Home struct {
	Root, WS string
	Env      map[string]string
}

// Getenv looks a variable up in h.Env.
func (h *Home) Getenv(k string) string { return h.Env[k] }

// NewHome makes the home and workspace and writes config (TOML) as the
// global config file.
func NewHome(t testing.TB, config string) *Home {
	t.Helper()
	root := t.TempDir()
	h := &Home{Root: root, WS: filepath.Join(root, "ws"), Env: map[string]string{"HOME": root,
		"XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_DATA_HOME": filepath.Join(root, "data"),
		"XDG_STATE_HOME": filepath.Join(root, "state"), "XDG_CACHE_HOME": filepath.Join(root, "cache")}}
	require.NoError(t, os.MkdirAll(h.WS, 0o755))
	cfgDir := filepath.Join(root, "config", "aidex")
	require.NoError(t, os.MkdirAll(cfgDir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(config), 0o600))
	return h
}

// FakeProvider is config naming provider "fake" (OpenAI wire format) at
// url with models (the first is the model in use) and extra lines of
// top-level config before the provider table.
func FakeProvider(url string, models []string, extra string) string {
	quoted := make([]string, len(models))
	for i, m := range models {
		quoted[i] = strconv.Quote(m)
	}
	return fmt.Sprintf("provider = \"fake\"\nmodel = %q\n%s\n[providers.fake]\ntype = \"openai\"\nbase_url = %q\napi_key = \"k\"\nmodels = [%s]\n",
		models[0], extra, url, strings.Join(quoted, ", "))
}

// SandboxHelper makes a test binary serve as the OS sandbox's helper.
// With no aidex-sandbox installed beside the running executable or on
// PATH, the sandbox runs each command by re-executing the running
// executable with helper.Arg first, which in a test is the test binary:
// call SandboxHelper first in TestMain so that it runs the helper (and
// exits) instead of the tests. It returns at once otherwise.
func SandboxHelper() {
	if len(os.Args) > 1 && os.Args[1] == helper.Arg {
		os.Exit(helper.Main(os.Args[2:]))
	}
}
