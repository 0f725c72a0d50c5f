package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDefaultWritableAndCaches: the temp dir is the only default
// writable folder; a toolchain gets a private cache only when it is on
// PATH or its cache exists (a machine without cargo gets no cargo cache),
// GOCACHE=off gets no build cache, and the module cache is the first
// GOPATH entry's.
func TestDefaultWritableAndCaches(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"go", "npm", "pip3", "cargo"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"TMPDIR": "/t", "GOCACHE": "/c/go", "GOMODCACHE": "/m", "npm_config_cache": "/npm",
		"PIP_CACHE_DIR": "/pip", "CARGO_HOME": "/cargo", "PATH": "/nonexistent" + string(os.PathListSeparator) + bin}
	getenv := func(k string) string { return env[k] }
	if got := DefaultWritable("/home/u", getenv); !slices.Equal(got, []string{"/t"}) {
		t.Errorf("DefaultWritable = %q, want only the temp dir", got)
	}
	hosts := func(cs []Cache) []string {
		var out []string
		for _, c := range cs {
			if !strings.HasPrefix(c.Private, "/r/") {
				t.Errorf("%s: private %s outside the root", c.Name, c.Private)
			}
			out = append(out, c.Host)
		}
		return out
	}
	if got := hosts(DefaultCaches("/r", "/home/u", getenv)); !slices.Equal(got, []string{"/c/go", "/m", "/npm", "/pip", "/cargo"}) {
		t.Errorf("with every toolchain: %q", got)
	}
	env["PATH"] = ""
	if got := DefaultCaches("/r", "/home/u", getenv); len(got) != 0 {
		t.Errorf("no toolchain, no cache: %+v", got)
	}
	home := t.TempDir()
	npm := filepath.Join(home, ".npm")
	if err := os.Mkdir(npm, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := hosts(DefaultCaches("/r", home, func(string) string { return "" })); !slices.Equal(got, []string{npm}) {
		t.Errorf("an existing cache without its tool: %q, want %s", got, npm)
	}
	got := hosts(DefaultCaches("/r", "/home/u", func(k string) string {
		return map[string]string{"GOCACHE": "off", "GOPATH": "/gp" + string(os.PathListSeparator) + "/other", "PATH": bin}[k]
	}))
	if !slices.Contains(got, filepath.Join("/gp", "pkg", "mod")) || slices.ContainsFunc(got, func(p string) bool { return filepath.Base(p) == "go-build" }) {
		t.Errorf("GOCACHE=off, GOPATH list: %q", got)
	}
	if DefaultCaches("relative", "/home/u", getenv) != nil {
		t.Error("a relative root was accepted")
	}
	if a, b := CacheRoot("/c", "/w/a b"), CacheRoot("/c", "/x/a b"); a == b || !strings.HasPrefix(a, "/c/sandbox/a_b-") {
		t.Errorf("CacheRoot: %q %q", a, b)
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

func TestWithAnchors(t *testing.T) {
	writable := []string{"/ws", "/ws/.git", "/ws/sub/.git", "/tmp"}
	got := withAnchors(writable,
		[]string{"/ws/.git/config", "/ws/sub/.git/hooks", "/ws/a/b/.claude", "/ws/.mcp.json"},
		[]string{"/home/u/.ssh"}, nil)
	want := []string{"/ws", "/ws/.git", "/ws/sub/.git", "/tmp", "/ws/a", "/ws/a/b", "/ws/sub"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := withAnchors(writable, []string{"/ws/.mcp.json"}); !slices.Equal(got, writable) {
		t.Errorf("no anchors: got %q", got)
	}
}
