package permission

import (
	"path/filepath"
	"testing"
)

// Regression tests for holes 2, 4, 5 and 12 of issue 22, through the
// policy: what the analysis reports about options is confined and decided.

// holeFixture is the usual fixture with links out of the workspace: out
// (a directory link to outside/) and sub/leak (a file link to the secret).
func holeFixture(t *testing.T) fixture {
	t.Helper()
	f := newFixture(t)
	mustSymlink(t, f.outside, filepath.Join(f.root, "out"))
	mustSymlink(t, filepath.Join(f.outside, "secret.txt"), filepath.Join(f.root, "sub", "leak"))
	return f
}

type holeCase struct {
	mode Mode
	line string
	want Decision // the decision wanted; for Ask, Deny is accepted too (stricter)
}

func checkHoleCases(t *testing.T, f fixture, cases []holeCase, rules ...Rule) {
	t.Helper()
	for _, c := range cases {
		p := newPolicy(t, f, c.mode, true, rules...)
		v := p.Check(execReq(c.line))
		if v.Decision != c.want && !(c.want == Ask && v.Decision == Deny) {
			t.Errorf("mode %s: %q: got %s (%s: %s), want %s", c.mode, c.line, v.Decision, v.Rule, v.Reason, c.want)
		}
	}
}

// TestFindDashDashPolicy: hole 2.
func TestFindDashDashPolicy(t *testing.T) {
	f := holeFixture(t)
	var cases []holeCase
	for _, line := range []string{"find -- . -delete", "find -- . -fprint F", "find -L -- . -delete", "find . -- -delete",
		"find -- . -exec rm {} \\;", "find -- . -fls x", "find -O3 -- . -delete", "find -- . --dele", "find -- sub -okdir rm {} \\;"} {
		cases = append(cases, holeCase{ModePlan, line, Deny}, holeCase{ModeAsk, line, Ask})
	}
	cases = append(cases, holeCase{ModeYolo, "find -- . -fprint ../x", Deny}, holeCase{ModeYolo, "find . -fprint out/x", Deny},
		holeCase{ModeYolo, "find . -fprint .git/config", Ask}, holeCase{ModePlan, "find -- . -name x -print", Allow})
	checkHoleCases(t, f, cases)
}

// TestOptionPathsConfined: hole 4. Option values that name paths are
// resolved and confined like arguments, in every mode.
func TestOptionPathsConfined(t *testing.T) {
	f := holeFixture(t)
	var cases []holeCase
	for _, line := range []string{
		"env -C .. rm -rf ws_sibling", "env --chdir=.. rm -rf ws_sibling", "env --chdi=.. touch x", "env -C.. touch x",
		"env -0C .. touch x", "env --ch .. touch x", "env -C out touch x", "env -C sub cat leak", "env -C sub rm leak",
		"xargs -a ../outside/secret.txt echo", "xargs --arg-file=out/secret.txt echo", "xargs -aout/secret.txt echo",
		"xargs --arg out/secret.txt echo", "xargs -0a out/secret.txt echo",
		"tar -Cout -xf a.tar", "tar --directory=out -xf a.tar", "tar --dir=out -xf a.tar", "tar -xzvC out -f a.tar",
		"tar -xf out/a.tar", "tar --file=out/a.tar -x", "git -C out status", "git --work-tree=out status",
		"git --git-dir=out log", "make -Cout", "make --directory=out", "make --dir=out", "make -sC out",
		"make -f out/Makefile", "sudo --chdir=out ls", "go -C out build", "foo --directory=out", "foo --chdir=out",
		"timeout 5 env -C .. touch x", "nice env --chdir=out touch x", "env -C sub env -C ../.. touch x",
		"env -C \"$D\" cat x", "env -C ~ cat x", "tar -C \"$D\" -tf a.tar",
	} {
		cases = append(cases, holeCase{ModeYolo, line, Ask}, holeCase{ModePlan, line, Deny})
	}
	for _, line := range []string{"strace -o ../x.txt ls", "strace -o out/x ls", "strace --output=out/x ls",
		"strace -fo out/x ls", "ltrace -o out/x ls", "command time -o out/x ls", "command time --out=out/x ls",
		"tar -cf a.tar -g out/snap .", "watch -s out/shots ls", "cp -t out x", "cp --target-directory=out x",
		"unzip -d out a.zip", "sort -T out f", "patch -o out/x"} {
		cases = append(cases, holeCase{ModeYolo, line, Deny})
	}
	cases = append(cases, holeCase{ModeYolo, "strace -fo .git/config ls", Ask}, holeCase{ModeYolo, "env -C sub ls", Allow},
		holeCase{ModeYolo, "env -C sub/deep touch x", Allow}, holeCase{ModePlan, "env -C sub git status", Deny},
		holeCase{ModePlan, "env -C out ls", Deny}, holeCase{ModePlan, "env -C sub ls", Allow})
	checkHoleCases(t, f, cases)
}

