package permission

import (
	"path/filepath"
	"testing"
)

// Issue 43, part 3, class 2: programs that show the environment, judged
// by the policy in every mode.

// TestEnvironmentReadersLikePrintenv: every command that shows its own
// environment gets printenv's answer in every mode (denied in plan mode,
// asked in ask mode, allowed in yolo mode): none is read-only. Commands
// that show the environment of other processes are refused in every mode,
// like /proc/PID/environ.
func TestEnvironmentReadersLikePrintenv(t *testing.T) {
	f := newFixture(t)
	mustWrite(t, filepath.Join(f.root, "data.json"), "{}\n")
	own := []string{
		"printenv", "printenv HOME", "env", "env -0", "env -C sub", "set", "export", "export -p", "declare -x", "declare -p",
		"declare -p USER", "typeset -x", "readonly -p", "compgen -v", "compgen -e", "jq -n env", "jq -n 'env.HOME'",
		"jq -n '$ENV'", "jq -n '$ENV.PATH'", "jq -n '$ ENV'", "jq -n '{a: env}'", "jq -n '\"\\(env.HOME)\"'",
		"jq -n '[1] | map(env)'", "jq '..env' data.json", "jq -r 'env | keys[]' data.json", "jq -n 'env|to_entries'",
		"jq -f prog.jq data.json", "jq --from-file prog.jq data.json", "jq -nf prog.jq", "jq -n 'include \"m\"; 1'",
		"jq -L . -n 'import \"m\" as m; m::f'", "jq --arg x y -n 'env'", "jq -n --args 'env' a b",
		"cat <<EOF\n$HOME\nEOF", "cat <<< $HOME", "cat <<< \"$PATH\"", "grep x <<< ${HOME}", "head -1 <<EOF\n${PATH}\nEOF",
		"wc -c <<< \"$OPENAI_API_KEY\"", "jq -n env | head -5", "timeout 5 printenv", "nice jq -n '$ENV'",
		"echo $(printenv HOME)", "bash -c printenv", "awk 'BEGIN{print ENVIRON[\"HOME\"]}'",
		"awk 'BEGIN{for (k in ENVIRON) print k}'", "perl -e 'print $ENV{HOME}'", "perl -le 'print for %ENV'",
		"python3 -c 'import os; print(os.environ)'", "node -e 'console.log(process.env)'", "ruby -e 'p ENV.to_h'",
		"[[ $HOME == /h* ]] && echo y", "[[ -n $OPENAI_API_KEY ]] && echo set", "case $USER in r*) echo r;; esac",
		"for w in $PATH; do echo ok; done", "(( ${#HOME} > 3 )) && echo long", "x=$HOME; [[ $x == /* ]] && echo y",
	}
	others := []string{"ps e", "ps eww", "ps auxe", "ps axe -o pid,cmd", "ps -E", "tmux show-environment -g",
		"tmux showenv", "systemctl --user show-environment", "cat /proc/self/environ", "cat /proc/1/environ",
		"tr '\\0' '\\n' < /proc/self/environ", "strings /proc/$PPID/environ", "xxd /proc/self/environ",
		"od -c /proc/thread-self/environ", "grep -a KEY /proc/self/environ", "head -c 99 /proc/self/task/1/environ"}
	for _, mode := range []Mode{ModePlan, ModeAsk, ModeYolo} {
		p := newPolicy(t, f, mode, true)
		want := p.Check(execReq("printenv")).Decision
		for _, line := range own {
			if v := p.Check(execReq(line)); v.Decision != want {
				t.Errorf("%s %q: %s (%s: %s), want %s like printenv", mode, line, v.Decision, v.Rule, v.Reason, want)
			}
		}
		for _, line := range others {
			if v := p.Check(execReq(line)); v.Decision != Deny {
				t.Errorf("%s %q: %s (%s: %s), want deny", mode, line, v.Decision, v.Rule, v.Reason)
			}
		}
	}
	// A broad rule for a program does not allow its environment: "awk *"
	// allows awk, not awk's ENVIRON (as for system()).
	awk := newPolicy(t, f, ModeAsk, true, rule(t, Allow, "run_command(awk *)"))
	if v := awk.Check(execReq("awk '{print $1}' data.json")); v.Decision != Allow {
		t.Errorf("awk '{print $1}' with the rule awk *: %s (%s), want allow", v.Decision, v.Reason)
	}
	if v := awk.Check(execReq("awk 'BEGIN{print ENVIRON[\"HOME\"]}'")); v.Decision == Allow {
		t.Errorf("awk ENVIRON allowed by the rule awk *")
	}
	// The everyday commands near the class keep their answer.
	plan := newPolicy(t, f, ModePlan, false)
	for _, line := range []string{"jq . data.json", "jq -r .name data.json", "jq '.[] | select(.name == \"env\")' data.json",
		"jq '.environment' data.json", "jq -n '\"env\"'", "jq -n '$x' --arg x env", "jq '.a.env' data.json",
		"jq -n '# env\n1'", "x=1; [[ $x == 1 ]] && echo y", "for f in *.json; do echo ok; done", "cat <<'EOF'\n$HOME\nEOF", "cat <<< hello", "cat <<EOF\nplain $((1+2))\nEOF", "echo $((1+2))"} {
		if v := plan.Check(execReq(line)); v.Decision != Allow {
			t.Errorf("plan %q: %s (%s: %s), want allow", line, v.Decision, v.Rule, v.Reason)
		}
	}
	ask := newPolicy(t, f, ModeAsk, true)
	for _, line := range []string{"ps aux", "ps -ef", "ps -C node", "ps -u eve -o pid,cmd", "ps -eo pid,comm", "tmux ls"} {
		if v := ask.Check(execReq(line)); v.Decision != Ask {
			t.Errorf("ask %q: %s (%s: %s), want ask", line, v.Decision, v.Rule, v.Reason)
		}
	}
}
