//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
)

// execFixture is a workspace with the command, background, git and info
// tools registered.
type execFixture struct {
	t       *testing.T
	root    string
	outside string
	env     *Env
	reg     *Registry
	procs   *ProcessTable
}

func newExecFixture(t *testing.T, opts ExecOptions) *execFixture {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the command tool tests use POSIX shell commands")
	}
	parent, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root := filepath.Join(parent, "ws")
	outside := filepath.Join(parent, "outside")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	ws, err := permission.NewWorkspace(root, permission.WorkspaceOptions{})
	require.NoError(t, err)
	if opts.Procs == nil {
		opts.Procs = NewProcessTable(0)
	}
	t.Cleanup(func() { _ = opts.Procs.Close() })
	reg := NewRegistry()
	require.NoError(t, reg.Register(ExecTools(opts)...))
	require.NoError(t, reg.Register(GitTools()...))
	require.NoError(t, reg.Register(InfoTools()...))
	return &execFixture{t: t, root: ws.Root(), outside: outside, env: NewEnv(ws), reg: reg, procs: opts.Procs}
}

func (f *execFixture) callCtx(ctx context.Context, name string, args any) Result {
	f.t.Helper()
	b, err := json.Marshal(args)
	require.NoError(f.t, err)
	return f.reg.Call(ctx, f.env, name, b)
}

func (f *execFixture) call(name string, args any) Result {
	f.t.Helper()
	return f.callCtx(context.Background(), name, args)
}

func (f *execFixture) ok(name string, args any) Result {
	f.t.Helper()
	r := f.call(name, args)
	require.True(f.t, r.OK, "%s failed: %s (%s)\n%s", name, r.Error, r.Category, r.Output)
	return r
}

func (f *execFixture) fail(name string, args any, cat Category) Result {
	f.t.Helper()
	r := f.call(name, args)
	require.False(f.t, r.OK, "%s should fail, got output %q", name, r.Output)
	require.Equal(f.t, cat, r.Category, "error: %s\n%s", r.Error, r.Output)
	require.NotEmpty(f.t, r.Error)
	return r
}

func (f *execFixture) write(rel, content string) string {
	f.t.Helper()
	p := filepath.Join(f.root, filepath.FromSlash(rel))
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(f.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// processGone reports whether pid no longer runs (a zombie counts as gone:
// containers may lack an init that reaps orphans).
// jobj is a JSON object of tool arguments.
type jobj = map[string]any

func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return runtime.GOOS == "linux"
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	require.Eventually(t, func() bool { return processGone(pid) }, 5*time.Second, 20*time.Millisecond,
		"process %d still running", pid)
}

func firstInt(t *testing.T, s string) int {
	t.Helper()
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	n, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, "output %q", s)
	return n
}

func TestRunCommandBasics(t *testing.T) {
	f := newExecFixture(t, ExecOptions{})
	f.write("sub/x.txt", "x")
	cases := []struct {
		name     string
		args     jobj
		ok       bool
		code     int
		cat      Category
		contains []string
	}{
		{"echo", jobj{"command": "echo hello"}, true, 0, "", []string{"hello\n", "[exit code: 0]"}},
		{"combined in order", jobj{"command": "echo a; echo b >&2; echo c"}, true, 0, "", []string{"a\nb\nc\n"}},
		{"non-zero exit", jobj{"command": "echo oops; exit 3"}, false, 3, CategoryExecution, []string{"oops", "[exit code: 3]"}},
		{"stdin closed", jobj{"command": "cat; echo after", "timeout": 10}, true, 0, "", []string{"after"}},
		{"cwd", jobj{"command": "pwd; ls", "cwd": "sub"}, true, 0, "", []string{"/ws/sub\n", "x.txt"}},
		{"no color env", jobj{"command": "echo $NO_COLOR $GIT_TERMINAL_PROMPT $PAGER $GIT_PAGER"}, true, 0, "", []string{"1 0 cat cat"}},
		{"clamped timeout", jobj{"command": "true", "timeout": 99999999}, true, 0, "", []string{"clamped to the maximum 600 s"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.call("run_command", tc.args)
			require.Equal(t, tc.ok, r.OK, "error %s output %s", r.Error, r.Output)
			require.NotNil(t, r.Meta)
			require.NotNil(t, r.Meta.ExitCode)
			require.Equal(t, tc.code, *r.Meta.ExitCode)
			require.Equal(t, tc.cat, r.Category)
			for _, c := range tc.contains {
				require.Contains(t, r.Output, c)
			}
		})
	}
}

