//go:build unix

package exec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

func TestRunCommandBasics(t *testing.T) {
	f := newExecFixture(t, Options{})
	f.Write("sub/x.txt", "x")
	cases := []struct {
		name     string
		args     jobj
		ok       bool
		code     int
		cat      tools.Category
		contains []string
	}{
		{"echo", jobj{"command": "echo hello"}, true, 0, "", []string{"hello\n", "[exit code: 0]"}},
		{"combined in order", jobj{"command": "echo a; echo b >&2; echo c"}, true, 0, "", []string{"a\nb\nc\n"}},
		{"non-zero exit", jobj{"command": "echo oops; exit 3"}, false, 3, tools.CategoryExecution, []string{"oops", "[exit code: 3]"}},
		{"stdin closed", jobj{"command": "cat; echo after", "timeout": 10}, true, 0, "", []string{"after"}},
		{"cwd", jobj{"command": "pwd; ls", "cwd": "sub"}, true, 0, "", []string{"/ws/sub\n", "x.txt"}},
		{"no color env", jobj{"command": "echo $NO_COLOR $GIT_TERMINAL_PROMPT $PAGER $GIT_PAGER"}, true, 0, "", []string{"1 0 cat cat"}},
		{"clamped timeout", jobj{"command": "true", "timeout": 99999999}, true, 0, "", []string{"clamped to the maximum 600 s"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.Call("run_command", tc.args)
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
	f := newExecFixture(t, Options{})
	f.Fail("run_command", jobj{"command": "touch x", "cwd": "../outside"}, tools.CategorySecurity)
	f.Fail("run_command", jobj{"command": "touch x", "cwd": "/"}, tools.CategorySecurity)
	f.Fail("run_command", jobj{"command": "touch x", "cwd": f.Outside}, tools.CategorySecurity)
	f.Fail("run_command", jobj{"command": "  "}, tools.CategoryValidation)
	f.Fail("run_command", jobj{"command": "true", "timeout": -1}, tools.CategoryValidation)
	f.Fail("run_command", jobj{"command": "true", "cwd": "missing"}, tools.CategoryNotFound)
	_, err := os.Stat(filepath.Join(f.Outside, "x"))
	require.ErrorIs(t, err, os.ErrNotExist)
	// The bash/shell aliases reach run_command.
	r := f.OK("bash", jobj{"command": "echo via-alias"})
	require.Contains(t, r.Output, "via-alias")
}

func TestRunCommandOutputCap(t *testing.T) {
	f := newExecFixture(t, Options{MaxOutputChars: 1000})
	r := f.OK("run_command", jobj{"command": "seq 1 100000"})
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
	f := newExecFixture(t, Options{})
	r := f.Call("run_command", jobj{"command": "yes", "timeout": 1})
	require.False(t, r.OK)
	require.Equal(t, tools.CategoryExecution, r.Category)
	require.Contains(t, r.Error, "timed out")
	require.True(t, r.Meta.Truncated)
	require.Less(t, len(r.Output), proc.DefaultMaxOutputChars+300)
	require.Contains(t, r.Output, "characters cut")
}

func TestRunCommandTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	f := newExecFixture(t, Options{})
	pidFile := filepath.Join(f.Root, "child.pid")
	r := f.Call("run_command", jobj{"command": "sleep 60 & echo $! > child.pid; echo started; wait", "timeout": 1})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "timed out")
	require.Contains(t, r.Output, "started")
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	waitGone(t, firstInt(t, string(data)))
}

func TestRunCommandTimeoutEscalatesToSIGKILL(t *testing.T) {
	t.Parallel()
	f := newExecFixture(t, Options{})
	r := f.Call("run_command", jobj{"command": "trap '' TERM; echo $$; while :; do sleep 0.1; done", "timeout": 1})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "timed out")
	waitGone(t, firstInt(t, r.Output))
}

func TestRunCommandCancel(t *testing.T) {
	t.Parallel()
	f := newExecFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	r := f.CallCtx(ctx, "run_command", jobj{"command": "echo $$; sleep 60", "timeout": 60})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "cancelled")
	require.Less(t, time.Since(start), 10*time.Second)
	waitGone(t, firstInt(t, r.Output))
}

