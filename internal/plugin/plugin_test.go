package plugin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/plugin/plugintest"
)

func TestLoadRealPlugins(t *testing.T) {
	m := plugintest.Build(t, t.TempDir())
	hk, err := Load(m.Plugins["hookify"], "")
	if err != nil {
		t.Fatal(err)
	}
	if hk.Name != "hookify" || hk.Manifest.Version != "0.1.0" || hk.Manifest.Author.Email != "support@anthropic.com" {
		t.Errorf("manifest = %+v", hk.Manifest)
	}
	for what, got := range map[string][]string{"commands": hk.CommandDirs, "agents": hk.AgentDirs, "skills": hk.SkillDirs, "hooks": hk.HookFiles} {
		if len(got) != 1 {
			t.Errorf("%s = %v, want the default one", what, got)
		}
	}
	if len(hk.Warnings) != 0 {
		t.Errorf("warnings: %v", hk.Warnings)
	}
	rw, err := Load(m.Plugins["ralph-wiggum"], "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rw.MCPFiles) != 1 || len(rw.HookFiles) != 1 || len(rw.CommandDirs) != 0 {
		t.Errorf("ralph-wiggum = %+v", rw)
	}
}

func TestManifestUnknownKeysWarnWithLine(t *testing.T) {
	data := []byte("{\n  \"name\": \"x\",\n  \"frobnicate\": 1,\n  \"outputStyles\": \"./styles\",\n  \"$schema\": \"s\"\n}")
	m, warns, err := ParseManifest("p/plugin.json", data)
	if err != nil || m.Name != "x" {
		t.Fatalf("ParseManifest = %+v, %v", m, err)
	}
	if len(warns) != 2 || !strings.HasPrefix(warns[0], "p/plugin.json:3: unknown key \"frobnicate\"") ||
		!strings.HasPrefix(warns[1], "p/plugin.json:4: Claude Code's \"outputStyles\" is not supported") {
		t.Errorf("warnings = %q", warns)
	}
}