func TestRunCommandRefusals(t *testing.T) {
	f := newExecFixture(t, ExecOptions{})
	f.fail("run_command", jobj{"command": "touch x", "cwd": "../outside"}, CategorySecurity)
	f.fail("run_command", jobj{"command": "touch x", "cwd": "/"}, CategorySecurity)
	f.fail("run_command", jobj{"command": "touch x", "cwd": f.outside}, CategorySecurity)
	f.fail("run_command", jobj{"command": "  "}, CategoryValidation)
	f.fail("run_command", jobj{"command": "true", "timeout": -1}, CategoryValidation)
	f.fail("run_command", jobj{"command": "true", "cwd": "missing"}, CategoryNotFound)
	_, err := os.Stat(filepath.Join(f.outside, "x"))
	require.ErrorIs(t, err, os.ErrNotExist)
	// The bash/shell aliases reach run_command.
	r := f.ok("bash", jobj{"command": "echo via-alias"})
	require.Contains(t, r.Output, "via-alias")
}

func TestRunCommandOutputCap(t *testing.T) {
	f := newExecFixture(t, ExecOptions{MaxOutputChars: 1000})
	r := f.ok("run_command", jobj{"command": "seq 1 100000"})
	require.True(t, r.Meta.Truncated)
	total := 0
	for i := 1; i <= 100000; i++ {
		total += len(strconv.Itoa(i)) + 1
	}
	require.True(t, strings.HasPrefix(r.Output, "1\n2\n3\n"), r.Output[:20])
	require.Contains(t, r.Output, fmt.Sprintf("[... %d characters cut ...]", total-1000))
	require.True(t, strings.HasSuffix(r.Output, "99999\n100000\n[exit code: 0]"), r.Output[len(r.Output)-40:])
	require.Less(t, len(r.Output), 1200)
}

func TestRunCommandYesIsBounded(t *testing.T) {
	t.Parallel()
	f := newExecFixture(t, ExecOptions{})
	r := f.call("run_command", jobj{"command": "yes", "timeout": 1})
	require.False(t, r.OK)
	require.Equal(t, CategoryExecution, r.Category)
	require.Contains(t, r.Error, "timed out")
	require.True(t, r.Meta.Truncated)
	require.Less(t, len(r.Output), DefaultMaxOutputChars+300)
	require.Contains(t, r.Output, "characters cut")
}

func TestRunCommandTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	f := newExecFixture(t, ExecOptions{})
	pidFile := filepath.Join(f.root, "child.pid")
	r := f.call("run_command", jobj{"command": "sleep 60 & echo $! > child.pid; echo started; wait", "timeout": 1})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "timed out")
	require.Contains(t, r.Output, "started")
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	waitGone(t, firstInt(t, string(data)))
}

func TestRunCommandTimeoutEscalatesToSIGKILL(t *testing.T) {
	t.Parallel()
	f := newExecFixture(t, ExecOptions{})
	r := f.call("run_command", jobj{"command": "trap '' TERM; echo $$; while :; do sleep 0.1; done", "timeout": 1})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "timed out")
	waitGone(t, firstInt(t, r.Output))
}

func TestRunCommandCancel(t *testing.T) {
	t.Parallel()
	f := newExecFixture(t, ExecOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	r := f.callCtx(ctx, "run_command", jobj{"command": "echo $$; sleep 60", "timeout": 60})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "cancelled")
	require.Less(t, time.Since(start), 10*time.Second)
	waitGone(t, firstInt(t, r.Output))
}

