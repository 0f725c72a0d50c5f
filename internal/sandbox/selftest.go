package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/gitdir"
	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// The classes of the escape suite, in the order SelfTest reports them.
// ClassControls holds what must keep working (a write inside the
// workspace); every other class is a way out of the sandbox that must
// hold.
const (
	ClassControls    = "controls"
	ClassOutside     = "writes outside the writable set"
	ClassCredentials = "credentials"
	ClassGitDir      = "the git dir"
	ClassProject     = "project config"
	ClassCaches      = "caches"
	ClassSockets     = "Unix sockets"
	ClassProcesses   = "leftover processes"
	ClassTerminals   = "terminals"
	ClassIPC         = "IPC"
	ClassNetwork     = "network"
)

// Classes returns the escape suite's classes in report order.
func Classes() []string {
	return []string{ClassControls, ClassOutside, ClassCredentials, ClassGitDir, ClassProject, ClassCaches,
		ClassSockets, ClassProcesses, ClassTerminals, ClassIPC, ClassNetwork}
}

// suite is one run of the escape suite: a throw-away workspace (a git
// repository), home, writable temp folder and outside folder under one
// temp dir, and a sandbox built over them as aidex builds the user's.
type suite struct {
	ctx     context.Context
	caps    Caps
	sb      *Sandbox
	root    string
	ws      string
	home    string
	tmp     string // the scratch writable temp folder
	outside string
	caches  []Cache
}

// attempt is one row of the escape suite: a try at one class of escape,
// run in the real sandbox. run returns whether the sandbox held, a note
// (what the command or the check after it said), and, when the attempt
// cannot run on this machine, why ("" when it ran).
type attempt struct {
	class, name string
	run         func(s *suite) (held bool, note, unavailable string)
}

// attempts is the escape suite: one table, one or more attempts per
// class. Platform-specific attempts (processes, terminals, IPC, Unix
// sockets) come from platformAttempts.
func attempts() []attempt {
	t := []attempt{
		{ClassControls, "write inside the workspace", func(s *suite) (bool, string, string) {
			return s.write(filepath.Join(s.ws, "inside"), true)
		}},
		{ClassControls, "write in the temp folder", func(s *suite) (bool, string, string) {
			return s.write(filepath.Join(s.tmp, "inside"), true)
		}},
		{ClassOutside, "write a folder outside the writable set", func(s *suite) (bool, string, string) {
			return s.write(filepath.Join(s.outside, "escaped"), false)
		}},
		{ClassOutside, "write in the home", func(s *suite) (bool, string, string) {
			return s.write(filepath.Join(s.home, ".bashrc"), false)
		}},
		{ClassCredentials, "read ~/.ssh/id_rsa", func(s *suite) (bool, string, string) {
			out, err := s.sh("cat " + filepath.Join(s.home, ".ssh", "id_rsa"))
			return !strings.Contains(out, "selftest-secret"), noteOf(out, err), ""
		}},
		{ClassGitDir, "append to .git/config", func(s *suite) (bool, string, string) {
			return s.unchanged("echo '[core] fsmonitor = evil' >> .git/config", ".git/config")
		}},
		{ClassGitDir, "create .git/hooks/pre-commit", func(s *suite) (bool, string, string) {
			return s.unchanged("printf '#!/bin/sh\\necho evil\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", ".git/hooks/pre-commit")
		}},
		{ClassGitDir, "create .git/info/attributes", func(s *suite) (bool, string, string) {
			return s.unchanged("echo '* filter=evil' > .git/info/attributes", ".git/info/attributes")
		}},
		{ClassGitDir, "rename .git and put another in its place", func(s *suite) (bool, string, string) {
			old := filepath.Join(s.ws, ".git-old")
			held, note, na := s.unchanged("mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit", ".git/config", ".git/hooks/pre-commit")
			if snapshotPath(old) != "" {
				held = false
				_ = os.RemoveAll(filepath.Join(s.ws, ".git")) // put the staged repository back for the next attempts
				_ = os.Rename(old, filepath.Join(s.ws, ".git"))
			}
			return held, note, na
		}},
		{ClassGitDir, "plant a nested repository", func(s *suite) (bool, string, string) {
			return s.unchanged("mkdir -p sub/.git/hooks && echo evil > sub/.git/hooks/pre-commit", "sub/.git")
		}},
		{ClassGitDir, "plant a .git pointer", func(s *suite) (bool, string, string) {
			return s.unchanged("mkdir -p deep && echo 'gitdir: "+s.outside+"' > deep/.git", "deep/.git")
		}},
		{ClassGitDir, "add a gitlink to the index", gitlinkAttempt},
		{ClassProject, "create .vscode/tasks.json", func(s *suite) (bool, string, string) {
			return s.unchanged("mkdir -p .vscode && echo '{}' > .vscode/tasks.json", ".vscode")
		}},
		{ClassProject, "create .mcp.json", func(s *suite) (bool, string, string) {
			return s.unchanged(`echo '{"mcpServers":{}}' > .mcp.json`, ".mcp.json")
		}},
		{ClassProject, "create .envrc", func(s *suite) (bool, string, string) {
			return s.unchanged("echo 'echo evil' > .envrc", ".envrc")
		}},
		{ClassProject, "write .claude/settings.json", func(s *suite) (bool, string, string) {
			return s.unchanged(`echo '{"hooks":{}}' > .claude/settings.json`, ".claude/settings.json")
		}},
		{ClassCaches, "write into a cache in the writable temp folder", func(s *suite) (bool, string, string) {
			return s.cacheWrite(s.caches[0])
		}},
		{ClassCaches, "write into your own caches", func(s *suite) (bool, string, string) {
			if len(s.caches) == 1 {
				return false, "", "none of the caches aidex keeps private (Go, npm, pip, cargo) exists here"
			}
			var names []string
			for _, c := range s.caches[1:] {
				held, note, _ := s.cacheWrite(c)
				if !held {
					return false, note, ""
				}
				names = append(names, c.Name)
			}
			return true, strings.Join(names, ", "), ""
		}},
		{ClassNetwork, "TCP to a host listener", netAttempt},
	}
	return append(t, platformAttempts()...)
}

