package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/gitdir"
	"github.com/zelvior/aidex/internal/protect"
	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// credentialPaths are the paths under the home that hold credentials and
// are masked with empty mounts (slash-separated, relative to the home).
var credentialPaths = [...]string{
	".ssh", ".aws", ".config/gcloud", ".azure", ".kube", ".docker/config.json",
	".netrc", ".git-credentials", ".gnupg", ".pypirc", ".npmrc",
	".config/gh", ".config/hub", ".cargo/credentials", ".cargo/credentials.toml",
	".password-store", ".local/share/keyrings", ".vault-token",
	".terraform.d/credentials.tfrc.json",
}

// socketDirs are the folders of host Unix sockets masked when the network
// is off; socketDirPrefixes are the names of socket folders in the temp
// dir (tmux, ssh-agent, X11, VS Code...).
var (
	socketDirs        = [...]string{"/run", "/var/run", "/tmp/.X11-unix", "/tmp/.ICE-unix"}
	socketDirPrefixes = [...]string{"tmux-", "ssh-", ".X11-unix", ".ICE-unix", ".XIM-unix", ".font-unix",
		"vscode-", "dbus-", "pulse-", "emacs", "screen", "gpg-", "keyring-", "mcp-", "aidex-web"}
)

// fixedPlan is the part of the helper's spec that does not change between
// commands: what is writable, protected and masked.
type fixedPlan struct {
	writable  []string
	protected []string
	maskDirs  []string
	maskFiles []string
	tempDirs  []string // scanned for host sockets when the network is off
	guards    []guard  // never changed by a command (protect.go)
	repos     []gitdir.Repo
	tree      *gitdir.Tree // the workspace's folders, watched for new git dirs
}

// newFixedPlan checks p's paths, creates the missing writable folders and
// the workspace's .aidex and .git/hooks, and lists what exists to protect
// and mask.
func newFixedPlan(p Policy) (fixedPlan, error) {
	var f fixedPlan
	all := append([]string{p.Workspace, p.Home}, p.Writable...)
	for _, d := range append(all, p.Hidden...) {
		if d != "" && !filepath.IsAbs(d) {
			return f, fmt.Errorf("sandbox: path %q is relative: give an absolute path", d)
		}
	}
	if p.Mode == WorkspaceWrite {
		for _, d := range append([]string{p.Workspace}, p.Writable...) {
			if d == "" {
				continue
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				return f, fmt.Errorf("sandbox: writable folder %s: %w", d, err)
			}
			f.writable = appendUnique(f.writable, filepath.Clean(d))
		}
		if p.Workspace != "" {
			prepareWorkspace(p.Workspace)
		}
		for _, d := range slices.Clone(f.writable) {
			f.protectProject(d)
			f.addRepo(gitdir.Find(d))
		}
		if p.Workspace != "" {
			f.tree = gitdir.ScanTree(p.Workspace, maxTreeDirs)
			for _, n := range f.tree.Nested() {
				f.addRepo(gitdir.Find(n))
			}
		}
	}
	for _, c := range credentialPaths {
		if p.Home != "" {
			f.addMask(filepath.Join(p.Home, filepath.FromSlash(c)))
		}
	}
	for _, h := range p.Hidden {
		f.addMask(h)
	}
	f.tempDirs = appendUnique([]string{"/tmp"}, filepath.Clean(os.TempDir()))
	return f, nil
}

// prepareWorkspace creates an empty .aidex, so that the sandbox can hold
// it read-only: a command must not create project config that aidex
// would load later.
func prepareWorkspace(ws string) {
	_ = os.Mkdir(filepath.Join(ws, ".aidex"), 0o755)
}

// protectProject guards, in the writable folder d, every project file
// of protect.Project but .git (addRepo protects the repository): held
// read-only when it exists, removed after a command that created it.
func (f *fixedPlan) protectProject(d string) {
	for _, p := range protect.Project {
		if p.Name == ".git" {
			continue
		}
		f.addGuard(guard{path: filepath.Join(d, p.Name), why: p.Why, dir: p.Dir})
	}
}

// addMask masks p with an empty folder or file when it exists and is not
// a writable folder or one of their parents (masking those would hide the
// workspace).
func (f *fixedPlan) addMask(p string) {
	p = filepath.Clean(p)
	for _, w := range f.writable {
		if within(w, p) {
			return
		}
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
	case st.IsDir():
		f.maskDirs = appendUnique(f.maskDirs, p)
	default:
		f.maskFiles = appendUnique(f.maskFiles, p)
	}
}