func TestRunCommandKillsLeftoverChildren(t *testing.T) {
	f := newExecFixture(t, ExecOptions{})
	start := time.Now()
	r := f.ok("run_command", jobj{"command": "sleep 60 & echo $!", "timeout": 30})
	require.Less(t, time.Since(start), 10*time.Second, "a background child must not keep the call open")
	waitGone(t, firstInt(t, r.Output))
}

func TestRunCommandEnvScrubbed(t *testing.T) {
	base := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/tmp/home", "LANG=C.UTF-8",
		"OPENAI_API_KEY=sk-fake-openai-000000000000", "ANTHROPIC_BASE_URL=https://x",
		"GITHUB_TOKEN=ghp_fake", "AWS_SECRET_ACCESS_KEY=fake", "AWS_ACCESS_KEY_ID=AKIAFAKE",
		"DB_PASSWORD=hunter2", "INNOCENT=AKIAIOSFODNN7EXAMPLE12", "MY_SETTING=visible", "NO_COLOR=0",
		"KEEP_TOKEN=kept",
	}
	f := newExecFixture(t, ExecOptions{Environ: base, KeepEnv: []string{"keep_token"}})
	r := f.ok("run_command", jobj{"command": "env"})
	for _, want := range []string{"MY_SETTING=visible", "HOME=/tmp/home", "LANG=C.UTF-8", "NO_COLOR=1", "KEEP_TOKEN=kept"} {
		require.Contains(t, r.Output, want)
	}
	for _, secret := range []string{"OPENAI_API_KEY", "sk-fake", "ANTHROPIC_BASE_URL", "GITHUB_TOKEN", "ghp_fake",
		"AWS_SECRET_ACCESS_KEY", "AKIAFAKE", "hunter2", "AKIAIOSFODNN7EXAMPLE12", "NO_COLOR=0"} {
		require.NotContains(t, r.Output, secret)
	}
}

func TestSecretEnvName(t *testing.T) {
	for name, secret := range map[string]bool{
		"OPENAI_API_KEY": true, "openai_api_key": true, "ANTHROPIC_AUTH_TOKEN": true, "GITHUB_TOKEN": true,
		"GH_TOKEN": true, "NPM_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_ACCESS_KEY_ID": true,
		"AWS_SESSION_TOKEN": true, "DB_PASSWORD": true, "MYAPIKEY": true, "STRIPE_SECRET": true,
		"GOOGLE_APPLICATION_CREDENTIALS": true, "HF_TOKEN": true, "GITLAB_PAT": true, "NPM_CONFIG__AUTH": true,
		"GEMINI_MODEL": true, "OPENAI_BASE_URL": true,
		"PATH": false, "HOME": false, "LANG": false, "TERM": false, "AWS_REGION": false, "SSH_AUTH_SOCK": false,
		"GOPATH": false, "DBUS_SESSION_BUS_ADDRESS": false, "XDG_SESSION_TYPE": false, "EDITOR": false,
		"KEYBOARD_LAYOUT": false, "OAUTH_CALLBACK_PORT": false, "PATHEXT": false,
	} {
		require.Equal(t, secret, SecretEnvName(name), name)
	}
	env := ChildEnviron([]string{"PATH=/bin", "SSH_AUTH_SOCK=/tmp/s", "X=ghp_abcdefghijklmnopqrst", "broken"}, nil)
	require.Equal(t, []string{"PATH=/bin", "SSH_AUTH_SOCK=/tmp/s", "NO_COLOR=1", "GIT_TERMINAL_PROMPT=0", "PAGER=cat", "GIT_PAGER=cat"}, env)
}

func TestShellChoice(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	argv, err := ExecOptions{Environ: []string{"SHELL=" + bash}}.shellArgv("echo")
	require.NoError(t, err)
	require.Equal(t, []string{bash, "-c", "echo"}, argv)
	argv, err = ExecOptions{Environ: []string{"SHELL=/usr/bin/fish"}}.shellArgv("echo")
	require.NoError(t, err)
	require.Equal(t, "sh", filepath.Base(argv[0]), "fish is replaced by sh")
	argv, err = ExecOptions{Shell: "/custom/sh"}.shellArgv("x")
	require.NoError(t, err)
	require.Equal(t, []string{"/custom/sh", "-c", "x"}, argv)
}

