package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDefaultWritable: the temp dir always, a toolchain's caches only when
// the toolchain is on PATH or the cache exists (a machine without cargo
// gets no ~/.cargo created).
func TestDefaultWritable(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"go", "npm", "pip3", "cargo"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"TMPDIR": "/t", "GOCACHE": "/c/go", "GOMODCACHE": "/m", "npm_config_cache": "/npm",
		"PIP_CACHE_DIR": "/pip", "CARGO_HOME": "/cargo", "PATH": "/nonexistent" + string(os.PathListSeparator) + bin}
	got := DefaultWritable("/home/u", func(k string) string { return env[k] })
	want := []string{"/t", "/c/go", "/m", "/npm", "/pip", "/cargo/registry", "/cargo/git"}
	if !slices.Equal(got, want) {
		t.Errorf("with every toolchain: %q, want %q", got, want)
	}
	env["PATH"] = ""
	if got := DefaultWritable("/home/u", func(k string) string { return env[k] }); !slices.Equal(got, []string{"/t"}) {
		t.Errorf("no toolchain, no cache: %q, want only the temp dir", got)
	}
	home := t.TempDir()
	npm := filepath.Join(home, ".npm")
	if err := os.Mkdir(npm, 0o755); err != nil {
		t.Fatal(err)
	}
	got = DefaultWritable(home, func(k string) string { return map[string]string{"TMPDIR": "/t"}[k] })
	if !slices.Equal(got, []string{"/t", npm}) {
		t.Errorf("an existing cache without its tool: %q, want /t and %s", got, npm)
	}
	got = DefaultWritable("/home/u", func(k string) string {
		return map[string]string{"GOCACHE": "off", "GOPATH": "/gp" + string(os.PathListSeparator) + "/other", "PATH": bin}[k]
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
	write(filepath.Join(gitdir, "gitdir"), filepath.Join(wt, ".git")+"\n") // the back-pointer
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
