package shell

import (
	"slices"
	"sort"
	"testing"
)

// Issue 43, class 2: a program that shows environment variables is not
// read-only (printenv is not), and one that shows other processes'
// environments is marked for refusal.

func exposure(line string) (EnvExposure, string) {
	for _, sc := range Analyze(line).Commands {
		if sc.ExposesEnv != 0 {
			return sc.ExposesEnv, sc.ExposesEnvReason
		}
	}
	return 0, ""
}

func TestEnvironmentReaders(t *testing.T) {
	own := []string{
		"printenv", "printenv HOME", "env", "env -0", "env -C sub", "env -C sub -0", "set", "export", "export -p",
		"declare", "declare -x", "declare -p", "declare -xp", "declare -p USER", "typeset -x", "readonly", "readonly -p",
		"local", "compgen -v", "compgen -e", "compgen -A variable", "builtin set", "command printenv", "timeout 5 env",
		"jq -n env", "jq env", "jq -n 'env.HOME'", "jq -n '$ENV'", "jq -n '$ENV.PATH'", "jq -n '$ ENV'", "jq -n '{a: env}'",
		"jq -n '\"\\(env.HOME)\"'", "jq -n '\"a \\(\"b\\(env)\") c\"'", "jq -n '[1] | map(env)'", "jq '..env' f",
		"jq -r 'env | keys[]' f", "jq -n 'env|to_entries'", "jq -n '(env)'", "jq -n 'def f: env; f'", "jq -n '.[]|env'",
		"jq -f prog.jq f", "jq --from-file prog.jq f", "jq --from-f prog.jq f", "jq -nf prog.jq", "jq -rf prog.jq f",
		"jq -n 'include \"m\"; 1'", "jq -L . -n 'import \"m\" as m; m::f'", "jq --arg x y -n 'env'", "jq --argjson x 1 'env' f",
		"jq --slurpfile a f.json --rawfile b g -n '$ENV'", "jq -n --args 'env' a b", "jq -- env f", "jq --indent 2 env f",
		"jq -L lib env f", "jq -Llib env f", "jq -n '\"unterminated'", "jq -n \"$F\"", "gojq -n env", "jaq -n '$ENV'",
		"cat <<EOF\n$HOME\nEOF", "cat <<-EOF\n\t${PATH}\n\tEOF", "cat <<< $HOME", "cat <<< \"$PATH\"", "grep x <<< ${HOME}",
		"head -1 <<EOF\n$1\nEOF", "wc -c <<< \"$OPENAI_API_KEY\"", "cat <<EOF\n$((X))\nEOF", "{ cat; } <<< $HOME",
		"while read l; do echo ok; done <<< \"$PATH\"", "cat 3<<< $HOME", "sort <<< \"${!A*}\"",
		"awk 'BEGIN{print ENVIRON[\"HOME\"]}'", "gawk 'BEGIN{for (k in ENVIRON) print k}'", "mawk -v x=1 '{print ENVIRON[\"X\"]}' f",
		"perl -e 'print $ENV{HOME}'", "perl -le 'print for %ENV'", "python3 -c 'import os; print(os.environ)'",
		"python3.12 -c 'import os; print(os.getenv(\"X\"))'", "node -e 'console.log(process.env)'", "ruby -e 'p ENV.to_h'",
		"php -r 'var_dump(getenv());'", "lua -e 'print(os.getenv(\"HOME\"))'",
	}
	for _, line := range own {
		if e, why := exposure(line); e != EnvOwn || why == "" {
			t.Errorf("%q: exposure %v %q, want own", line, e, why)
		}
		if lineReadOnly(line) {
			t.Errorf("%q is read-only, want not (printenv is not)", line)
		}
	}
	others := []string{"ps e", "ps eww", "ps auxe", "ps axe -o pid,cmd", "ps -E", "ps -p 1 e", "ps ewwf", "sudo ps e",
		"tmux show-environment -g", "tmux showenv", "tmux -L x show-environment", "systemctl --user show-environment",
		"launchctl getenv HOME", "launchctl export", "timeout 5 ps e", "echo $(ps eww)"}
	for _, line := range others {
		if e, why := exposure(line); e != EnvOthers || why == "" {
			t.Errorf("%q: exposure %v %q, want others", line, e, why)
		}
	}
	for _, line := range []string{
		"jq . f", "jq -r .name package.json", "jq '.[] | select(.name == \"env\")' f", "jq '.environment' f", "jq -n '\"env\"'",
		"jq -n '$x' --arg x env", "jq '.a.env' f", "jq -n '# env\n1'", "jq '.env' f", "jq '.[\"env\"]' f", "jq -n '$env'",
		"jq -n '{\"env\": 1}'", "jq -n '\"\\\\(env)\"'", "jq -n 'def f: 1; f'", "jq --arg env x -n '$env'", "jq -n 'm::env'",
		"cat <<'EOF'\n$HOME\nEOF", "cat <<\"EOF\"\n${PATH}\nEOF", "cat <<< hello", "cat <<< 'a $HOME'", "cat <<EOF\nplain $((1+2))\nEOF",
		"cat <<EOF\n$(date)\nEOF", "awk '{print $1}' f", "perl -ne 'print if /x/' f", "ps aux", "ps -ef", "ps -C node",
		"ps -u eve -o pid,cmd", "ps -eo pid,comm", "ps --sort=-pcpu", "tmux ls", "set -e", "set -o pipefail", "export X=1",
		"declare -a arr", "readonly X=1", "env LANG=C ls", "env -C sub ls", "ls", "echo env", "git log --format=%an",
		"go env GOPATH",
	} {
		if e, why := exposure(line); e != 0 {
			t.Errorf("%q: exposure %v (%s), want none", line, e, why)
		}
	}
}