func TestRunPython(t *testing.T) {
	t.Parallel()
	if findPython() == "" {
		t.Skip("no python installed")
	}
	f := newExecFixture(t, ExecOptions{})
	f.write("data.txt", "from the workspace")
	r := f.ok("run_python", jobj{"code": "import os\nprint(1 + 1)\nprint(open('data.txt').read())\nprint(os.environ.get('OPENAI_API_KEY'))"})
	require.Contains(t, r.Output, "2\nfrom the workspace\nNone\n")
	r = f.fail("run_python", jobj{"code": "raise SystemExit(7)"}, CategoryExecution)
	require.Equal(t, 7, *r.Meta.ExitCode)
	r = f.fail("run_python", jobj{"code": "def broken(:\n"}, CategoryExecution)
	require.Contains(t, r.Output, "SyntaxError")
	r = f.ok("run_python", jobj{"code": "try:\n    input()\nexcept EOFError:\n    print('eof')"})
	require.Contains(t, r.Output, "eof")
	f.fail("run_python", jobj{"code": ""}, CategoryValidation)
	r = f.call("run_python", jobj{"code": "import time\ntime.sleep(30)", "timeout": 1})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "timed out")
}

func TestRunPythonMissing(t *testing.T) {
	f := newExecFixture(t, ExecOptions{})
	t.Setenv("PATH", t.TempDir())
	r := f.fail("run_python", jobj{"code": "print(1)"}, CategoryNotFound)
	require.Contains(t, r.Error, "no Python interpreter")
}

func TestHeadTail(t *testing.T) {
	cases := []struct {
		name   string
		max    int
		writes []string
		want   string
		cut    bool
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef", false},
		{"exactly", 6, []string{"abc", "def"}, "abcdef", false},
		{"one big write", 4, []string{"abcdefgh"}, "ab\n[... 4 characters cut ...]\ngh", true},
		{"many small writes", 4, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, "ab\n[... 4 characters cut ...]\ngh", true},
		{"runes at the seams", 4, []string{"aé", "xyz", "éb"}, "a\n[... 5 characters cut ...]\nb", true},
		{"invalid utf8", 10, []string{"a\xffb"}, "a\uFFFDb", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newHeadTail(tc.max)
			for _, s := range tc.writes {
				n, err := w.Write([]byte(s))
				require.NoError(t, err)
				require.Equal(t, len(s), n)
			}
			got, cut := w.String()
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.cut, cut)
		})
	}
}

func FuzzHeadTail(f *testing.F) {
	f.Add([]byte("hello world"), uint8(4), uint8(3))
	f.Add([]byte("é€😀abc"), uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, maxChars, chunk uint8) {
		limit := int(maxChars)%64 + 2
		step := int(chunk)%7 + 1
		w := newHeadTail(limit)
		for i := 0; i < len(data); i += step {
			_, _ = w.Write(data[i:min(i+step, len(data))])
		}
		got, cut := w.String()
		require.Equal(t, len(data) > limit, cut)
		if !cut {
			require.Equal(t, strings.ToValidUTF8(string(data), "\uFFFD"), got)
			return
		}
		require.Contains(t, got, "characters cut ...]")
		require.LessOrEqual(t, len(got), limit*3+64)
	})
}

func FuzzSecretEnvName(f *testing.F) {
	for _, s := range []string{"OPENAI_API_KEY", "PATH", "a_token", "", "_", "KEY_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsFunc(name, func(r rune) bool { return r > 0x7f }) {
			t.Skip("environment variable names are ASCII")
		}
		got := SecretEnvName(name)
		require.Equal(t, got, SecretEnvName(strings.ToLower(name)), "case must not matter")
		if strings.HasSuffix(strings.ToUpper(name), "_API_KEY") || strings.HasSuffix(strings.ToUpper(name), "_TOKEN") {
			require.True(t, got, name)
		}
	})
}