// spec is the helper's spec for one command (without its path and args).
func (s *Sandbox) spec(o Options) helper.Spec {
	netOff := !s.policy.Network && !o.Network
	sp := helper.Spec{
		Namespaces: s.caps.Namespaces,
		Loopback:   s.caps.Namespaces && netOff,
		NetOff:     netOff,
		Writable:   s.fixed.writable,
		Protected:  s.fixed.protected,
		MaskDirs:   s.fixed.maskDirs,
		MaskFiles:  s.fixed.maskFiles,
	}
	if netOff && s.caps.Namespaces {
		f := s.fixed
		f.maskDirs = slices.Clone(f.maskDirs)
		f.maskFiles = slices.Clone(f.maskFiles)
		f.addSocketMasks(os.Getenv("XDG_RUNTIME_DIR"), &s.sockets)
		sp.MaskDirs, sp.MaskFiles = f.maskDirs, f.maskFiles
	}
	return sp
}

// addSocketMasks masks the folders of host Unix sockets (/run, the
// runtime dir, X11) and the sockets and socket folders at the top of the
// temp dirs, so that a command with the network off cannot reach a host
// daemon (tmux, ssh-agent, docker, D-Bus) through a socket path. Abstract
// sockets are already cut off by the network namespace.
func (f *fixedPlan) addSocketMasks(runtimeDir string, cache *socketCache) {
	for _, d := range socketDirs {
		if st, err := os.Lstat(d); err == nil && st.IsDir() {
			f.addMask(d)
		}
	}
	if runtimeDir != "" && filepath.IsAbs(runtimeDir) {
		f.addMask(runtimeDir)
	}
	for _, p := range cache.find(f.tempDirs) {
		f.addMask(p)
	}
}

// socketCache remembers the sockets and socket folders at the top of the
// temp dirs until one of the dirs changes.
type socketCache struct {
	mu     sync.Mutex
	mtimes []time.Time
	found  []string
}

// find returns the sockets and socket folders at the top of dirs.
func (c *socketCache) find(dirs []string) []string {
	mtimes := make([]time.Time, len(dirs))
	for i, d := range dirs {
		if st, err := os.Stat(d); err == nil {
			mtimes[i] = st.ModTime()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mtimes != nil && slices.Equal(c.mtimes, mtimes) {
		return c.found
	}
	var found []string
	for _, t := range dirs {
		d, err := os.Open(t)
		if err != nil {
			continue
		}
		entries, _ := d.ReadDir(-1)
		d.Close()
		for _, e := range entries {
			if e.Type()&os.ModeSocket != 0 || e.IsDir() && hasAnyPrefix(e.Name(), socketDirPrefixes[:]) {
				found = append(found, filepath.Join(t, e.Name()))
			}
		}
	}
	c.mtimes, c.found = mtimes, found
	return found
}

// defaultWritable is DefaultWritable: the temp dir, then each toolchain's
// caches when the cache exists or the toolchain is on getenv("PATH") (the
// sandbox creates a missing one, as the tool's first run would): a machine
// without cargo gets no ~/.cargo.
func defaultWritable(home string, getenv func(string) string) []string {
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	var out []string
	add := func(p string, tools ...string) {
		if p == "" || !filepath.IsAbs(p) || p == "/" {
			return
		}
		if _, err := os.Stat(p); err == nil || len(tools) == 0 || onPath(getenv("PATH"), tools...) {
			out = appendUnique(out, filepath.Clean(p))
		}
	}
	add(or(getenv("TMPDIR"), tempDefault()))
	cache := or(getenv("XDG_CACHE_HOME"), userCacheDefault(home))
	if gc := getenv("GOCACHE"); gc != "off" {
		add(or(gc, filepath.Join(cache, "go-build")), "go")
	}
	gopath := or(strings.Split(getenv("GOPATH"), string(os.PathListSeparator))[0], filepath.Join(home, "go"))
	add(or(getenv("GOMODCACHE"), filepath.Join(gopath, "pkg", "mod")), "go")
	add(or(getenv("npm_config_cache"), filepath.Join(home, ".npm")), "npm", "npx")
	add(or(getenv("PIP_CACHE_DIR"), filepath.Join(cache, "pip")), "pip", "pip3")
	cargo := or(getenv("CARGO_HOME"), filepath.Join(home, ".cargo"))
	add(filepath.Join(cargo, "registry"), "cargo")
	add(filepath.Join(cargo, "git"), "cargo")
	return out
}

// onPath reports whether one of tools is an executable file in one of the
// folders of the PATH list path.
func onPath(path string, tools ...string) bool {
	for _, dir := range filepath.SplitList(path) {
		for _, t := range tools {
			if st, err := os.Stat(filepath.Join(dir, t)); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
				return true
			}
		}
	}
	return false
}

func existing(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// within reports whether p is dir or beneath it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func appendUnique(list []string, p string) []string {
	if slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// errHelperMissing is returned when no helper program can be found.
var errHelperMissing = errors.New("the sandbox helper was not found (install aidex-sandbox beside aidex: go install ./cmd/...)")