// TestEveryReadOnlyCommandAudited: every command of the read-only tables
// (and every wrapper that keeps a command read-only) has been judged for
// the environment class: it either cannot show environment variables, or
// envOwnReaders names it. A command added to the tables fails here until
// it is judged.
func TestEveryReadOnlyCommandAudited(t *testing.T) {
	cannot := set("[ basename cat cd cmp column comm cut date df diff dirname du echo egrep false fgrep file find " +
		"grep head hexdump ls md5sum nl od printf pwd readlink realpath rg sed sha1sum sha256sum sha512sum sort stat " +
		"tail tar test tr tree true uname uniq wc which xxd " +
		// git prints the repository and its configuration; go env prints
		// Go's own settings (a fixed list, from the cleaned environment).
		"git go " +
		// Wrappers run the command they wrap, which is judged itself;
		// builtin, command and env without a command are judged as the
		// command they run (builtin set, env alone: envOwnReaders).
		"builtin command nice stdbuf time timeout xargs")
	readers := set("jq env")
	var names []string
	for name := range readOnlyCommands() {
		names = append(names, name)
	}
	for name, w := range wrappers() {
		if w.readOnly {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		switch {
		case readers[name]:
			if _, ok := envOwnReaders[name]; !ok {
				t.Errorf("%s shows the environment but envOwnReaders does not list it", name)
			}
		case !cannot[name]:
			t.Errorf("the read-only command %s has not been judged for the environment class (envreaders.go)", name)
		}
	}
	// Nothing envOwnReaders or envOthersReaders names is read-only in a
	// form that shows the environment.
	for _, line := range []string{"jq -n env", "env", "printenv", "set", "export -p", "ps e"} {
		if lineReadOnly(line) {
			t.Errorf("%q is read-only", line)
		}
	}
}

// TestEnvironmentTests: a line whose control flow tests an environment
// variable shows what it holds; variables the line gives itself do not.
func TestEnvironmentTests(t *testing.T) {
	for line, want := range map[string]string{
		"[[ $HOME == /h* ]] && echo y":                  "HOME",
		"[[ -n $OPENAI_API_KEY ]] && echo set":          "OPENAI_API_KEY",
		"[[ ${KEY:0:1} == s ]]":                         "KEY",
		"[[ \"$KEY\" =~ ^sk- ]] && echo y":              "KEY",
		"case $KEY in sk-a*) echo a;; esac":             "KEY",
		"case \"${KEY}\" in a) echo a;; esac":           "KEY",
		"for w in $PATH; do echo ok; done":              "PATH",
		"(( ${#KEY} > 3 )) && echo long":                "KEY",
		"for ((i=0; i<${#KEY}; i++)); do echo x; done":  "KEY",
		"x=$KEY; [[ $x == a* ]] && echo y":              "x",
		"[[ ${y:=$KEY} == a ]]":                         "y",
		"eval 'x=1'; [[ $x == 1 ]] && echo y":           "x",
		"bash -c '[[ $KEY == a ]] && echo y'":           "KEY",
		"for x; do [[ $x == a ]]; done":                 "x",
		"echo $(case $KEY in a) echo a;; esac)":         "KEY",
		"if [[ -z $KEY ]]; then echo none; fi":          "KEY",
		"while [[ $KEY == x ]]; do echo y; break; done": "KEY",
	} {
		got := Analyze(line).EnvTests
		if !slices.Contains(got, want) {
			t.Errorf("%q: env tests %v, want %s among them", line, got, want)
		}
	}
	for _, line := range []string{
		"x=1; [[ $x == 1 ]] && echo y", "for f in a b; do [[ $f == a ]] && echo y; done", "for f in *.go; do [[ -f $f ]]; done",
		"[[ -f README.md ]] && cat README.md", "case x in x) echo y;; esac", "[[ $? == 0 ]]", "[[ $# -gt 0 ]]",
		"for ((i=0; i<3; i++)); do echo $i; done", "x=$(cat f); [[ $x == a ]] && echo y", "while read l; do [[ $l == x ]] && echo y; done < f",
		"read -r a b < f; [[ $a == x ]]", "[[ $PWD == /x* ]]", "[[ ${BASH_VERSION} == 5* ]]", "(( RANDOM > 3 ))", "[[ $1 == x ]]",
		"arr=(a b); for x in \"${arr[@]}\"; do echo ok; done", ": ${x:=1}; [[ $x == 1 ]]",
	} {
		if got := Analyze(line).EnvTests; len(got) > 0 {
			t.Errorf("%q: env tests %v, want none", line, got)
		}
	}
}