func BenchmarkRunCommandEcho(b *testing.B) {
	o := ExecOptions{}
	argv, err := o.shellArgv("echo hi")
	require.NoError(b, err)
	env := o.environ()
	for b.Loop() {
		r := runProcess(context.Background(), runSpec{argv: argv, dir: os.TempDir(), env: env, timeout: time.Minute})
		if r.exitCode != 0 {
			b.Fatal(r.output)
		}
	}
}

func TestToolContracts(t *testing.T) {
	want := map[string]struct {
		kind     kind.Kind
		standard bool
		params   []string
		paths    []string
	}{
		"run_command":               {kind.Exec, true, []string{"command", "timeout", "cwd"}, []string{"cwd"}},
		"run_python":                {kind.Exec, false, []string{"code", "timeout"}, nil},
		"run_background_process":    {kind.Exec, true, []string{"command", "cwd"}, []string{"cwd"}},
		"get_background_output":     {kind.Other, true, []string{"id", "lines"}, nil},
		"kill_background_process":   {kind.Other, true, []string{"id"}, nil},
		"list_background_processes": {kind.Other, true, nil, nil},
		"git_status":                {kind.Read, false, nil, nil},
		"git_diff":                  {kind.Read, false, []string{"path", "staged"}, []string{"path"}},
		"git_log":                   {kind.Read, false, []string{"max_count", "path"}, []string{"path"}},
		"git_add":                   {kind.Write, false, []string{"paths"}, []string{"paths"}},
		"git_commit":                {kind.Write, false, []string{"message"}, nil},
		"git_init":                  {kind.Write, false, nil, nil},
		"git_branch":                {kind.Write, false, []string{"name"}, nil},
		"git_checkout":              {kind.Write, false, []string{"ref", "create"}, nil},
		"get_file_info":             {kind.Read, false, []string{"path"}, []string{"path"}},
		"count_lines":               {kind.Read, false, []string{"path"}, []string{"path"}},
		"disk_usage":                {kind.Read, false, []string{"path"}, []string{"path"}},
		"env_info":                  {kind.Read, false, nil, nil},
		"which":                     {kind.Read, false, []string{"name"}, nil},
		"analyze_project":           {kind.Read, false, nil, nil},
	}
	reg := NewRegistry()
	defs := append(append(ExecTools(ExecOptions{}), GitTools()...), InfoTools()...)
	require.NoError(t, reg.Register(defs...), "the tools register cleanly (names, aliases, schemas)")
	require.NoError(t, reg.Register(FileTools()...), "no name or alias clashes with the file tools")
	require.Len(t, defs, len(want))
	for _, d := range defs {
		w, ok := want[d.Name]
		require.True(t, ok, d.Name)
		require.Equal(t, w.kind, d.Kind, d.Name)
		require.Equal(t, w.standard, d.Standard, d.Name)
		require.Equal(t, w.params, d.Params(), d.Name)
		require.Equal(t, w.paths, d.PathParams(), d.Name)
		require.NotEmpty(t, d.Description, d.Name)
	}
	p, err := reg.Prepare("run_command", []byte(`{"command":"ls"}`))
	require.NoError(t, err)
	require.Equal(t, []PathArg{{Param: "cwd", Value: "."}}, p.Paths, "the policy always sees the working directory")
}

func TestRunCommandEscapedDaemonDoesNotHang(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	t.Parallel()
	f := newExecFixture(t, ExecOptions{})
	start := time.Now()
	r := f.ok("run_command", jobj{"command": "setsid sleep 4 & sleep 0.5; echo spawned", "timeout": 30})
	require.Contains(t, r.Output, "spawned")
	took := time.Since(start)
	t.Logf("returned after %s", took)
	require.Less(t, took, 3*time.Second, "a process outside the group holding the pipe must not block the call")
}
