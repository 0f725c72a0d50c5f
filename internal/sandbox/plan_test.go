package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDefaultWritable(t *testing.T) {
	env := map[string]string{"TMPDIR": "/t", "GOCACHE": "/c/go", "GOMODCACHE": "/m", "npm_config_cache": "/npm",
		"PIP_CACHE_DIR": "/pip", "CARGO_HOME": "/cargo"}
	got := DefaultWritable("/home/u", func(k string) string { return env[k] })
	want := []string{"/t", "/c/go", "/m", "/npm", "/pip", "/cargo/registry", "/cargo/git"}
	if !slices.Equal(got, want) {
		t.Errorf("with env: %q, want %q", got, want)
	}
	got = DefaultWritable("/home/u", func(string) string { return "" })
	for _, w := range []string{filepath.Join("/home/u", "go", "pkg", "mod"), filepath.Join("/home/u", ".npm"),
		filepath.Join("/home/u", ".cargo", "registry")} {
		if !slices.Contains(got, w) {
			t.Errorf("defaults %q lack %q", got, w)
		}
	}
	got = DefaultWritable("/home/u", func(k string) string {
		return map[string]string{"GOCACHE": "off", "GOPATH": "/gp" + string(os.PathListSeparator) + "/other"}[k]
	})
	if !slices.Contains(got, filepath.Join("/gp", "pkg", "mod")) || slices.ContainsFunc(got, func(p string) bool { return filepath.Base(p) == "go-build" }) {
		t.Errorf("GOCACHE=off, GOPATH list: %q", got)
	}
}

func TestPlanProtectsLinkedWorktreeAndSkipsMasksAboveWritable(t *testing.T) {
	root := t.TempDir()
	main, wt, home := filepath.Join(root, "main"), filepath.Join(root, "wt"), filepath.Join(root, "home")
	gitdir := filepath.Join(main, ".git", "worktrees", "wt")
	for _, d := range []string{filepath.Join(main, ".git", "hooks"), gitdir, wt, filepath.Join(home, ".ssh"), filepath.Join(home, ".aws")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(main, ".git", "config"), "")
	write(filepath.Join(gitdir, "commondir"), "../..\n")
	write(filepath.Join(wt, ".git"), "gitdir: "+gitdir+"\n")
	write(filepath.Join(home, ".netrc"), "")
	// The workspace lives in ~/.aws (absurd but possible): that mask must go.
	ws := filepath.Join(home, ".aws", "proj")
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: wt, Writable: []string{gitdir, ws}, Home: home},
		Caps{Helper: "/x", Namespaces: true, LandlockABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	sp := sb.spec(Options{Network: true})
	for _, p := range []string{filepath.Join(main, ".git", "hooks"), filepath.Join(main, ".git", "config"), filepath.Join(wt, ".aidex")} {
		if !slices.Contains(sp.Protected, p) {
			t.Errorf("protected %q lacks %q", sp.Protected, p)
		}
	}
	if !slices.Contains(sp.MaskDirs, filepath.Join(home, ".ssh")) || !slices.Contains(sp.MaskFiles, filepath.Join(home, ".netrc")) {
		t.Errorf("masks %q %q lack ~/.ssh or ~/.netrc", sp.MaskDirs, sp.MaskFiles)
	}
	if slices.Contains(sp.MaskDirs, filepath.Join(home, ".aws")) {
		t.Errorf("~/.aws holds a writable folder but is masked: %q", sp.MaskDirs)
	}
	if sp.Loopback || sp.NetOff {
		t.Errorf("Options.Network: loopback %v netOff %v", sp.Loopback, sp.NetOff)
	}
	if _, err := New(Policy{Mode: WorkspaceWrite, Workspace: "rel"}, Caps{Helper: "/x"}); err == nil {
		t.Error("a relative workspace was accepted")
	}
	if _, err := New(Policy{Mode: WorkspaceWrite, Workspace: wt}, Caps{Reason: "no kernel support"}); err == nil {
		t.Error("an unavailable sandbox was accepted")
	}
}