// selfTest is SelfTest: it stages a scratch world, runs every attempt of
// the table in the sandbox and returns one Check per attempt.
func selfTest(ctx context.Context, p Policy, c Caps) []Check {
	return runSuite(ctx, p, c, WorkspaceWrite)
}

// runSuite runs the escape suite with the scratch sandbox in mode (Off
// in the test that proves each attempt detects an escape), its checks
// grouped by class in the order of Classes.
func runSuite(ctx context.Context, p Policy, c Caps, mode Mode) []Check {
	if !c.Available() {
		return []Check{{Class: ClassControls, Name: "sandbox available", Note: c.Reason}}
	}
	s, err := newSuite(ctx, p, c, mode)
	if s != nil {
		defer os.RemoveAll(s.root)
	}
	if err != nil {
		return []Check{{Class: ClassControls, Name: "stage the escape suite", Note: err.Error()}}
	}
	var checks []Check
	for _, a := range attempts() {
		if why := classNeeds(a.class, c); why != "" {
			checks = append(checks, Check{Class: a.class, Name: a.name, OK: true, Unavailable: why})
			continue
		}
		held, note, unavailable := a.run(s)
		checks = append(checks, Check{Class: a.class, Name: a.name, OK: held || unavailable != "", Note: note, Unavailable: unavailable})
	}
	order := Classes()
	slices.SortStableFunc(checks, func(a, b Check) int { return slices.Index(order, a.Class) - slices.Index(order, b.Class) })
	return checks
}

// newSuite stages the scratch world under a new temp dir (returned in
// s.root even on error, for the caller to remove) and builds the sandbox
// as the user's is built: the same hidden paths and the user's own
// caches (whose private copies are re-rooted into the scratch dir), the
// network off.
func newSuite(ctx context.Context, p Policy, c Caps, mode Mode) (*suite, error) {
	root, err := os.MkdirTemp("", "aidex-selftest-")
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	s := &suite{ctx: ctx, caps: c, root: root, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"),
		tmp: filepath.Join(root, "tmp"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{filepath.Join(s.ws, ".claude"), filepath.Join(s.home, ".ssh"), s.outside, s.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return s, err
		}
	}
	files := map[string]string{
		filepath.Join(s.home, ".ssh", "id_rsa"): "selftest-secret",
		filepath.Join(s.home, ".bashrc"):        "# rc\n",
		filepath.Join(s.ws, "a.txt"):            "a\n",
	}
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			return s, err
		}
	}
	if err := stageRepo(s.ws); err != nil {
		return s, err
	}
	// A cache of the user's that lies in a writable folder (the hardest
	// case: only the sandbox's rule keeps it read-only), then the user's
	// own caches that exist, their private copies in the scratch dir.
	scratchCache := filepath.Join(s.tmp, "user-cache")
	if err := os.MkdirAll(scratchCache, 0o755); err != nil {
		return s, err
	}
	s.caches = []Cache{{Name: "cache (staged)", Host: scratchCache, Private: filepath.Join(root, "caches", "staged")}}
	// A cache of the user's that lies in one of their writable folders
	// (GOCACHE under --add-dir) stays in a writable folder here: its
	// parent is made writable, unless that would make the scratch outside
	// folder writable too (the staged cache covers that arrangement).
	writable := []string{s.tmp}
	for _, ch := range p.Caches {
		if st, err := os.Stat(ch.Host); err != nil || !st.IsDir() {
			continue
		}
		s.caches = append(s.caches, rerootCache(ch, filepath.Join(root, "caches")))
		for _, w := range p.Writable {
			if parent := filepath.Dir(ch.Host); within(ch.Host, w) && !within(root, parent) {
				writable = appendUnique(writable, parent)
			}
		}
	}
	sb, err := New(Policy{Mode: mode, Workspace: s.ws, Writable: writable, Caches: s.caches,
		Home: s.home, Hidden: p.Hidden}, c)
	if err != nil {
		return s, err
	}
	s.sb = sb
	return s, nil
}

