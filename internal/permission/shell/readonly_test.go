package shell

import "testing"

func readOnlyLine(t *testing.T, line string) (ReadOnlyInfo, bool) {
	t.Helper()
	a := Analyze(line)
	if a.ParseErr != nil || len(a.Commands) == 0 {
		t.Fatalf("%q: %d commands, parse error %v", line, len(a.Commands), a.ParseErr)
	}
	return ReadOnly(a.Commands[0])
}

func TestReadOnlyAllowed(t *testing.T) {
	for _, line := range []string{
		"ls -la", "ls -lah src", "ls -1", "ls -R", "ls --color=auto", "ls -ltr", "ls -d */", "cat -n f", "cat -- -f",
		"head -n 20 f", "head -20 f", "head -n -5 f", "tail -n 50 f", "tail -f log", "tail +5 f", "wc -l f",
		"grep -rn foo .", "grep -E 'a|b' f", "grep -e -x f", "grep --include=*.go -r x .", "grep -A3 -B2 x f",
		"grep -c x f", "grep -5 x f", "egrep -i x f", "rg -n foo", "rg -t go foo", "rg --files", "rg -g '*.go' x",
		"rg -l x", "rg -uu x", "rg -C 3 x", "rg --json x", "rg --type-add 'web:*.html' x",
		"find . -name '*.go'", "find . -type f -name x -print", "find . -maxdepth 2 -type d", "find . -mtime -7",
		"find . -newer x", "find src -name '*.go' -not -path '*/vendor/*'", "find . \\( -name a -o -name b \\) -print0",
		"find -L . -perm -u+x", "find . -printf '%p\\n'", "tree -L 2", "tree -a -I node_modules", "tree -aL 2",
		"stat f", "stat -c %s f", "file f", "file -bi f", "du -sh .", "du -h -d 1", "df -h", "basename a/b",
		"dirname a/b", "realpath x", "readlink -f x", "which go", "uname -a", "date", "date +%s", "date -u +%Y",
		"date -d yesterday +%F", "cut -d: -f1 f", "cut -c1-10 f", "tr a-z A-Z", "tr -d '\\n'", "sort -n f",
		"sort -u f", "sort -k2 -t, f", "sort -rn", "sort -nru f", "diff a b", "diff -u a b", "diff -ruN a b",
		"cmp a b", "comm -12 a b", "nl f", "od -c f", "hexdump -C f", "column -t f", "sha256sum f", "md5sum f",
		"uniq -c f", "uniq f", "xxd f", "xxd -l64 f", "xxd -ps f", "echo rm -rf /",
		"printf '%s\\n' x", "printf -- -v", "test -f x", "true", "false x", "pwd", "pwd -P", "cd sub",
		"git status", "git status -sb", "git status --porcelain=v2", "git status -uno", "git diff", "git diff --stat",
		"git diff --cached", "git diff HEAD~1 -- x", "git diff --name-only", "git diff -U5 --word-diff",
		"git log --oneline -10", "git log -p -1", "git log --graph --oneline --all", "git log --format=%H -n 1",
		"git log --since=2.weeks", "git log -S foo", "git --no-pager log", "git -P log", "git show HEAD",
		"git show --stat HEAD", "git show HEAD:file", "git rev-parse HEAD", "git rev-parse --abbrev-ref HEAD",
		"git rev-parse --show-toplevel", "git ls-files", "git ls-files -m", "git blame -L 1,10 f", "git blame f",
		"git describe --tags", "git shortlog -sn", "git grep -n foo", "git grep -e -x", "git branch", "git branch -a",
		"git branch -vv", "git branch --show-current", "git branch --list 'feat/*'", "git branch --contains HEAD",
		"git remote", "git remote -v", "git tag", "git tag -l 'v*'", "go version", "go env", "go env GOPATH",
		"go env -json", "sed -n 1p f", "xargs", "nice cat f",
	} {
		if _, ok := readOnlyLine(t, line); !ok {
			t.Errorf("%q is not read-only, want read-only", line)
		}
	}
}

func TestReadOnlyRefused(t *testing.T) {
	for _, line := range []string{
		// Options that write, run programs or change the system.
		"sort -o x f", "sort -nruo x f", "sort -nruox f", "sort --output=x f", "sort -T /tmp f",
		"sort --compress-program=gzip f", "find . -delete", "find . -exec ls {} \\;", "find . -execdir ls {} +",
		"find . -ok ls {} \\;", "find . -fprint x", "find . -fls x", "find . -fprintf x %p", "rg --pre cat x",
		"rg --pre-glob '*' x", "rg --hostname-bin=sh x", "rg -z x", "tree -o x", "tree -R", "tree -ofoo",
		"file -C", "file --compile", "date -s 2020-01-01", "date --set=x", "date 010100002030",
		"sha256sum -c sums", "printf -v PATH /tmp", "printf '%s' -v x", "xxd -r f", "xxd -revert f", "uniq a b", "uniq a -c", "xxd a b", "xxd a -p",
		"git diff --output=x", "git log --output x", "git diff --ext-diff", "git log --textconv",
		"git log --show-signature", "git diff -O order", "git grep -O", "git grep --open-files-in-pager=vim x",
		"git grep --textconv x", "git blame --contents x f", "git branch x", "git branch -D x", "git branch -m x",
		"git branch -f x", "git branch -u origin/x", "git branch --set-upstream-to=x", "git tag v1", "git tag -d v1",
		"git tag -n", "git remote add x y", "git remote show x", "git remote -v show x", "git -C x status",
		"git -c core.pager=cat log", "git --git-dir=x status", "git push", "git commit -m x", "git", "go",
		"go env -w X=1", "go env --w X=1", "go env -u X", "go version -m x", "go build",
		// Abbreviated long options are never read-only: "--outp" is --output.
		"sort --outp x f", "sort --o=x f", "sort --compress-p=sh f", "date --se=x", "ls --al", "git log --outp=x",
		// Commands the tables do not know, or cannot vouch for.
		"awk '{print}' f", "less f", "env", "printenv", "./ls", "/bin/ls", "tee f", "cat $HOME/x", "FOO=1 cat f",
		"nohup cat f",
	} {
		if info, ok := readOnlyLine(t, line); ok {
			t.Errorf("%q is read-only (%s), want not read-only", line, info.Name)
		}
	}
}

func TestReadOnlyInfo(t *testing.T) {
	cases := map[string]ReadOnlyInfo{
		"ls -la":           {Name: "ls"},
		"git status":       {Name: "git status", RootOnly: true},
		"git -P branch -a": {Name: "git branch (list)", RootOnly: true},
		"git tag -l":       {Name: "git tag (list)", RootOnly: true},
		"git remote -v":    {Name: "git remote (list)", RootOnly: true},
		"go env GOPATH":    {Name: "go env"},
		"go version":       {Name: "go version"},
	}
	for line, want := range cases {
		if got, ok := readOnlyLine(t, line); !ok || got != want {
			t.Errorf("%q: %+v %v, want %+v", line, got, ok, want)
		}
	}
}
