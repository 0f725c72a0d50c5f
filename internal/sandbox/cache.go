package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// Cache is a toolchain cache that sandboxed commands get a private copy
// of: what a command writes to a shared cache (a compiled package, an
// extracted module, an npx package) would run later outside the sandbox,
// so the user's own cache is never writable to them.
type Cache struct {
	// Name says what the cache is ("Go build cache").
	Name string
	// Host is the user's own cache (it may not exist): commands may read
	// it but never write it, even when it lies in a writable folder.
	Host string
	// Private is the sandbox's own cache for this workspace, writable;
	// New creates it.
	Private string
	// Env are the KEY=VALUE settings that point the toolchain at Private
	// for a command with the network off; EnvNet with the network on
	// (nil: Env).
	Env, EnvNet []string
	// Links are files of the user's own configuration linked into
	// Private (name in Private -> the user's file), read-only through the
	// link: cargo reads its config from its home.
	Links map[string]string
	// Note says what the private cache starts from ("" when empty).
	Note string
	// ReadThrough (the Go build cache, on Linux): Go 1.24+ reads the
	// user's cache through the helper's GOCACHEPROG (helper.GoCacheProg)
	// and writes only Private, so a workspace's first build is not a cold
	// one.
	ReadThrough bool
}

// CacheRoot returns the folder of a workspace's private caches under
// base (aidex's cache folder): base/sandbox/<workspace name>-<hash>.
func CacheRoot(base, workspace string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r < ' ' {
			return '_'
		}
		return r
	}, filepath.Base(workspace))
	return filepath.Join(base, "sandbox", name+"-"+hex.EncodeToString(sum[:6]))
}

// DefaultCaches returns the private caches under root (see CacheRoot) of
// the toolchains that are installed (on getenv("PATH")) or whose cache
// exists, found through getenv and home as the tools find them:
//   - Go: GOCACHE (a fresh build cache) and GOMODCACHE, which Go fills
//     from the user's module cache through GOPROXY=file://…/cache/download
//     (go.sum verifies what it copies), so modules already downloaded
//     build without the network;
//   - npm (npm_config_cache: its cache and the _npx packages aidex
//     itself starts MCP servers from), pip (PIP_CACHE_DIR) and cargo
//     (CARGO_HOME, with the user's cargo config linked in).
func DefaultCaches(root, home string, getenv func(string) string) []Cache {
	if root == "" || !filepath.IsAbs(root) {
		return nil
	}
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	path := getenv("PATH")
	wanted := func(host string, tools ...string) bool {
		if _, err := os.Stat(host); err == nil {
			return true
		}
		return onPath(path, tools...)
	}
	var out []Cache
	add := func(c Cache, tools ...string) {
		if c.Host != "" && (!filepath.IsAbs(c.Host) || filepath.Clean(c.Host) == "/") {
			return
		}
		if !wanted(c.Host, tools...) {
			return
		}
		c.Host = filepath.Clean(c.Host)
		out = append(out, c)
	}
	xdgCache := or(getenv("XDG_CACHE_HOME"), userCacheDefault(home))
	if gc := getenv("GOCACHE"); gc != "off" {
		p := filepath.Join(root, "go-build")
		add(Cache{Name: "Go build cache", Host: or(gc, filepath.Join(xdgCache, "go-build")), Private: p,
			Env: []string{"GOCACHE=" + p}, ReadThrough: true, Note: "reads yours through GOCACHEPROG (Go 1.24+)"}, "go")
	}
	gopath := or(strings.Split(getenv("GOPATH"), string(os.PathListSeparator))[0], filepath.Join(home, "go"))
	mod := or(getenv("GOMODCACHE"), filepath.Join(gopath, "pkg", "mod"))
	if filepath.IsAbs(mod) {
		p := filepath.Join(root, "go-mod")
		download := "file://" + filepath.ToSlash(filepath.Join(mod, "cache", "download"))
		proxy := or(getenv("GOPROXY"), "https://proxy.golang.org,direct")
		add(Cache{Name: "Go module cache", Host: mod, Private: p,
			// Network off: modules come from the user's cache only, private
			// ones included (GONOPROXY would send them to their servers).
			Env:    []string{"GOMODCACHE=" + p, "GOPROXY=" + download + ",off", "GONOPROXY=none.invalid"},
			EnvNet: []string{"GOMODCACHE=" + p, "GOPROXY=" + download + "," + proxy},
			Note:   "filled from " + filepath.Join(mod, "cache", "download")}, "go")
	}
	npm := filepath.Join(root, "npm")
	add(Cache{Name: "npm cache and npx packages", Host: or(getenv("npm_config_cache"), filepath.Join(home, ".npm")),
		Private: npm, Env: []string{"npm_config_cache=" + npm}}, "npm", "npx")
	pip := filepath.Join(root, "pip")
	add(Cache{Name: "pip cache", Host: or(getenv("PIP_CACHE_DIR"), filepath.Join(xdgCache, "pip")),
		Private: pip, Env: []string{"PIP_CACHE_DIR=" + pip}}, "pip", "pip3")
	cargoHome := or(getenv("CARGO_HOME"), filepath.Join(home, ".cargo"))
	cargo := filepath.Join(root, "cargo")
	links := map[string]string{}
	for _, f := range []string{"config.toml", "config"} {
		if st, err := os.Stat(filepath.Join(cargoHome, f)); err == nil && st.Mode().IsRegular() {
			links[f] = filepath.Join(cargoHome, f)
		}
	}
	add(Cache{Name: "cargo registry and git checkouts", Host: cargoHome, Private: cargo,
		Env: []string{"CARGO_HOME=" + cargo}, Links: links, Note: "with your cargo config"}, "cargo")
	return out
}

