package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// socketDirs are the system folders of host daemons' sockets, also
// hidden when the network is off (the socket rule already keeps every
// host Unix socket out of reach, wherever it lies; see
// helper/seccomp_linux.go).
var socketDirs = [...]string{"/run", "/var/run", "/tmp/.X11-unix", "/tmp/.ICE-unix"}

// fixedPlan is the part of the helper's spec that does not change between
// commands: what is writable, protected and masked.
type fixedPlan struct {
	writable  []string
	protected []string
	maskDirs  []string
	maskFiles []string
	guards    []guard // never changed by a command (protect.go)
	// later are the guards that did not exist when the sandbox was made:
	// each command binds those that exist by then (protectedNow). Those
	// at the top of a git dir are kept by git dir, to be found in one
	// listing of it.
	later      []string
	laterInGit map[string][]string // git dir → names
	repos      []gitdir.Repo
	tree       *gitdir.Tree // the workspace's folders, watched for new git dirs
	// netOffMasks are the folders masked only when the network is off
	// (socketDirs and the user's runtime dir).
	netOffMasks []string
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
		if err := f.prepareCaches(p.Caches); err != nil {
			return f, err
		}
		if p.Workspace != "" {
			prepareWorkspace(p.Workspace)
		}
		for _, d := range slices.Clone(f.writable) {
			if !isPrivateCache(p.Caches, d) {
				f.protectProject(d)
			}
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
	f.netOffMasks = f.socketMasks(os.Getenv("XDG_RUNTIME_DIR"))
	f.findLater()
	return f, nil
}

// findLater lists the guards that do not exist yet (later, laterInGit).
func (f *fixedPlan) findLater() {
	f.laterInGit = map[string][]string{}
	gitDirs := map[string]bool{}
	for _, r := range f.repos {
		for _, g := range gitDirsOf(r) {
			gitDirs[g] = true
		}
	}
	for _, g := range f.guards {
		switch {
		case slices.Contains(f.protected, g.path):
		case gitDirs[filepath.Dir(g.path)]:
			f.laterInGit[filepath.Dir(g.path)] = append(f.laterInGit[filepath.Dir(g.path)], filepath.Base(g.path))
		default:
			f.later = append(f.later, g.path)
		}
	}
}

// protectedNow returns the paths a command must find read-only: those
// held since the sandbox was made and every guard that exists by now (a
// project file or git entry created since, by the user or by an edit
// they approved, is held like one that existed from the start).
func (f *fixedPlan) protectedNow() []string {
	out := f.protected
	for _, p := range f.later {
		if _, err := os.Lstat(p); err == nil {
			out = append(slices.Clip(out), p)
		}
	}
	for g, later := range f.laterInGit {
		now, ok := listing(g)
		for _, n := range later {
			if _, found := slices.BinarySearch(now, n); found || !ok {
				out = append(slices.Clip(out), filepath.Join(g, n)) // unreadable: the helper skips what is missing
			}
		}
	}
	return out
}

// prepareWorkspace creates an empty .aidex, so that the sandbox can hold
// it read-only: a command must not create project config that aidex
// would load later.
func prepareWorkspace(ws string) {
	_ = os.Mkdir(filepath.Join(ws, ".aidex"), 0o755)
}

// isPrivateCache reports whether d is one of the private caches: aidex's
// own folders (in its cache dir), which no agent opens as a project, so
// they get no project-file guards (each guard costs an lstat or two per
// command).
func isPrivateCache(caches []Cache, d string) bool {
	for _, c := range caches {
		if filepath.Clean(c.Private) == d {
			return true
		}
	}
	return false
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
		Protected:  sortedClone(s.fixed.protectedNow()),
		MaskDirs:   s.fixed.maskDirs,
		MaskFiles:  s.fixed.maskFiles,
	}
	if netOff && s.caps.Namespaces {
		sp.MaskDirs = append(slices.Clip(sp.MaskDirs), s.fixed.netOffMasks...)
	}
	if s.caps.Namespaces {
		sp.Writable = withAnchors(sp.Writable, sp.Protected, sp.MaskDirs, sp.MaskFiles)
	}
	return sp
}

// withAnchors returns writable followed by the anchors of the paths in
// lists (sorted: a folder before those inside it): every folder above
// such a path and strictly inside a writable folder. The helper binds
// each over itself (writable, as it was), which makes it a mount point in
// the command's namespace: a command cannot rename or replace it (EBUSY),
// so it cannot move a folder above a protected or masked path (a nested
// repository's) away and put another in its place, under which the next
// command's read-only bind would land while the real one sat elsewhere,
// writable.
func withAnchors(writable []string, lists ...[]string) []string {
	var anchors []string
	for _, list := range lists {
		for _, p := range list {
			for a := filepath.Dir(p); a != filepath.Dir(a); a = filepath.Dir(a) {
				if !slices.ContainsFunc(writable, func(w string) bool { return a != w && within(a, w) }) {
					break // not strictly inside a writable folder
				}
				if !slices.Contains(writable, a) && !slices.Contains(anchors, a) {
					anchors = append(anchors, a)
				}
			}
		}
	}
	if len(anchors) == 0 {
		return writable
	}
	slices.Sort(anchors)
	return append(slices.Clip(writable), anchors...)
}

// socketMasks returns the folders of host daemons' sockets (socketDirs
// and the runtime dir) that exist, are folders and hide no writable
// folder.
func (f *fixedPlan) socketMasks(runtimeDir string) []string {
	g := fixedPlan{writable: f.writable}
	for _, d := range socketDirs {
		if st, err := os.Lstat(d); err == nil && st.IsDir() {
			g.addMask(d)
		}
	}
	if runtimeDir != "" && filepath.IsAbs(runtimeDir) {
		g.addMask(runtimeDir)
	}
	return g.maskDirs
}

// defaultWritable is DefaultWritable.
func defaultWritable(_ string, getenv func(string) string) []string {
	t := getenv("TMPDIR")
	if t == "" {
		t = tempDefault()
	}
	if !filepath.IsAbs(t) || filepath.Clean(t) == "/" {
		return nil
	}
	return []string{filepath.Clean(t)}
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

// errHelperMissing is returned when no helper program can be found.
var errHelperMissing = errors.New("the sandbox helper was not found (install aidex-sandbox beside aidex: go install ./cmd/...)")

// sortedClone returns a sorted copy of list: a command's spec lists its
// paths in one order whatever order they were found in (a spare is
// handed commands of an equal spec).
func sortedClone(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return out
}