// TestWrapperOptionsHideNoCommand: hole 4. A wrapper's options are read as
// its getopt reads them, so a deny rule sees the command that runs.
func TestWrapperOptionsHideNoCommand(t *testing.T) {
	f := holeFixture(t)
	var cases []holeCase
	for _, line := range []string{"timeout --kill 5 10 rm x", "timeout --kill-after 5 10 rm x", "timeout -k5 10 rm x",
		"timeout --sig KILL 5 rm x", "nice --adj 5 rm x", "nice --adjustment 5 rm x", "stdbuf --out L rm x",
		"stdbuf --output L rm x", "xargs --del , rm", "env --unset X rm x", "ionice --class 3 rm x"} {
		cases = append(cases, holeCase{ModeYolo, line, Deny})
	}
	checkHoleCases(t, f, cases, rule(t, Deny, "run_command(rm *)"))
	checkHoleCases(t, f, []holeCase{{ModeYolo, "timeout --bogus 5 touch x", Ask}, {ModeYolo, "nohup -x touch x", Ask}})
}

// TestGitConfigWritesPolicy: hole 5. git config writes .git/config (which
// always asks) or a file outside the workspace (refused), whatever rule.
func TestGitConfigWritesPolicy(t *testing.T) {
	f := holeFixture(t)
	var cases []holeCase
	for _, line := range []string{"git config user.name x", "git config --add a.b c", "git config --unset a.b",
		"git config --unse a.b", "git config --replace-all a.b c", "git config --edit", "git config -e",
		"git config set a.b c", "git config core.fsmonitor 'touch x'", "git config --worktree a.b c",
		"git config --rename-section a b", "git config --remove-section a", "git config --unset-all a.b"} {
		cases = append(cases, holeCase{ModeYolo, line, Ask}, holeCase{ModePlan, line, Deny},
			holeCase{ModeAutoEdit, line, Ask})
	}
	for _, line := range []string{"git config --global user.name x", "git config --glo core.fsmonitor x",
		"git config --global --add core.pager x", "git config set --global core.fsmonitor x", "git config --system a.b c",
		"git config --file ../x a.b c", "git config -f out/cfg a.b c", "git config --file=out/cfg a.b c",
		"git config --fi=out/cfg a.b c"} {
		cases = append(cases, holeCase{ModeYolo, line, Deny}, holeCase{ModePlan, line, Deny})
	}
	for _, line := range []string{"git config --get user.name", "git config --list", "git config -l",
		"git config get user.name", "git config --show-origin -l", "git config list --show-scope"} {
		cases = append(cases, holeCase{ModePlan, line, Allow})
	}
	checkHoleCases(t, f, cases)
	checkHoleCases(t, f, []holeCase{{ModeAsk, "git config --global core.fsmonitor x", Deny},
		{ModeAsk, "git config core.fsmonitor x", Ask}, {ModeAsk, "git config --get-regexp x", Allow}},
		rule(t, Allow, "run_command(git config *)"))
	checkHoleCases(t, f, []holeCase{{ModePlan, "git config --get-all --file=out/cfg a.b", Deny},
		{ModePlan, "git config --get -f sub/leak a.b", Deny}})
}

