//go:build linux

package sandbox

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeTools returns a PATH folder holding executables named like the
// toolchains (go, npm, npx, pip, pip3, cargo) that do nothing.
func fakeTools(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	for _, n := range []string{"go", "npm", "npx", "pip", "pip3", "cargo"} {
		if err := os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestNoFoldersCreatedInHome: building the sandbox and running commands in
// it creates nothing in the user's home, even with every toolchain
// installed and none of their caches there yet.
func TestNoFoldersCreatedInHome(t *testing.T) {
	e := newEnv(t)
	home := t.TempDir()
	getenv := envOf(map[string]string{"PATH": fakeTools(t), "TMPDIR": e.tmp})
	root := CacheRoot(filepath.Join(t.TempDir(), "aidex-cache"), e.ws)
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: e.ws, Home: home,
		Writable: DefaultWritable(home, getenv), Caches: DefaultCaches(root, home, getenv)}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e.sh(sb, "true"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	var made []string
	_ = filepath.WalkDir(home, func(p string, _ os.DirEntry, _ error) error {
		if p != home {
			made = append(made, p)
		}
		return nil
	})
	if len(made) > 0 {
		t.Errorf("the sandbox created in the home: %v", made)
	}
}

// TestHostCachesNotWritable: the user's toolchain caches are never
// writable to a command (what it wrote there would be compiled or run
// later outside the sandbox), also when they lie in a writable folder;
// the command's toolchains use private caches instead.
func TestHostCachesNotWritable(t *testing.T) {
	e := newEnv(t)
	hostCache := filepath.Join(e.home, ".cache")
	vars := map[string]string{
		"PATH":             fakeTools(t),
		"GOCACHE":          filepath.Join(e.tmp, "user-gocache"), // in the writable temp dir
		"GOMODCACHE":       filepath.Join(e.home, "go", "pkg", "mod"),
		"npm_config_cache": filepath.Join(e.home, ".npm"),
		"PIP_CACHE_DIR":    filepath.Join(hostCache, "pip"),
		"CARGO_HOME":       filepath.Join(e.home, ".cargo"),
	}
	hosts := []string{vars["GOCACHE"], vars["GOMODCACHE"], filepath.Join(vars["npm_config_cache"], "_npx"),
		vars["PIP_CACHE_DIR"], filepath.Join(vars["CARGO_HOME"], "registry"), filepath.Join(vars["CARGO_HOME"], "git")}
	for _, d := range hosts {
		mustMkdir(t, d)
	}
	mustWrite(t, filepath.Join(vars["CARGO_HOME"], "config.toml"), "[net]\noffline = true\n")
	root := CacheRoot(filepath.Join(t.TempDir(), "aidex-cache"), e.ws)
	caches := DefaultCaches(root, e.home, envOf(vars))
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: e.ws, Home: e.home,
		Writable: []string{e.tmp}, Caches: caches}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range hosts {
		if out, err := e.sh(sb, "echo planted > '"+filepath.Join(d, "planted")+"'"); err == nil {
			t.Errorf("wrote into the user's cache %s: %q", d, out)
		}
		if _, err := os.Stat(filepath.Join(d, "planted")); err == nil {
			t.Errorf("%s/planted exists", d)
		}
	}
	out, err := e.sh(sb, `echo "$GOCACHE|$GOMODCACHE|$npm_config_cache|$PIP_CACHE_DIR|$CARGO_HOME"; cat "$CARGO_HOME/config.toml"; touch "$GOCACHE/x" "$npm_config_cache/x" "$CARGO_HOME/x"`)
	if err != nil {
		t.Fatalf("the private caches: %v %s", err, out)
	}
	for _, c := range caches {
		if !strings.HasPrefix(c.Private, root) || !strings.Contains(out, c.Private) {
			t.Errorf("%s: private %s is not the command's (%q)", c.Name, c.Private, out)
		}
	}
	if !strings.Contains(out, "offline = true") {
		t.Errorf("cargo's private home lacks the user's config: %q", out)
	}
	if len(caches) != 5 {
		t.Errorf("caches = %d, want Go build, Go modules, npm, pip, cargo", len(caches))
	}
}

// writeGoProxy writes a module proxy folder serving example.com/dep
// v1.0.0 (package dep, func Answer() int = 42).
func writeGoProxy(t *testing.T, dir string) {
	t.Helper()
	v := filepath.Join(dir, "example.com", "dep", "@v")
	mustMkdir(t, v)
	mustWrite(t, filepath.Join(v, "list"), "v1.0.0\n")
	mustWrite(t, filepath.Join(v, "v1.0.0.info"), `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`)
	gomod := "module example.com/dep\n\ngo 1.22\n"
	mustWrite(t, filepath.Join(v, "v1.0.0.mod"), gomod)
	f, err := os.Create(filepath.Join(v, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range map[string]string{"go.mod": gomod, "dep.go": "package dep\n\nfunc Answer() int { return 42 }\n"} {
		w, err := zw.Create("example.com/dep@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestGoOfflineFromUserModuleCache is the control of the private Go
// caches: `go build` and `go test` of a module whose dependency is in the
// user's module cache work in the sandbox with the network off, and leave
// the user's caches untouched.
func TestGoOfflineFromUserModuleCache(t *testing.T) {
	e := newEnv(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("go not on PATH")
	}
	proxy, userMod := t.TempDir(), filepath.Join(e.home, "go", "pkg", "mod")
	writeGoProxy(t, proxy)
	mustWrite(t, filepath.Join(e.ws, "go.mod"), "module example.com/app\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n")
	mustWrite(t, filepath.Join(e.ws, "app.go"), "package app\n\nimport \"example.com/dep\"\n\nfunc Twice() int { return 2 * dep.Answer() }\n")
	mustWrite(t, filepath.Join(e.ws, "app_test.go"), "package app\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice() != 84 {\n\t\tt.Fatal(Twice())\n\t}\n}\n")
	base := append(os.Environ(), "HOME="+e.home, "GOTOOLCHAIN=local", "GOFLAGS=", "GOPROXY=", "GONOPROXY=", "GOPRIVATE=", "GONOSUMDB=")
	// The user's own download, outside the sandbox: it fills their
	// module cache and go.sum.
	tidy := exec.Command(goBin, "mod", "tidy")
	tidy.Dir = e.ws
	tidy.Env = append(slices.Clone(base), "GOMODCACHE="+userMod, "GOPROXY=file://"+filepath.ToSlash(proxy), "GOSUMDB=off", "GOFLAGS=-modcacherw")
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy outside the sandbox: %v\n%s", err, out)
	}
	before := readFile(t, filepath.Join(e.ws, "go.sum"))
	// The private build cache reads the user's through GOCACHEPROG: the
	// standard library is not compiled again.
	out, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	gocache := strings.TrimSpace(string(out))
	vars := map[string]string{"PATH": os.Getenv("PATH"), "GOMODCACHE": userMod, "TMPDIR": e.tmp, "GOCACHE": gocache}
	root := CacheRoot(filepath.Join(t.TempDir(), "aidex-cache"), e.ws)
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: e.ws, Home: e.home,
		Writable: DefaultWritable(e.home, envOf(vars)), Caches: DefaultCaches(root, e.home, envOf(vars))}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{goBin, "build", "./..."}, {goBin, "test", "-count=1", "./..."}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = e.ws
		cmd.Env = append(slices.Clone(base), "TMPDIR="+e.tmp, "GOMODCACHE="+userMod, "GOCACHE="+gocache)
		if err := sb.Confine(cmd, Options{}); err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v in the sandbox, network off: %v\n%s", args[1:], err, out)
		}
	}
	if got := readFile(t, filepath.Join(e.ws, "go.sum")); got != before {
		t.Errorf("go.sum changed:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(root, "go-mod", "example.com", "dep@v1.0.0", "dep.go")); err != nil {
		t.Errorf("the module was not extracted into the private module cache: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "go-build", "prog")); len(entries) == 0 {
		t.Error("the private build cache (GOCACHEPROG) received nothing")
	}
}

// TestNpmTestOffline is the control of the private npm cache: `npm test`
// of a package whose node_modules exists works with the network off.
func TestNpmTestOffline(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not installed")
	}
	e := newEnv(t)
	mustWrite(t, filepath.Join(e.ws, "package.json"), `{"name":"t","version":"1.0.0","scripts":{"test":"node test.js"}}`)
	mustMkdir(t, filepath.Join(e.ws, "node_modules", "dep"))
	mustWrite(t, filepath.Join(e.ws, "node_modules", "dep", "index.js"), "module.exports = 42;\n")
	mustWrite(t, filepath.Join(e.ws, "test.js"), "if (require('dep') !== 42) { process.exit(1); }\nconsole.log('npm-test-ok');\n")
	vars := map[string]string{"PATH": os.Getenv("PATH"), "TMPDIR": e.tmp}
	root := CacheRoot(filepath.Join(t.TempDir(), "aidex-cache"), e.ws)
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: e.ws, Home: e.home,
		Writable: DefaultWritable(e.home, envOf(vars)), Caches: DefaultCaches(root, e.home, envOf(vars))}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.run(sb, Options{}, npm, "test")
	if err != nil || !strings.Contains(out, "npm-test-ok") {
		t.Errorf("npm test in the sandbox, network off: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(e.home, ".npm")); err == nil {
		t.Error("npm wrote ~/.npm")
	}
}

// The private caches are aidex's own folders, never a project: they get
// no project-file guards (which each command would look for again), while
// the workspace and the temp folder keep theirs.
func TestPrivateCachesAreNoProjects(t *testing.T) {
	e := newEnv(t)
	vars := map[string]string{"PATH": fakeTools(t), "GOMODCACHE": filepath.Join(e.home, "go", "pkg", "mod")}
	caches := DefaultCaches(CacheRoot(filepath.Join(t.TempDir(), "aidex-cache"), e.ws), e.home, envOf(vars))
	if len(caches) == 0 {
		t.Fatal("no caches")
	}
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: e.ws, Home: e.home, Writable: []string{e.tmp}, Caches: caches}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range sb.fixed.guards {
		for _, c := range caches {
			if within(g.path, c.Private) {
				t.Errorf("guard %s in the private %s", g.path, c.Name)
			}
		}
	}
	for _, p := range []string{filepath.Join(e.ws, ".mcp.json"), filepath.Join(e.tmp, ".envrc")} {
		if _, ok := sb.fixed.guardFor(p); !ok {
			t.Errorf("%s is not guarded", p)
		}
	}
}
