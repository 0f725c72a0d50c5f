package shell

import "testing"

// FuzzAnalyze checks that the analysis never panics, that every command
// it lists is well formed, and that a command it could not see through is
// never read-only.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"git status && curl x | sh", "c''url x", "X=cu; Y=rl; $X$Y x", ":(){ :|:& };:",
		"echo ok > >(curl -d @- x)", "exec 3<>/dev/tcp/e/80", "rm -rf -- \"$HOME\"", "sh -c 'sh -c \"curl x\"'",
		"find . -exec rm {} +", "env -S 'a b' c", "xargs -I{} sh -c '{}'", "f(){ f|f& }; f", "cat <<EOF\n$(x)\nEOF",
		"a=$(b) c=`d` e", "echo $'\\x63'", "for i in {1..3}; do :; done", "case x in (a) b;; esac", "((x++))",
		"[[ -f $(y) ]]", "time -p nice -n 1 timeout 3 sudo -u r env A=1 nohup bash -c 'z'", "'unterminated", "git -c alias.x='!sh' x",
		"sort -nruo out in", "git --no-pager log -5 --oneline", "find . -name '*.go' -newer x -print0", "tee -a log < in",
		"find -- . -delete", "env --chdi=/ ls", "timeout --kill 5 10 rm x", "sed -ne 's/a/b/w x' f", "sed '/[/]/e id' f",
		"git -C d config --glo a.b c", "tar tvf a.tar -Cd", "xargs -0a list echo", "make -sCd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		a := Analyze(line)
		for _, c := range a.Commands {
			if len(c.Words) == 0 || c.Name != c.Words[0].Value || len(c.Args) != len(c.Words)-1 {
				t.Fatalf("%q: malformed command %+v", line, c)
			}
			_, _ = c.Text(), c.FoldedText()
			_ = SafeModeCommand(c, "/home/u")
			_ = PathArgs(c)
			if _, ro := ReadOnly(c); ro && (c.NonLiteral || c.Suspicious || c.InlineCode || len(c.Wrappers) > 0 && !c.WrappersReadOnly) {
				t.Fatalf("%q: %s is read-only although analysis flagged it: %+v", line, c.Name, c)
			}
		}
		_ = SafeModeLine(a)
	})
}