func TestManifestShapes(t *testing.T) {
	m, _, err := ParseManifest("f", []byte(`{"name":"a","commands":"./c","agents":["./a1","./a2"],
		"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]},"mcpServers":"./m.json","author":"Jo"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Commands) != 1 || len(m.Agents) != 2 || m.Hooks.Inline == nil || len(m.MCPServers.Paths) != 1 || m.Author.Name != "Jo" {
		t.Errorf("manifest = %+v", m)
	}
	for _, bad := range []string{`[]`, `{"name": 3}`, `{"name":"a","commands":{"x":1}}`, `{"name":"a","hooks":7}`, `{"name":"a","keywords":"k"}`} {
		if _, _, err := ParseManifest("f", []byte(bad)); err == nil || !strings.Contains(err.Error(), "f") {
			t.Errorf("ParseManifest(%s) err = %v, want one naming the file", bad, err)
		}
	}
}

func TestLoadNames(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, "Bad Name"); err == nil || !strings.Contains(err.Error(), "kebab-case") {
		t.Errorf("a bad name loaded: %v", err)
	}
	p, err := Load(dir, "no-manifest")
	if err != nil || p.Name != "no-manifest" {
		t.Errorf("a plugin without a manifest = %+v, %v", p, err)
	}
	plugintest.Write(t, ManifestPath(dir), `{"name": "a:b"}`)
	if _, err := Load(dir, "ok"); err == nil {
		t.Error("a name with ':' loaded")
	}
}

func TestPathsStayInsideThePlugin(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	plugintest.Write(t, filepath.Join(outside, "evil.md"), "x")
	plugintest.Write(t, filepath.Join(root, "cmds/ok.md"), "x")
	if err := os.Symlink(outside, filepath.Join(root, "linkout")); err != nil {
		t.Skip(err)
	}
	plugintest.Write(t, ManifestPath(root), `{"name": "p", "commands": ["./cmds", "../x", "/etc", "./linkout", "./missing"],
		"hooks": "./cmds", "mcpServers": ["./linkout/evil.md"]}`)
	p, err := Load(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.CommandDirs) != 1 || !strings.HasSuffix(p.CommandDirs[0], "cmds") || len(p.HookFiles) != 0 || len(p.MCPFiles) != 0 {
		t.Errorf("paths = %v %v %v", p.CommandDirs, p.HookFiles, p.MCPFiles)
	}
	if len(p.Warnings) != 6 {
		t.Errorf("warnings = %q, want one per path left out", p.Warnings)
	}
}

func TestTreeDigestCoversEveryFile(t *testing.T) {
	root := t.TempDir()
	plugintest.Write(t, filepath.Join(root, "hooks/run.sh"), "echo a")
	plugintest.Write(t, filepath.Join(root, "lib/util.py"), "x = 1")
	base, err := TreeDigest(root)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Write(t, filepath.Join(root, ".git/HEAD"), "ref")
	if d, _ := TreeDigest(root); d != base {
		t.Error("a .git folder changed the digest")
	}
	for name, change := range map[string]func(){
		"content": func() { plugintest.Write(t, filepath.Join(root, "lib/util.py"), "x = 2") },
		"mode":    func() { _ = os.Chmod(filepath.Join(root, "hooks/run.sh"), 0o755) },
		"new":     func() { plugintest.Write(t, filepath.Join(root, "lib/more.py"), "") },
		"link":    func() { _ = os.Symlink("/etc/passwd", filepath.Join(root, "lib/l")) },
	} {
		change()
		d, err := TreeDigest(root)
		if err != nil || d == base {
			t.Errorf("a %s change kept the digest (%v)", name, err)
		}
		base = d
	}
}

func TestStoreInstallListRemove(t *testing.T) {
	ctx := context.Background()
	m := plugintest.Build(t, t.TempDir())
	s := OpenStore(t.TempDir())
	f, err := s.Install(ctx, m.Plugins["hookify"], "")
	if err != nil {
		t.Fatal(err)
	}
	if f.ID() != "hookify@local" || f.Version != "0.1.0" || !strings.HasPrefix(f.Plugin.Root, s.Dir()) {
		t.Errorf("installed = %+v", f.Installed)
	}
	// The copy, not the source, is loaded: editing the source changes nothing.
	plugintest.Write(t, filepath.Join(m.Plugins["hookify"], "commands/new.md"), "x")
	if _, err := os.Stat(filepath.Join(f.Dir, "commands/new.md")); err == nil {
		t.Error("the installed plugin is the source folder, not a copy")
	}
	url := plugintest.GitRepo(t, m.Plugins["ralph-wiggum"])
	g, err := s.Install(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install(ctx, url+"#main", ""); err != nil {
		t.Fatalf("URL#REF: %v", err)
	}
	if g.ID() != "ralph-wiggum@local" || len(g.Commit) != 40 {
		t.Errorf("cloned = %+v", g.Installed)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".git")); err == nil {
		t.Error("the clone's .git folder was kept")
	}
	list, _ := s.Installed()
	if len(list) != 2 || list[0].Name != "hookify" {
		t.Errorf("list = %+v", list)
	}
	if _, err := s.Remove("hookify"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.Dir); err == nil {
		t.Error("remove kept the copy")
	}
	if _, err := s.Find("hookify"); err == nil {
		t.Error("a removed plugin is found")
	}
}

func TestMarketplaceAddInstallRemove(t *testing.T) {
	ctx := context.Background()
	m := plugintest.Build(t, t.TempDir())
	s := OpenStore(t.TempDir())
	url := plugintest.GitRepo(t, m.Root)
	k, mk, warns, err := s.AddMarketplace(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != plugintest.Name || len(mk.Plugins) != 3 || mk.Owner.Name != "aidex tests" {
		t.Errorf("marketplace = %+v %+v", k, mk)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	f, err := s.Install(ctx, "explanatory-output-style", plugintest.Name)
	if err != nil {
		t.Fatal(err)
	}
	if f.ID() != "explanatory-output-style@"+plugintest.Name || len(f.Plugin.HookFiles) != 1 {
		t.Errorf("installed = %+v", f)
	}
	if _, err := s.Install(ctx, "nope", plugintest.Name); err == nil || !strings.Contains(err.Error(), "hookify") {
		t.Errorf("an unknown entry: %v, want the list of entries", err)
	}
	if _, err := s.RemoveMarketplace(plugintest.Name); err != nil {
		t.Fatal(err)
	}
	if ks, _ := s.Marketplaces(); len(ks) != 0 {
		t.Errorf("marketplaces after remove = %+v", ks)
	}
	if _, err := s.Install(ctx, "hookify", plugintest.Name); err == nil {
		t.Error("installed from a removed marketplace")
	}
}

func TestMarketplaceSources(t *testing.T) {
	data := []byte(`{"name":"m","owner":{"name":"o"},"plugins":[
		{"name":"a","source":"./p/a"},
		{"name":"b","source":{"source":"github","repo":"o/r"}},
		{"name":"c","source":"https://example.com/c.git"},
		{"name":"d","source":"d","strict":false}],"metadata":{"pluginRoot":"./plugins"}}`)
	m, warns, err := ParseMarketplace("mk.json", "/r", data)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p/a", "https://github.com/o/r.git", "https://example.com/c.git", "plugins/d"}
	for i, w := range want {
		if m.Plugins[i].Source.String() != w {
			t.Errorf("source %d = %q, want %q", i, m.Plugins[i].Source, w)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `"strict"`) {
		t.Errorf("warnings = %q", warns)
	}
	for _, src := range []string{`"../x"`, `"/abs"`, `{"source":"npm","package":"x"}`, `{"source":"github","repo":"x"}`} {
		bad := []byte(`{"name":"m","plugins":[{"name":"a","source":` + src + `}]}`)
		if _, _, err := ParseMarketplace("mk.json", "/r", bad); err == nil {
			t.Errorf("source %s accepted", src)
		}
	}
}

func TestCopyLeavesOutLinksThatLeave(t *testing.T) {
	src := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	plugintest.Write(t, secret, "key")
	plugintest.Write(t, filepath.Join(src, "in.md"), "in")
	if err := os.Symlink(secret, filepath.Join(src, "out.md")); err != nil {
		t.Skip(err)
	}
	_ = os.Symlink(filepath.Join(src, "in.md"), filepath.Join(src, "alias.md"))
	dst := filepath.Join(t.TempDir(), "c")
	warns, err := copyTree(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "out.md")); err == nil || len(warns) != 1 {
		t.Errorf("a link out of the plugin was copied (warnings %q)", warns)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "alias.md")); string(b) != "in" {
		t.Error("a link inside the plugin was not copied as its file")
	}
}

func TestEnabledSettings(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s", "settings.json")
	plugintest.Write(t, file, `{"permissions": {"allow": ["Read"]}, "enabledPlugins": {"a@m": true}}`)
	if err := SetEnabled(file, "b@m", false); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEnabled(file)
	if err != nil || !got["a@m"] || got["b@m"] || len(got) != 2 {
		t.Errorf("enabled = %v, %v", got, err)
	}
	if data, _ := os.ReadFile(file); !strings.Contains(string(data), `"Read"`) {
		t.Error("SetEnabled dropped the file's other keys")
	}
	if on, ok := Enabled("a@m", map[string]bool{"a@m": true}, map[string]bool{"a@m": false}); on || !ok {
		t.Error("a later layer does not decide")
	}
	plugintest.Write(t, file, `{"enabledPlugins": ["a"]}`)
	if _, err := ReadEnabled(file); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a bad enabledPlugins: %v", err)
	}
}

func TestIsGitURL(t *testing.T) {
	for s, want := range map[string]bool{"https://github.com/a/b": true, "git@github.com:a/b.git": true, "file:///tmp/x.git": true,
		"./plugins/x": false, "/abs/dir": false, "ext::sh -c x": false, "x.git": true} {
		if IsGitURL(s) != want {
			t.Errorf("IsGitURL(%q) = %v", s, !want)
		}
	}
	if _, err := clone(context.Background(), "ext::sh -c touch% /tmp/pwn", "", t.TempDir()); err == nil {
		t.Error("an ext:: URL was cloned")
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"name":"a","commands":["./c"],"hooks":{"Stop":[]},"mcpServers":{"s":{}}}`))
	f.Add([]byte(`{"name":"m","plugins":[{"name":"a","source":"./a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = ParseManifest("f", data)
		m, _, err := ParseMarketplace("f", "/r", data)
		if err == nil {
			for _, e := range m.Plugins {
				if p := e.Source.Path; p != "" && (strings.HasPrefix(p, "../") || p == ".." || strings.HasPrefix(p, "/")) {
					t.Errorf("source %q leaves the marketplace", p)
				}
			}
		}
	})
}

// Cloning runs no program of the user's or the repository's git
// configuration: a global core.hooksPath and init.templateDir holding a
// post-checkout hook are both neutralised.
func TestCloneRunsNoHooks(t *testing.T) {
	m := plugintest.Build(t, t.TempDir())
	url := plugintest.GitRepo(t, m.Plugins["hookify"])
	home := t.TempDir()
	marker := filepath.Join(t.TempDir(), "pwned")
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	plugintest.Write(t, filepath.Join(home, "hooks/post-checkout"), hook)
	plugintest.Write(t, filepath.Join(home, "tmpl/hooks/post-checkout"), hook)
	for _, f := range []string{"hooks/post-checkout", "tmpl/hooks/post-checkout"} {
		if err := os.Chmod(filepath.Join(home, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	plugintest.Write(t, filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = "+filepath.Join(home, "hooks")+
		"\n[init]\n\ttemplateDir = "+filepath.Join(home, "tmpl")+"\n")
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	if _, err := OpenStore(t.TempDir()).Install(context.Background(), url, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a git hook ran while cloning a plugin")
	}
}
