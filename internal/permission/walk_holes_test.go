package permission

import "testing"

// Holes 1, 6, 7 and 8 of issue 22 through the policy. "Unknown" lines
// must not be allowed even by an allow-everything rule (and are denied in
// plan mode); lines whose hidden command the analysis now lists must be
// refused by a deny rule for that command even in yolo mode.

// unknownLines are lines the analysis cannot fully understand.
var unknownLines = []string{
	// 1: strings bash evaluates as arithmetic or as a variable name.
	"(( x['$(touch p)'] ))", "[[ 'x[$(touch p)]' -eq 1 ]]", "let 'x[$(touch p)]=1'",
	"v='x[$(touch p)]'; (( v ))", "v=$(cat f); [[ $v -gt 0 ]]", "v=$(cat f); a=(1); x=${a[v]}",
	"[[ -v 'x[$(touch p)]' ]]", "test -v 'x[$(touch p)]'", "[ -v 'x[$(touch p)]' ]", "x='a[$(touch p)]'; : ${!x}",
	"printf -v 'x[$(touch p)]' y", "declare 'x[$(touch p)]=1'", "x='$(touch p)'; : ${x@P}",
	// 6: code aidex cannot know.
	"bash <(echo touch p)", "source <(echo touch p)", "bash <<EOF\ntouch $HOME/p\nEOF", "python3 <<EOF\nimport os\nEOF",
	"echo p | xargs -I{} sh -c 'touch {}'", "find . -exec sh -c 'touch {}' \\;", "echo 'touch p' | xargs sh -c",
	"trap \"$X\" EXIT", "git rebase -x \"$CMD\" HEAD~1", "enable -f ./x.so x",
	// 7: environment prefixes and assignments.
	"GIT_DIR=x git log", "GIT_COMMON_DIR=x git log", "GIT_CONFIG_GLOBAL=x git status", "LD_PRELOAD=./x.so ls",
	"PATH=. ls", "BASH_ENV=x bash -c true", "PAGER='touch p' git log", "EDITOR='touch p' git status",
	"TAR_OPTIONS='--to-command=touch p' tar -tf a.tar", "FOO=1 ls", "env GIT_COMMON_DIR=x git log",
	"export GIT_COMMON_DIR=x; git log", "GIT_COMMON_DIR=x; git log", "FOO=1; ls", "for PATH in .; do ls; done",
	// 8: cd targets the analysis cannot confine.
	"cd -", "cd ~root", "cd \"$X\"", "cd $(echo /etc)", "pushd +1", "popd", "pushd", "CDPATH=/etc; cd ssh",
	"HOME=/etc; cd; ls", "PWD=/etc/ssh; cd ..", "shopt -s cdable_vars; x=/etc; cd x",
}

// surfacedLines hide "touch" in code the analysis now reads.
var surfacedLines = []string{
	"a[$(touch ~/p)]=1", "a[$(touch p)]=1", "declare a[$(touch p)]=1", "bash <<EOF\ntouch p\nEOF",
	"bash <<'EOF'\ntouch p\nEOF", "sh <<< 'touch p'", "timeout 5 bash <<< 'touch p'", "trap 'touch p' EXIT",
	"mapfile -C 'touch p' -c 1 a < f", "git rebase -x 'touch p' HEAD~1", "git rebase --exe='touch p' HEAD~1",
	"git bisect run touch p", "git submodule foreach touch p", "git difftool -x 'touch p' HEAD",
	"zip -TT 'touch p' a.zip f", "tar --to-comm='touch p' -xf a.tar", "env --split-s='touch p'",
	"timeout --sig KILL 5 touch p", "script -qc 'touch p' /dev/null",
}

func TestWalkHolesUnknown(t *testing.T) {
	f := newFixture(t)
	plan := newPolicy(t, f, ModePlan, false)
	ask := newPolicy(t, f, ModeAsk, true, rule(t, Allow, "run_command(*)"))
	for _, line := range unknownLines {
		if v := plan.Check(execReq(line)); v.Decision != Deny {
			t.Errorf("plan %q: %s (%s), want deny", line, v.Decision, v.Reason)
		}
		if v := ask.Check(execReq(line)); v.Decision == Allow {
			t.Errorf("ask with run_command(*) %q: allowed (%s), want ask", line, v.Reason)
		}
	}
}

func TestWalkHolesSurfaced(t *testing.T) {
	f := newFixture(t)
	plan := newPolicy(t, f, ModePlan, false)
	yolo := newPolicy(t, f, ModeYolo, true, rule(t, Deny, "run_command(touch *)"))
	for _, line := range surfacedLines {
		if v := plan.Check(execReq(line)); v.Decision != Deny {
			t.Errorf("plan %q: %s (%s), want deny", line, v.Decision, v.Reason)
		}
		if v := yolo.Check(execReq(line)); v.Decision != Deny {
			t.Errorf("yolo with deny run_command(touch *) %q: %s (%s), want deny", line, v.Decision, v.Reason)
		}
	}
}

// TestCdUnknownConfinesLaterPaths: after a cd the analysis cannot follow,
// relative paths are not known to be in the workspace, in every mode.
func TestCdUnknownConfinesLaterPaths(t *testing.T) {
	f := newFixture(t)
	yolo := newPolicy(t, f, ModeYolo, true)
	for _, line := range []string{
		"cd \"$X\" && echo hi > out.txt", "cd \"$X\"; cat inside.txt", "popd; echo hi > out.txt",
		"cd - && echo hi > out.txt", "pushd +1 && echo hi >> out.txt", "cd $(echo /etc) && cat passwd",
		"cd ~root; echo hi > x", "cd ../ws_sibling; echo hi > x",
	} {
		if v := yolo.Check(execReq(line)); v.Decision == Allow {
			t.Errorf("yolo %q: allowed (%s)", line, v.Reason)
		}
	}
	if v := yolo.Check(execReq("cd sub && echo hi > out.txt")); v.Decision != Allow {
		t.Errorf("a cd inside the workspace: %s (%s)", v.Decision, v.Reason)
	}
}
