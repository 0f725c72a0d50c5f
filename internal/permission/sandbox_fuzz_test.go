package permission_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/attacktest"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// The differential test: every command the policy allows in plan mode
// (that is, judges read-only and confined) is run for real inside a
// throwaway sandbox (bubblewrap: read-only root, the workspace read-only,
// new PID, network, IPC and UTS namespaces, --die-with-parent, a timeout
// and a process limit) under strace, and must neither attempt a write nor
// a network connection. The analysis and reality are compared, not the
// analysis with itself.

// sandbox runs commands in bubblewrap under strace.
type sandbox struct {
	bwrap, strace string
	ws, out       string
}

// newSandbox returns the sandbox, or skips (fails under CI) when
// bubblewrap, strace or user namespaces are not available.
func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	bw, err1 := exec.LookPath("bwrap")
	st, err2 := exec.LookPath("strace")
	if err1 != nil || err2 != nil {
		unavailable(t, "bwrap and strace are needed (apt-get install bubblewrap strace; .ci/run does)")
	}
	dir := t.TempDir()
	s := &sandbox{bwrap: bw, strace: st, ws: filepath.Join(dir, "ws"), out: filepath.Join(dir, "out")}
	seedWorkspace(t, s.ws)
	if err := os.Mkdir(s.out, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(context.Background(), "true"); err != nil {
		unavailable(t, "bubblewrap cannot start a sandbox here: "+err.Error())
	}
	return s
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: the sandbox test must run)", why)
	}
	t.Skip(why)
}

// seedWorkspace makes a small workspace: files, a git repository with a
// commit, a subdirectory.
func seedWorkspace(t testing.TB, ws string) {
	t.Helper()
	for name, content := range map[string]string{
		"a.txt": "alpha\nbeta\n", "src/main.go": "package main\n\nfunc main() {}\n",
		"README.md": "# demo\n", "data.json": `{"k": [1, 2]}` + "\n",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("sh", "-c", "git init -q && git -c user.email=t@t -c user.name=t add -A && git -c user.email=t@t -c user.name=t commit -qm init")
	git.Dir = ws
	if out, err := git.CombinedOutput(); err != nil {
		t.Logf("no git repository in the sandbox workspace: %v %s", err, out)
	}
}

// run runs command in the sandbox and returns strace's log.
func (s *sandbox) run(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	trace := filepath.Join(s.out, "trace")
	_ = os.Remove(trace)
	args := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--ro-bind", s.ws, s.ws, "--bind", s.out, s.out,
		"--unshare-all", "--die-with-parent", "--new-session", "--chdir", s.ws, "--clearenv"}
	// The environment aidex gives the commands it runs.
	for _, kv := range proc.ChildEnviron(os.Environ(), nil, proc.EnvPolicy{}) {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			args = append(args, "--setenv", name, value)
		}
	}
	args = append(args, "--setenv", "HOME", s.ws, "--unsetenv", "OLDPWD", "--unsetenv", "CDPATH",
		"--", "sh", "-c", `ulimit -u 256 2>/dev/null; exec "$0" -f -qq -e trace=%file,%network -o "$1" bash -c "$2"`,
		s.strace, trace, command)
	cmd := exec.CommandContext(ctx, s.bwrap, args...)
	cmd.Stdin = strings.NewReader("")
	_ = cmd.Run() // the command's own status does not matter, only what it tried
	data, err := os.ReadFile(trace)
	return string(data), err
}

// The system calls that change the file system, and the opens that could.
var (
	mutatingCall = regexp.MustCompile(`\b(unlink|unlinkat|rename|renameat2?|mkdir|mkdirat|rmdir|symlink|symlinkat|link|linkat|chmod|fchmodat|chown|fchownat|lchown|truncate|utimensat|mknod|mknodat|mount|setxattr|lsetxattr|removexattr)\(`)
	writeOpen    = regexp.MustCompile(`\bopen(at|at2)?\([^"]*"([^"]*)"[^)]*O_(WRONLY|RDWR|CREAT|TRUNC|APPEND)`)
	connectCall  = regexp.MustCompile(`\bconnect\(\d+, \{sa_family=(AF_\w+)(.*)`)
	harmlessSink = map[string]bool{"/dev/null": true, "/dev/tty": true, "/dev/stdout": true, "/dev/stderr": true}
)

// violations lists what a trace shows the command tried that a read-only
// command must not: writes and network connections.
func violations(trace, traceFile string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(trace))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case mutatingCall.MatchString(line):
			out = append(out, line)
		case writeOpen.MatchString(line):
			if m := writeOpen.FindStringSubmatch(line); !harmlessSink[m[2]] && m[2] != traceFile && !strings.HasPrefix(m[2], "/proc/self/fd/") {
				out = append(out, line)
			}
		case connectCall.MatchString(line):
			if !strings.Contains(line, "nscd") {
				out = append(out, line)
			}
		}
	}
	return out
}