// TestSedUnknownScripts: hole 12. A sed whose script runs commands or
// touches other files is never allowed by a rule or a mode.
func TestSedUnknownScripts(t *testing.T) {
	f := holeFixture(t)
	bad := []string{"sed 'e rm -rf ~' f", "sed -n '1e touch x' f", "sed 's/a/b/e' f", "sed 's/a/b/w out.txt' f",
		"sed 'w out.txt' f", "sed 'r /etc/passwd' f", "sed -f s.sed f", "sed --expr='e id' f", "sed -ne 'e id' f",
		"sed '1!e id' f", "sed \"$X\" f", "sed -n p ../outside/secret.txt", "sed -n /x/p out/secret.txt"}
	var cases, ruled []holeCase
	for _, line := range bad {
		cases = append(cases, holeCase{ModeYolo, line, Ask}, holeCase{ModePlan, line, Deny})
		ruled = append(ruled, holeCase{ModeAsk, line, Ask}, holeCase{ModeAsk, "sed -i" + line[3:], Ask})
	}
	ruled = append(ruled, holeCase{ModeAsk, "sed -i 's/a/b/' inside.txt", Allow})
	checkHoleCases(t, f, cases)
	checkHoleCases(t, f, ruled, rule(t, Allow, "run_command(sed *)"))
	checkHoleCases(t, f, []holeCase{{ModeAsk, "sed -i 's/a/b/w x' inside.txt", Ask},
		{ModeAsk, "sed -i 'e rm -rf ~' inside.txt", Ask}, {ModeAsk, "sed -i 's/a/b/' inside.txt", Allow}},
		rule(t, Allow, "run_command(sed -i *)"))
}

// TestSuggestKeepsOptions: hole 12. "Always" saves the subcommand and the
// options that name no path, never a bare "sed *" or "git *".
func TestSuggestKeepsOptions(t *testing.T) {
	f := holeFixture(t)
	p := newPolicy(t, f, ModeAsk, true)
	cases := map[string]string{
		"sed -i 's/a/b/' f.go":          "run_command(sed -i *)",
		"sed -i.bak -e 's/a/b/' f.go":   "run_command(sed -i.bak -e *)",
		"sed -E -i 's/(a)/b/' f.go":     "run_command(sed -E -i *)",
		"git commit -m 'x y'":           "run_command(git commit *)",
		"git --no-pager commit -m x":    "run_command(git --no-pager commit *)",
		"go test ./...":                 "run_command(go test *)",
		"make -j4 build":                "run_command(make -j4 build *)",
		"sort -o out.txt inside.txt":    "run_command(sort -o out.txt inside.txt)",
		"git -C sub commit -m x":        "run_command(git -C sub commit -m x)",
		"make --directory=sub":          "run_command(make --directory=sub)",
		"tar -xf a.tar":                 "run_command(tar -xf a.tar)",
		"sed -f s.sed f":                "",
		"sed 'e rm -rf ~' f":            "",
		"sed -i 's/a/b/w x' inside.txt": "",
	}
	for cmd, want := range cases {
		if got := p.SuggestRule(execReq(cmd)); got != want {
			t.Errorf("SuggestRule(%q) = %q, want %q", cmd, got, want)
		}
	}
	if err := p.AllowForSession(p.SuggestRule(execReq("sed -i 's/a/b/' inside.txt"))); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]Decision{"sed -i 's/x/y/' inside.txt": Allow, "sed 'e rm -rf ~' inside.txt": Ask,
		"sed -i 'e rm -rf ~' inside.txt": Ask, "sed -n p inside.txt": Allow, "sed 's/a/b/' inside.txt > x": Ask} {
		if v := p.Check(execReq(line)); v.Decision != want {
			t.Errorf("after approving sed -i: %q: got %s (%s), want %s", line, v.Decision, v.Reason, want)
		}
	}
}

// TestEverydayReadOnlyAfterOptions: everyday commands stay allowed in
// plan mode.
func TestEverydayReadOnlyAfterOptions(t *testing.T) {
	f := holeFixture(t)
	p := newPolicy(t, f, ModePlan, true)
	for _, line := range []string{"find . -name '*.go' -print", "find . -type f -newer inside.txt",
		"git config --get user.name", "sed -n '1,20p' inside.txt", "tar -tf a.tar", "env LANG=C ls", "timeout 5 ls",
		"nice ls", "xargs -0 echo", "find . -name x | xargs -0 echo", "env -C sub ls", "git config --list",
		"timeout 5 git status", "tar tvf a.tar", "stdbuf -oL cat inside.txt", "env LC_ALL=C.UTF-8 sort inside.txt",
		"sed -n '/^func/,/^}/p' inside.txt", "sed -e '/x/d' -e/y/d inside.txt", "sed --expression=/x/d inside.txt"} {
		if v := p.Check(execReq(line)); v.Decision != Allow {
			t.Errorf("%q: got %s (%s: %s), want allow", line, v.Decision, v.Rule, v.Reason)
		}
	}
}
