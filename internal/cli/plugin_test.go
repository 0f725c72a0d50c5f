package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/plugin/plugintest"
)

func (e *e2e) mustRun(args ...string) result {
	e.t.Helper()
	r := e.run(context.Background(), args...)
	if r.code != ExitOK {
		e.t.Fatalf("aidex %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func wantIn(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s does not contain %q:\n%s", what, p, text)
		}
	}
}

// The marketplace and plugin commands end to end: a marketplace cloned
// from a git URL (file://, no network), a plugin added from it and
// listed; its items wait for approval (a headless run stops on its
// unapproved hook, naming the review), `plugin review --yes` approves
// them and the hook runs; disable, remove, marketplace remove.
func TestPluginCommandsEndToEnd(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	e := newE2E(t, srv, "openai", "")
	m := plugintest.Build(t, t.TempDir())
	url := plugintest.GitRepo(t, m.Root)
	log := filepath.Join(t.TempDir(), "hooks.log")
	t.Setenv("AIDEX_PLUGIN_HOOK_LOG", log)

	r := e.mustRun("plugin", "marketplace", "add", url)
	wantIn(t, "marketplace add", r.stdout, "added marketplace aidex-test (3 plugins)", "ralph-wiggum")
	r = e.mustRun("plugin", "add", "ralph-wiggum@aidex-test")
	wantIn(t, "plugin add", r.stdout, "installed ralph-wiggum@aidex-test 1.0.0", "2 item(s) of ralph-wiggum@aidex-test wait",
		"[new] hook ralph-wiggum:Stop[*]: ${CLAUDE_PLUGIN_ROOT}/hooks/stop-hook.sh", "aidex plugin review")
	r = e.mustRun("plugin", "list")
	wantIn(t, "plugin list", r.stdout, "ralph-wiggum@aidex-test", "enabled")

	r = e.run(context.Background(), "-p", "hi")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "aidex plugin review") {
		t.Fatalf("a headless run with an unapproved plugin hook: exit %d, stderr %s", r.code, r.stderr)
	}
	r = e.mustRun("plugin", "review", "--yes")
	wantIn(t, "plugin review", r.stdout, "approved 2 of 2")
	e.mustRun("-p", "hi")
	if data, err := os.ReadFile(log); err != nil || !strings.Contains(string(data), "ralph-wiggum Stop") {
		t.Errorf("the approved plugin hook did not run: %q, %v", data, err)
	}
	// An update whose hook script changed: asked again (listed as changed).
	plugintest.Write(t, filepath.Join(m.Plugins["ralph-wiggum"], "hooks/stop-hook.sh"), "#!/bin/sh\necho changed\n")
	plugintest.GitCommit(t, m.Root)
	e.mustRun("plugin", "marketplace", "add", url)
	r = e.mustRun("plugin", "update", "ralph-wiggum")
	wantIn(t, "plugin update", r.stdout, "updated ralph-wiggum@aidex-test", "[changed] hook ralph-wiggum:Stop[*]")
	checkPluginDisableRemove(t, e)
}

func checkPluginDisableRemove(t *testing.T, e *e2e) {
	e.mustRun("plugin", "disable", "ralph-wiggum")
	r := e.mustRun("plugin", "list", "--json")
	wantIn(t, "plugin list --json", r.stdout, `"enabled": false`)
	e.mustRun("plugin", "remove", "ralph-wiggum@aidex-test")
	r = e.mustRun("plugin", "list")
	wantIn(t, "plugin list after remove", r.stdout, "no plugins installed")
	e.mustRun("plugin", "marketplace", "remove", "aidex-test")
	r = e.mustRun("plugin", "marketplace", "list")
	wantIn(t, "marketplace list after remove", r.stdout, "no marketplaces")
	if r := e.run(context.Background(), "plugin", "add", "hookify@aidex-test"); r.code == ExitOK {
		t.Error("a plugin of a removed marketplace was added")
	}
}

// A plugin added from a folder and from a git URL; an unknown scope and
// a folder that is no plugin are errors naming the fix.
func TestPluginAddFolderAndURL(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	m := plugintest.Build(t, t.TempDir())
	r := e.mustRun("plugin", "add", "--yes", m.Plugins["hookify"])
	wantIn(t, "add folder", r.stdout, "installed hookify@local 0.1.0", "approved 7 of 7")
	r = e.mustRun("plugin", "add", plugintest.GitRepo(t, m.Plugins["explanatory-output-style"]))
	wantIn(t, "add url", r.stdout, "installed explanatory-output-style@local")
	r = e.run(context.Background(), "plugin", "add", "--scope", "galaxy", m.Plugins["hookify"])
	wantIn(t, "bad scope", r.stderr, "use user, project")
	bad := t.TempDir()
	plugintest.Write(t, filepath.Join(bad, ".claude-plugin/plugin.json"), `{"name": "Not Kebab"}`)
	r = e.run(context.Background(), "plugin", "add", bad)
	wantIn(t, "bad plugin", r.stderr, "kebab-case")
}