func TestRunCommandKillsLeftoverChildren(t *testing.T) {
	f := newExecFixture(t, Options{})
	start := time.Now()
	r := f.OK("run_command", jobj{"command": "sleep 60 & echo $!", "timeout": 30})
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
	f := newExecFixture(t, Options{Environ: base, KeepEnv: []string{"keep_token"}})
	r := f.OK("run_command", jobj{"command": "env"})
	for _, want := range []string{"MY_SETTING=visible", "HOME=/tmp/home", "LANG=C.UTF-8", "NO_COLOR=1", "KEEP_TOKEN=kept"} {
		require.Contains(t, r.Output, want)
	}
	for _, secret := range []string{"OPENAI_API_KEY", "sk-fake", "ANTHROPIC_BASE_URL", "GITHUB_TOKEN", "ghp_fake",
		"AWS_SECRET_ACCESS_KEY", "AKIAFAKE", "hunter2", "AKIAIOSFODNN7EXAMPLE12", "NO_COLOR=0"} {
		require.NotContains(t, r.Output, secret)
	}
}

func TestShellChoice(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shells")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	argv, err := Options{Environ: []string{"SHELL=" + bash}}.shellArgv("echo")
	require.NoError(t, err)
	require.Equal(t, []string{bash, "-c", "echo"}, argv)
	argv, err = Options{Environ: []string{"SHELL=/usr/bin/fish"}}.shellArgv("echo")
	require.NoError(t, err)
	require.Equal(t, "sh", filepath.Base(argv[0]), "fish is replaced by sh")
	argv, err = Options{Shell: "/custom/sh"}.shellArgv("x")
	require.NoError(t, err)
	require.Equal(t, []string{"/custom/sh", "-c", "x"}, argv)
}

func TestRunPython(t *testing.T) {
	t.Parallel()
	if findPython() == "" {
		t.Skip("no python installed")
	}
	f := newExecFixture(t, Options{})
	f.Write("data.txt", "from the workspace")
	r := f.OK("run_python", jobj{"code": "import os\nprint(1 + 1)\nprint(open('data.txt').read())\nprint(os.environ.get('OPENAI_API_KEY'))"})
	require.Contains(t, r.Output, "2\nfrom the workspace\nNone\n")
	r = f.Fail("run_python", jobj{"code": "raise SystemExit(7)"}, tools.CategoryExecution)
	require.Equal(t, 7, *r.Meta.ExitCode)
	r = f.Fail("run_python", jobj{"code": "def broken(:\n"}, tools.CategoryExecution)
	require.Contains(t, r.Output, "SyntaxError")
	r = f.OK("run_python", jobj{"code": "try:\n    input()\nexcept EOFError:\n    print('eof')"})
	require.Contains(t, r.Output, "eof")
	f.Fail("run_python", jobj{"code": ""}, tools.CategoryValidation)
	r = f.Call("run_python", jobj{"code": "import time\ntime.sleep(30)", "timeout": 1})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "timed out")
}

func TestRunPythonMissing(t *testing.T) {
	f := newExecFixture(t, Options{})
	t.Setenv("PATH", t.TempDir())
	r := f.Fail("run_python", jobj{"code": "print(1)"}, tools.CategoryNotFound)
	require.Contains(t, r.Error, "no Python interpreter")
}

func BenchmarkRunCommandEcho(b *testing.B) {
	o := Options{}
	argv, err := o.shellArgv("echo hi")
	require.NoError(b, err)
	env := o.environ(nil)
	for b.Loop() {
		r := proc.Run(context.Background(), proc.Spec{Argv: argv, Dir: os.TempDir(), Env: env, Timeout: time.Minute})
		if r.ExitCode != 0 {
			b.Fatal(r.Output)
		}
	}
}

func TestRunCommandEscapedDaemonDoesNotHang(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	t.Parallel()
	f := newExecFixture(t, Options{})
	start := time.Now()
	r := f.OK("run_command", jobj{"command": "setsid sleep 4 & sleep 0.5; echo spawned", "timeout": 30})
	require.Contains(t, r.Output, "spawned")
	took := time.Since(start)
	t.Logf("returned after %s", took)
	require.Less(t, took, 3*time.Second, "a process outside the group holding the pipe must not block the call")
}

// The scrubbing of a command's environment is its session's (Env.EnvPolicy):
// two environments in one process pass different variables.
func TestRunCommandUsesEnvPolicy(t *testing.T) {
	t.Setenv("CORP_LLM", "corp-value")
	f := newExecFixture(t, Options{})
	f.Env.EnvPolicy = tools.EnvPolicy{Secret: []string{"CORP_LLM"}}
	require.NotContains(t, f.OK("run_command", jobj{"command": "env"}).Output, "corp-value")
	g := newExecFixture(t, Options{})
	require.Contains(t, g.OK("run_command", jobj{"command": "env"}).Output, "CORP_LLM=corp-value")
	require.NotContains(t, f.OK("run_command", jobj{"command": "env"}).Output, "corp-value")
}