// stageRepo makes ws a git repository with git's own layout (HEAD,
// config, objects, refs, hooks, info), written directly so that the
// suite needs no git.
func stageRepo(ws string) error {
	g := filepath.Join(ws, ".git")
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "hooks", "info"} {
		if err := os.MkdirAll(filepath.Join(g, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	for name, body := range map[string]string{
		"HEAD":   "ref: refs/heads/main\n",
		"config": "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
	} {
		if err := os.WriteFile(filepath.Join(g, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rerootCache returns c with its private copy (and the settings that
// name it) moved under root, so that the suite never writes the user's
// real private caches.
func rerootCache(c Cache, root string) Cache {
	old := c.Private
	c.Private = filepath.Join(root, filepath.Base(old))
	re := func(env []string) []string {
		if env == nil {
			return nil
		}
		out := make([]string, len(env))
		for i, kv := range env {
			out[i] = strings.ReplaceAll(kv, old, c.Private)
		}
		return out
	}
	c.Env, c.EnvNet = re(c.Env), re(c.EnvNet)
	return c
}

// command returns args confined in the suite's sandbox, run from the
// scratch workspace with the scratch home.
func (s *suite) command(args ...string) (*exec.Cmd, *bytes.Buffer, error) {
	cmd := exec.CommandContext(s.ctx, args[0], args[1:]...)
	cmd.Dir = s.ws
	cmd.Env = append(os.Environ(), "HOME="+s.home, "TMPDIR="+s.tmp, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := s.sb.Confine(cmd, Options{}); err != nil {
		return nil, nil, err
	}
	return cmd, &out, nil
}

// run runs args in the sandbox as aidex runs a command: Begin, the
// command, End (the check after the command). It returns the output, the
// exit error and what the check reverted.
func (s *suite) run(args ...string) (string, error, []string) {
	snap := s.sb.Begin()
	cmd, out, err := s.command(args...)
	if err != nil {
		return "", err, snap.End()
	}
	err = cmd.Run()
	return out.String(), err, snap.End()
}

// sh runs script under /bin/sh -c in the sandbox (see run).
func (s *suite) sh(script string) (string, error) {
	out, err, _ := s.run("/bin/sh", "-c", script)
	return out, err
}

// helperArgs returns the argv that runs the helper program itself.
func (s *suite) helperArgs(args ...string) []string {
	a := []string{s.caps.Helper}
	if s.caps.HelperArg != "" {
		a = append(a, s.caps.HelperArg)
	}
	return append(a, args...)
}

// write has the sandbox write path and reports whether the outcome is
// the wanted one (written for a control, not written for an escape); a
// file an escape wrote is removed.
func (s *suite) write(path string, want bool) (bool, string, string) {
	before := snapshotPath(path)
	out, err := s.sh("echo x >> '" + path + "'")
	after := snapshotPath(path)
	if !want && after != before && before == "" {
		_ = os.Remove(path)
	}
	return (after != before) == want, noteOf(out, err), ""
}

// unchanged runs script in the sandbox (with the check after it) and
// reports whether every path (relative to the workspace) is as before.
// A path the escape created is removed and a file it changed restored,
// so that the next attempts start from the staged state.
func (s *suite) unchanged(script string, paths ...string) (bool, string, string) {
	before := make([]string, len(paths))
	content := make([][]byte, len(paths))
	for i, p := range paths {
		before[i] = snapshotPath(filepath.Join(s.ws, p))
		content[i], _ = os.ReadFile(filepath.Join(s.ws, p))
	}
	out, err, reverted := s.run("/bin/sh", "-c", script)
	held := true
	for i, p := range paths {
		abs := filepath.Join(s.ws, p)
		if snapshotPath(abs) == before[i] {
			continue
		}
		held = false
		switch {
		case before[i] == "":
			_ = os.RemoveAll(abs)
		case content[i] != nil:
			_ = os.WriteFile(abs, content[i], 0o644)
		}
	}
	note := noteOf(out, err)
	if len(reverted) > 0 {
		note = "reverted after the command: " + reverted[0]
	}
	return held, note, ""
}

// snapshotPath returns what p is: "" when absent, else its kind, size
// and content (small files) or names (folders).
func snapshotPath(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return "dir:" + strings.Join(names(p), "/")
	}
	b, _ := os.ReadFile(p)
	return fi.Mode().String() + ":" + string(b)
}

// cacheWrite has the sandbox create a file in c's host cache; a file that
// got through is removed at once.
func (s *suite) cacheWrite(c Cache) (bool, string, string) {
	p := filepath.Join(c.Host, ".aidex-escape-"+randomHex())
	out, err := s.sh("echo planted > '" + p + "'")
	_, statErr := os.Lstat(p)
	if statErr == nil {
		_ = os.Remove(p)
	}
	if statErr == nil {
		return false, c.Name + " (" + c.Host + "): " + noteOf(out, err), ""
	}
	return true, "", ""
}

// gitlinkAttempt has git in the sandbox add a gitlink (a submodule
// entry, which makes the user's git enter a nested repository) to the
// index; the check after the command must remove it.
func gitlinkAttempt(s *suite) (bool, string, string) {
	if _, err := exec.LookPath("git"); err != nil {
		return false, "", "git is not installed"
	}
	r := gitdir.Find(s.ws)
	before, _ := r.Gitlinks()
	out, err, reverted := s.run("git", "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",vendor/lib")
	after, _ := r.Gitlinks()
	note := noteOf(out, err)
	if len(reverted) > 0 {
		note = "reverted after the command: " + reverted[0]
	}
	return len(after) == len(before), note, ""
}

// netAttempt opens a TCP listener here and has the helper dial it from
// inside the sandbox: with the network off the dial must fail.
func netAttempt(s *suite) (bool, string, string) {
	var lc net.ListenConfig
	ln, err := lc.Listen(s.ctx, "tcp4", "127.0.0.1:0")
	if err != nil {
		return false, "", "cannot listen on 127.0.0.1: " + err.Error()
	}
	defer ln.Close()
	out, err, _ := s.run(s.helperArgs(helper.ConnectArg, ln.Addr().String())...)
	return err != nil && !strings.Contains(out, helper.Prefix+"setup"), noteOf(out, err), ""
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func noteOf(out string, err error) string {
	out = strings.TrimSpace(out)
	if err != nil && out == "" {
		return err.Error()
	}
	if i := strings.IndexByte(out, '\n'); i >= 0 {
		out = out[:i]
	}
	return out
}

// ClassResult is one class's outcome in a SelfTest.
type ClassResult struct {
	// Class is one of Classes.
	Class string
	// State is "held" (every attempt held), "broken" (one did not), or
	// "not available here" (no attempt could run on this machine).
	State string
	// Note says why a class is not available, or names the first attempt
	// that broke.
	Note string
}

// Summarize folds checks into one result per class that has checks, in
// the order of Classes (unknown classes last, in order of appearance).
func Summarize(checks []Check) []ClassResult {
	order := Classes()
	for _, c := range checks {
		if !slices.Contains(order, c.Class) {
			order = append(order, c.Class)
		}
	}
	var out []ClassResult
	for _, cl := range order {
		var ran, n int
		r := ClassResult{Class: cl, State: "held"}
		for _, c := range checks {
			if c.Class != cl {
				continue
			}
			n++
			switch {
			case c.Unavailable != "":
				if r.Note == "" && r.State == "held" {
					r.Note = c.Unavailable
				}
			case !c.OK:
				ran++
				if r.State != "broken" {
					r.State, r.Note = "broken", c.Name
				}
			default:
				ran++
			}
		}
		if n == 0 {
			continue
		}
		if ran == 0 {
			r.State = "not available here"
		} else if r.State == "held" {
			r.Note = ""
		}
		out = append(out, r)
	}
	return out
}