// prepareCaches creates the private caches and their links, adds them to
// the writable set, and protects the user's caches that lie in a writable
// folder (a GOCACHE in the temp dir).
func (f *fixedPlan) prepareCaches(caches []Cache) error {
	for _, c := range caches {
		if !filepath.IsAbs(c.Private) {
			return fmt.Errorf("sandbox: cache folder %q is relative: give an absolute path", c.Private)
		}
		if err := os.MkdirAll(c.Private, 0o700); err != nil {
			return fmt.Errorf("sandbox: private %s %s: %w", c.Name, c.Private, err)
		}
		for name, target := range c.Links {
			link := filepath.Join(c.Private, name)
			if cur, err := os.Readlink(link); err == nil && cur == target {
				continue
			}
			_ = os.Remove(link)
			if err := os.Symlink(target, link); err != nil {
				return fmt.Errorf("sandbox: link %s: %w", link, err)
			}
		}
		f.writable = appendUnique(f.writable, filepath.Clean(c.Private))
	}
	for _, c := range caches {
		if c.Host == "" {
			continue
		}
		for _, w := range f.writable {
			if within(c.Host, w) && !within(c.Private, c.Host) {
				f.protected = append(f.protected, existing(c.Host)...)
				break
			}
		}
	}
	return nil
}

// cacheEnv returns the settings that point sandboxed commands at the
// private caches (network on or off).
func (s *Sandbox) cacheEnv(network bool) []string {
	var env []string
	for _, c := range s.policy.Caches {
		if network && c.EnvNet != nil {
			env = append(env, c.EnvNet...)
		} else {
			env = append(env, c.Env...)
		}
		if c.ReadThrough && runtime.GOOS == "linux" && s.caps.Helper != "" {
			prog := shellQuote(s.caps.Helper)
			if s.caps.HelperArg != "" {
				prog += " " + shellQuote(s.caps.HelperArg)
			}
			env = append(env, "GOCACHEPROG="+prog+" "+helper.GoCacheProgArg+" "+
				shellQuote(filepath.Join(c.Private, "prog"))+" "+shellQuote(c.Host))
		}
	}
	return env
}

// shellQuote quotes s for cmd/go's command lines (GOCACHEPROG) when it
// holds a space or a quote.
func shellQuote(s string) string {
	if !strings.ContainsAny(s, " \t'\"") {
		return s
	}
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return `"` + s + `"`
}