// planPolicy is the plan-mode policy over the sandbox's workspace.
func planPolicy(t testing.TB, ws string) *permission.Policy {
	t.Helper()
	w, err := permission.NewWorkspace(ws, permission.WorkspaceOptions{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, err := permission.NewPolicy(permission.PolicyConfig{Mode: permission.ModePlan, Workspace: w})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sandboxSeeds are the fuzz seeds: everyday read-only commands, the
// shared shell attack cases, and variations of both through wrappers,
// "--", long-option prefixes, nested substitutions and heredocs.
func sandboxSeeds(t testing.TB) []string {
	everyday := []string{"git status", "git log --oneline -5", "git diff", "git show HEAD --stat", "ls -la",
		"cat a.txt", "head -n 1 a.txt", "tail -n 1 a.txt", "wc -l a.txt", "grep -rn alpha .", "rg alpha",
		"find . -name '*.go' -print", "sed -n '1,2p' a.txt", "jq . data.json", "echo $((1+2))", "pwd", "date",
		"sort a.txt", "uniq a.txt", "du -sh .", "stat a.txt", "file a.txt", "tree", "env", "printenv HOME"}
	attacks := []string{"find -- . -delete", "find -- . -fprint out.txt", "a[$(touch p)]=1", "(( x[$(touch p)] ))",
		"[[ x[$(touch p)] -eq 1 ]]", "echo ${a[$(touch p)]}", "bash <<EOF\ntouch p\nEOF", "sh <<< 'touch p'",
		"bash <(echo touch p)", "xargs sh -c 'touch p' <<< x", "find . -exec sh -c 'touch p' \\;", "trap 'touch p' EXIT",
		"mapfile -C 'touch p' -c 1 < a.txt", "tar --to-comm='touch p' -xf x.tar", "env -C /tmp touch p",
		"git config core.fsmonitor 'touch p'", "GIT_DIR=/tmp git log", "PAGER='touch p' git log", "cd - && ls",
		"sed 'e touch p' a.txt", "sed -n 's/a/b/w out' a.txt", "sort -o out a.txt", "tee out < a.txt", "curl -s http://127.0.0.1:1/"}
	for _, c := range attacktest.Load(t) {
		if c.Surface == "shell" {
			if cmd, ok := c.Input["command"].(string); ok {
				attacks = append(attacks, cmd)
			}
		}
	}
	var out []string
	for _, c := range append(everyday, attacks...) {
		out = append(out, c, "env "+c, "timeout 5 "+c, "nice "+c, "echo $("+c+")", "x=$("+c+"); echo \"$x\"",
			"bash -c '"+strings.ReplaceAll(c, "'", `'\''`)+"'")
	}
	return out
}

// FuzzPlanAllowsOnlyReadOnly runs every command plan mode allows in the
// sandbox and fails when it attempts a write or a connection.
func FuzzPlanAllowsOnlyReadOnly(f *testing.F) {
	s := newSandbox(f)
	pol := planPolicy(f, s.ws)
	for _, c := range sandboxSeeds(f) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, command string) {
		if len(command) > 4096 || strings.ContainsRune(command, 0) {
			return
		}
		v := pol.Check(permission.Request{Tool: "run_command", Kind: kind.Exec, Command: command})
		if v.Decision != permission.Allow {
			return
		}
		trace, err := s.run(context.Background(), command)
		if err != nil {
			t.Fatalf("%q: no trace: %v", command, err)
		}
		if bad := violations(trace, filepath.Join(s.out, "trace")); len(bad) > 0 {
			t.Fatalf("plan mode allows %q (%s), but in the sandbox it tried:\n%s", command, v.Reason, strings.Join(bad, "\n"))
		}
	})
}

// TestViolationsDetected proves the detector sees writes and connections
// (a test of the test: a detector that sees nothing would pass any
// command).
func TestViolationsDetected(t *testing.T) {
	s := newSandbox(t)
	for _, c := range []string{"touch p", "echo x > out", "mkdir d", "rm a.txt", "mv a.txt b.txt",
		"exec 3<>/dev/tcp/127.0.0.1/9", "ln -s a.txt l"} {
		trace, err := s.run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if len(violations(trace, filepath.Join(s.out, "trace"))) == 0 {
			t.Errorf("%q: no violation seen in\n%s", c, trace)
		}
	}
	for _, c := range []string{"cat a.txt", "ls -la", "git status", "echo hi > /dev/null"} {
		trace, err := s.run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if bad := violations(trace, filepath.Join(s.out, "trace")); len(bad) > 0 {
			t.Errorf("%q: false violations: %v", c, bad)
		}
	}
}
