package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/file"
)

// The approval preview is the dry-run diff of the very change, computed
// only when asked, and nothing is written while computing it.
func TestPreviewIsDryRunDiff(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := permission.NewWorkspace(ws, permission.WorkspaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(file.Tools()...); err != nil {
		t.Fatal(err)
	}
	env := tools.NewEnv(w)
	env.SkipReadCheck = true
	ts, err := newToolSet(reg, env, tools.Profile{Name: tools.ProfileFull}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"write_file", `{"path":"new.txt","content":"hello\n"}`, "+hello"},
		{"edit_file", `{"path":"f.txt","old_string":"b","new_string":"B"}`, "+B"},
	} {
		c, bad := ts.Prepare(tc.tool, json.RawMessage(tc.args))
		if bad != nil || c.Previewer == nil {
			t.Fatalf("%s: %+v", tc.tool, bad)
		}
		if d := c.Previewer(context.Background()); !strings.Contains(d, tc.want) {
			t.Errorf("%s preview: %q", tc.tool, d)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); !os.IsNotExist(err) {
		t.Error("the preview wrote the file")
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "f.txt")); string(data) != "a\nb\n" {
		t.Errorf("the preview changed f.txt: %q", data)
	}
	if c, _ := ts.Prepare("read_file", json.RawMessage(`{"path":"f.txt"}`)); c.Previewer != nil {
		t.Error("read_file has a preview")
	}
}

// "Always allow" writes the rule to the project file and records it for
// the user, so the next load applies it even in an untrusted folder.
func TestRememberAlwaysSurvivesReload(t *testing.T) {
	home, rt, pol := newTestPolicy(t)
	a := &engine.Policy{P: pol, ProjectFile: config.ProjectConfigFile(rt.Workspace), Paths: rt.Config.Paths, Workspace: rt.Workspace}
	if err := a.Remember(agent.AnswerAlways, "run_command(go test *)"); err != nil {
		t.Fatal(err)
	}
	rt2, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	if rt2.Config.ProjectTrusted || len(rt2.Config.Permissions.Allow) != 1 || rt2.Config.Permissions.Allow[0].Text != "run_command(go test *)" {
		t.Fatalf("after reload: trusted %v, allow %+v, warnings %v", rt2.Config.ProjectTrusted, rt2.Config.Permissions.Allow, rt2.Warnings)
	}
}

// A file change without a checkpoint store is an infrastructure failure:
// Run returns it as an error (the engine aborts the turn), not as a tool
// result for the model, and nothing is written.
func TestMissingCheckpointStoreIsAnError(t *testing.T) {
	ws := t.TempDir()
	w, err := permission.NewWorkspace(ws, permission.WorkspaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(file.Tools()...); err != nil {
		t.Fatal(err)
	}
	env := tools.NewEnv(w)
	env.SkipReadCheck = true
	env.Checkpoints = nil
	ts, err := newToolSet(reg, env, tools.Profile{Name: tools.ProfileFull}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, bad := ts.Prepare("write_file", json.RawMessage(`{"path":"x.txt","content":"x"}`))
	if bad != nil {
		t.Fatal(bad.Error)
	}
	res, err := ts.Run(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "checkpoint") {
		t.Fatalf("Run = %+v, %v; want the missing checkpoint store as an error", res, err)
	}
	if _, statErr := os.Stat(filepath.Join(ws, "x.txt")); !os.IsNotExist(statErr) {
		t.Errorf("x.txt was written without a checkpoint: %v", statErr)
	}
}

// newTestPolicy loads a runtime in a temporary home and workspace (no
// config) and builds its interactive policy; it returns all three.
func newTestPolicy(t *testing.T) (*apptest.Home, *Runtime, *permission.Policy) {
	t.Helper()
	home := apptest.NewHome(t, "")
	rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	w, err := rt.NewWorkspace(false)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := rt.engineRoom().policy(w, true, tools.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return home, rt, pol
}
