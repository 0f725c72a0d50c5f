package shell

import (
	"slices"
	"strings"
	"testing"
)

// want says what the analysis must find in a hostile line.
type want uint8

const (
	wantTouch      want = iota + 1 // the hidden "touch" is listed as a command
	wantOpaque                     // the line is unknown (Opaque)
	wantSuspicious                 // a command is Suspicious (no rule may allow it)
	wantEnv                        // the line changes the environment of later commands
)

func (w want) String() string {
	return [...]string{"", "touch listed", "opaque", "suspicious", "env change"}[w]
}

// found reports whether the analysis shows what w asks for.
func (w want) found(a Analysis) bool {
	switch w {
	case wantTouch:
		return slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool { return c.Base() == "touch" })
	case wantOpaque:
		return len(a.Opaque) > 0
	case wantSuspicious:
		return slices.ContainsFunc(a.Commands, func(c SimpleCommand) bool {
			_, ro := ReadOnly(c)
			return c.Suspicious && !ro
		})
	case wantEnv:
		return len(a.EnvChanges) > 0
	}
	return false
}

type holeCase struct {
	line string
	want want
}

// walkHoleCases are the lines of holes 1 (substitutions and expressions
// the walk missed), 7 (environment prefixes) and 8 (cd) of issue 22, with
// variations; interpHoleCases (interp_test.go) are those of hole 6.
var walkHoleCases = []holeCase{
	// 1: command substitution anywhere in the tree.
	{"a[$(touch ~/p)]=1", wantTouch},
	{"a[$(touch p)]+=x", wantTouch},
	{"a[`touch p`]=1", wantTouch},
	{"declare a[$(touch p)]=1", wantTouch},
	{"local a[$(touch p)]=1", wantTouch},
	{"export a[$(touch p)]=1", wantTouch},
	{"a=([$(touch p)]=1)", wantTouch},
	{"(( x[$(touch p)] ))", wantTouch},
	{"echo $(( x[$(touch p)] ))", wantTouch},
	{"[[ x[$(touch p)] -eq 1 ]]", wantTouch},
	{"echo ${a[$(touch p)]}", wantTouch},
	{"echo ${x:-$(touch p)}", wantTouch},
	{"echo ${x/$(touch p)/y}", wantTouch},
	{"echo ${x:$(touch p)}", wantTouch},
	{"echo hi > \"$(touch p)\"", wantTouch},
	{"cat <<EOF\n$(touch p)\nEOF", wantTouch},
	{"cat <<< \"$(touch p)\"", wantTouch},
	{"for ((i=$(touch p); i<1; i++)); do :; done", wantTouch},
	{"f() { :; } > $(touch p)", wantTouch},
	// 1: strings bash evaluates as arithmetic or as a variable name.
	{"(( x['$(touch p)'] ))", wantOpaque},
	{"[[ 'x[$(touch p)]' -eq 1 ]]", wantOpaque},
	{"[[ \"x[\\$(touch p)]\" -gt 0 ]]", wantOpaque},
	{"[ 'x[$(touch p)]' -eq 1 ]", wantOpaque},
	{"test 'x[$(touch p)]' -ne 1", wantOpaque},
	{"let 'x[$(touch p)]=1'", wantOpaque},
	{"let \"x[\\$(touch p)]+=1\"", wantOpaque},
	{"let x[y]=1", wantOpaque},
	{"v='x[$(touch p)]'; (( v ))", wantOpaque},
	{"v='x[$(touch p)]'; echo $((v))", wantOpaque},
	{"v='x[$(touch p)]'; echo $(( $v + 1 ))", wantOpaque},
	{"v='x[$(touch p)]'; [[ v -eq 1 ]]", wantOpaque},
	{"v=$(cat f); [[ $v -gt 0 ]]", wantOpaque},
	{"v=$(cat f); [[ \"$v\" -gt 0 ]]", wantOpaque},
	{"read v < f; (( v > 1 ))", wantOpaque},
	{"v=$(cat f); a=(1); echo ${a[v]}", wantOpaque},
	{"v=$(cat f); a=(1); echo ${a[$v]}", wantOpaque},
	{"v=$(cat f); : ${v:v}", wantOpaque},
	{"v=$(cat f); : ${v:0:v}", wantOpaque},
	{"v=$(cat f); x=(); x[v]=1", wantOpaque},
	{"v=$(cat f); a+=([v]=1)", wantOpaque},
	{"v=$(cat f); case 1 in $((v))) ;; esac", wantOpaque},
	{"v=$(cat f); for ((i=v; i<1; i++)); do :; done", wantOpaque},
	{"echo $(( $(cat f) ))", wantOpaque},
	{"[[ $(cat f) -eq 1 ]]", wantOpaque},
	{"(( COLUMNS > 80 ))", wantOpaque},
	{"x=1; eval 'x=$(cat f)'; (( x ))", wantOpaque},
	{"x=1; read x < f; (( x ))", wantOpaque},
	{"for v in $(cat f); do (( v )); done", wantOpaque},
	{"f() { (( $1 )); }; f 1", wantOpaque},
	{"bash -c 'echo $(($1))' x 'a[$(touch p)]'", wantOpaque},
	{"[[ -v 'x[$(touch p)]' ]]", wantOpaque},
	{"[[ -v $name ]]", wantOpaque},
	{"test -v 'x[$(touch p)]'", wantOpaque},
	{"[ -v 'x[$(touch p)]' ]", wantOpaque},
	{"printf -v 'x[$(touch p)]' y", wantOpaque},
	{"read 'x[$(touch p)]' <<< y", wantOpaque},
	{"mapfile 'x[$(touch p)]' < f", wantOpaque},
	{"unset 'x[$(touch p)]'", wantOpaque},
	{"declare 'x[$(touch p)]=1'", wantOpaque},
	{"declare \"$v\"", wantOpaque},
	{"builtin declare 'x[$(touch p)]=1'", wantOpaque},
	{"declare -i n; n='x[$(touch p)]'", wantOpaque},
	{"declare -n r='a[$(touch p)]'; echo $r", wantOpaque},
	{"x='a[$(touch p)]'; echo ${!x}", wantOpaque},
	{"x='a[$(touch p)]'; echo ${!x@Q}", wantOpaque},
	{"x='$(touch p)'; echo ${x@P}", wantOpaque},
	// 7: environment assignments that redirect a command.
	{"GIT_DIR=x git log", wantSuspicious},
	{"GIT_COMMON_DIR=x git log", wantSuspicious},
	{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='touch p' git log", wantSuspicious},
	{"GIT_CONFIG_GLOBAL=x git log", wantSuspicious},
	{"GIT_SEQUENCE_EDITOR='touch p' git status", wantSuspicious},
	{"GIT_PROXY_COMMAND='touch p' git status", wantSuspicious},
	{"LD_PRELOAD=./x.so ls", wantSuspicious},
	{"PATH=. ls", wantSuspicious},
	{"BASH_ENV=x bash -c true", wantSuspicious},
	{"PAGER='touch p' git log", wantSuspicious},
	{"EDITOR='touch p' git status", wantSuspicious},
	{"TAR_OPTIONS='--to-command=touch p' tar -tf a.tar", wantSuspicious},
	{"GCONV_PATH=. cat f", wantSuspicious},
	{"FOO=1 ls", wantSuspicious},
	{"LANG=C FOO=1 ls", wantSuspicious},
	{"env GIT_COMMON_DIR=x git log", wantSuspicious},
	{"env FOO=1 ls", wantSuspicious},
	{"env -u X FOO=1 ls", wantSuspicious},
	{"sudo GIT_DIR=x git log", wantSuspicious},
	{"export GIT_COMMON_DIR=x; git log", wantEnv},
	{"export FOO=1; ls", wantEnv},
	{"declare -x FOO=1; ls", wantEnv},
	{"GIT_COMMON_DIR=x; git log", wantEnv},
	{"FOO=bar; ls", wantEnv},
	{"foo=1; export foo; ls", wantEnv},
	{"set -a; foo=1; ls", wantEnv},
	{"for PATH in .; do ls; done", wantEnv},
	{": ${PATH:=.}; ls", wantEnv},
	// 8: cd targets the analysis cannot confine.
	{"CDPATH=/etc; cd ssh; cat x", wantOpaque},
	{"CDPATH=/etc cd ssh", wantOpaque},
	{"export CDPATH=/etc; cd ssh", wantOpaque},
	{"HOME=/etc; cd; ls", wantOpaque},
	{"PWD=/etc/ssh; cd ..", wantOpaque},
	{"OLDPWD=/etc; cd -", wantOpaque},
	{"shopt -s cdable_vars; x=/etc; cd x", wantOpaque},
}

func TestWalkHoles(t *testing.T) { checkHoleCases(t, walkHoleCases) }

func checkHoleCases(t *testing.T, cases []holeCase) {
	t.Helper()
	for _, tc := range cases {
		a := Analyze(tc.line)
		if a.ParseErr != nil {
			t.Errorf("%q: parse error %v", tc.line, a.ParseErr)
			continue
		}
		if !tc.want.found(a) {
			t.Errorf("%q: want %s, got commands %q opaque %q env %q", tc.line, tc.want, cmdTexts(a), a.Opaque, a.EnvChanges)
		}
		if lineKnownReadOnly(a) {
			t.Errorf("%q: judged read-only", tc.line)
		}
	}
}

// cmdTexts renders the commands with their suspicion, for messages.
func cmdTexts(a Analysis) []string {
	out := []string{}
	for _, c := range a.Commands {
		s := c.Text()
		if c.Suspicious {
			s += " (suspicious)"
		}
		out = append(out, s)
	}
	return out
}

// lineKnownReadOnly reports a line the analysis fully understands and
// whose every command is read-only.
func lineKnownReadOnly(a Analysis) bool {
	if a.ParseErr != nil || len(a.Opaque) > 0 || a.NonLiteral || len(a.EnvChanges) > 0 || len(a.Writes) > 0 {
		return false
	}
	for _, c := range a.Commands {
		if _, ok := ReadOnly(c); !ok {
			return false
		}
	}
	return true
}

// TestWalkBenign lists lines with arithmetic, tests, arrays and harmless
// variables that stay fully understood and read-only.
func TestWalkBenign(t *testing.T) {
	for _, line := range []string{
		"a[0]=1", "a[0]=1; echo ok", "a=(1 2 3)", "a[1+2]=x", "echo $((1+2))", "echo $(( (7 * 6) % 5 ))",
		"(( 1 + 2 ))", "for ((i=0; i<3; i++)); do echo hi; done", "[[ $# -eq 0 ]]", "[[ -v HOME ]]",
		"test -v HOME", "[ -v a[0] ]", "[[ -f README.md ]]", "x=5; (( x > 1 ))", "for i in 1 2 3; do (( i > 1 )); done",
		"(( i++ ))", "let i=1+2", "[ 1 -eq 1 ]", "[[ 10 -gt 2 ]]", "x=$((1+2)); (( x > 2 ))",
		"for i in {1..3}; do (( i )); done", "[[ $x == y ]]", "[[ -n $x ]]", "LANG=C ls", "LC_ALL=C sort f",
		"TZ=UTC date", "NO_COLOR=1 git status", "COLUMNS=80 ls", "TERM=dumb git log --oneline -5",
		"x=1; ls", "true $(( 2 ** 3 ))", "[ -f README.md ] && cat README.md",
	} {
		a := Analyze(line)
		if !lineKnownReadOnly(a) {
			t.Errorf("%q: not read-only: commands %q opaque %q env %q", line, cmdTexts(a), a.Opaque, a.EnvChanges)
		}
	}
}

// TestWalkKnownNotReadOnly lists lines that stay analysable (not opaque)
// although they are not read-only.
func TestWalkKnownNotReadOnly(t *testing.T) {
	for _, line := range []string{
		"echo ${a[0]} ${a[@]} ${!a[@]} ${x:0:2} ${x:-d} ${!BASH*} ${#x}", "CGO_ENABLED=0 go build",
		"find . -exec grep -l x {} +", "[ \"$#\" -eq 0 ]", "xargs -I{} cat {}", "bash script.sh", "sh -c 'echo $1' x y",
	} {
		if a := Analyze(line); len(a.Opaque) > 0 || a.ParseErr != nil {
			t.Errorf("%q: opaque %q, parse %v", line, a.Opaque, a.ParseErr)
		}
	}
	if !strings.Contains(strings.Join(cmdTexts(Analyze("CGO_ENABLED=0 go build")), " "), "suspicious") {
		t.Error("an environment prefix off the harmless list must make the command suspicious")
	}
}
