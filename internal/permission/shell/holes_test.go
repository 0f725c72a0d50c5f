package shell

import (
	"strings"
	"testing"
)

// Regression tests for holes 2, 4, 5 and 12 of issue 22 (the red team's
// findings in the option tables).

// TestFindActionsHiddenByDashDash: find is read-only only with the tests
// and options of its table and the actions -print, -print0, -ls and
// -printf; "--" and leading options must not hide an action.
func TestFindActionsHiddenByDashDash(t *testing.T) {
	for _, line := range []string{
		"find -- . -delete", "find -- . -fprint F", "find -- . -fprint0 F", "find -- . -fprintf F %p",
		"find -- . -fls F", "find -- . -exec rm {} ;", "find -- . -execdir rm {} +", "find -- . -ok rm {} ;",
		"find -- . -okdir rm {} ;", "find -H -- . -delete", "find -L -P -- . -delete", "find -D tree -- . -delete",
		"find -O3 -- . -delete", "find -- -delete", "find . -- -delete", "find -- . -name x -o -delete",
		"find -- . \\( -delete \\)", "find -- . ! -delete", "find -- . --dele", "find . --delete", "find -- . -dele",
		"find -- . -newer x -delete", "find -- . -unknown-primary", "find -- . -fprint", "find -- src -print -delete",
	} {
		if info, ok := readOnlyLine(t, line); ok {
			t.Errorf("%q is read-only (%s), want not read-only", line, info.Name)
		}
	}
	for _, line := range []string{"find -- . -name x", "find -L -- . -print0", "find -- . -type f -ls"} {
		if _, ok := readOnlyLine(t, line); !ok {
			t.Errorf("%q is not read-only, want read-only", line)
		}
	}
	a := Analyze("find -- . -fprint out.txt")
	if got := writeTargets(a); len(got) != 1 || got[0] != "find -fprint out.txt" {
		t.Errorf("find -fprint writes %v, want [find -fprint out.txt]", got)
	}
}

// pathOpts renders the path options of the last command: "chdir /tmp".
func pathOpts(a Analysis) []string {
	out := []string{}
	if len(a.Commands) == 0 {
		return out
	}
	for _, o := range a.Commands[len(a.Commands)-1].PathOptions {
		out = append(out, o.Access.String()+" "+o.Word.Value)
	}
	return out
}

// TestOptionValuePaths: every option value that names a path is reported
// (with what the command does with it), for wrappers and commands alike,
// whatever the spelling: glued, bundled, --opt=VALUE, abbreviated.
func TestOptionValuePaths(t *testing.T) {
	cases := []struct {
		line   string
		name   string   // the command analysed (the last one)
		paths  []string // its path options
		writes []string // the line's write targets
	}{
		{"env -C /tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"env -C/tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"env --chdir=/tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"env --chdir /tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"env --chdi=/tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"env --ch /tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"env -0C /tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"env -C sub env -C deep ls", "ls", []string{"chdir sub", "chdir deep"}, nil},
		{"xargs -a /etc/passwd echo", "echo", []string{"read /etc/passwd"}, nil},
		{"xargs -a/etc/passwd echo", "echo", []string{"read /etc/passwd"}, nil},
		{"xargs -0a /etc/passwd echo", "echo", []string{"read /etc/passwd"}, nil},
		{"xargs --arg-file=/etc/passwd echo", "echo", []string{"read /etc/passwd"}, nil},
		{"xargs --arg /etc/passwd echo", "echo", []string{"read /etc/passwd"}, nil},
		{"strace -o /tmp/x ls", "ls", []string{}, []string{"strace -o /tmp/x"}},
		{"strace -o/tmp/x ls", "ls", []string{}, []string{"strace -o /tmp/x"}},
		{"strace -fo /tmp/x ls", "ls", []string{}, []string{"strace -o /tmp/x"}},
		{"strace --output=/tmp/x ls", "ls", []string{}, []string{"strace --output /tmp/x"}},
		{"ltrace -o /tmp/x ls", "ls", []string{}, []string{"ltrace -o /tmp/x"}},
		{"command time -o /tmp/x ls", "ls", []string{}, []string{"time -o /tmp/x"}},
		{"command time --out=/tmp/x ls", "ls", []string{}, []string{"time --output /tmp/x"}},
		{"sudo -D /tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"sudo --chdir=/tmp ls", "ls", []string{"chdir /tmp"}, nil},
		{"doas -C /etc/doas.conf ls", "ls", []string{"read /etc/doas.conf"}, nil},
		{"tar -C /tmp -xf a.tar", "tar", []string{"chdir /tmp", "read a.tar"}, nil},
		{"tar -xf a.tar -Clink", "tar", []string{"read a.tar", "chdir link"}, nil},
		{"tar --directory=link -xf a.tar", "tar", []string{"chdir link", "read a.tar"}, nil},
		{"tar --dir=link -x", "tar", []string{"chdir link"}, nil},
		{"tar -xzvC link", "tar", []string{"chdir link"}, nil},
		{"tar -cf x.tar -g snap .", "tar", []string{"read x.tar"}, []string{"tar -g snap"}},
		{"git -C /tmp status", "git", []string{"chdir /tmp"}, nil},
		{"git --git-dir=gd log", "git", []string{"read gd"}, nil},
		{"git --work-tree wt status", "git", []string{"chdir wt"}, nil},
		{"make -C /tmp", "make", []string{"chdir /tmp"}, nil},
		{"make -sC link", "make", []string{"chdir link"}, nil},
		{"make --directory=link", "make", []string{"chdir link"}, nil},
		{"make --dir=link", "make", []string{"chdir link"}, nil},
		{"make -f link/Makefile", "make", []string{"read link/Makefile"}, nil},
		{"go -C link build", "go", []string{"chdir link"}, nil},
		{"foo --directory=link x", "foo", []string{"chdir link"}, nil},
		{"foo --chdir=link x", "foo", []string{"chdir link"}, nil},
		{"timeout 5 env -C link ls", "ls", []string{"chdir link"}, nil},
	}
	for _, c := range cases {
		a := Analyze(c.line)
		if a.ParseErr != nil || len(a.Commands) == 0 {
			t.Fatalf("%q: %v", c.line, a.ParseErr)
		}
		if got := a.Commands[len(a.Commands)-1].Name; got != c.name {
			t.Errorf("%q: command %q, want %q", c.line, got, c.name)
		}
		if got := pathOpts(a); strings.Join(got, ", ") != strings.Join(c.paths, ", ") {
			t.Errorf("%q: path options %q, want %q", c.line, got, c.paths)
		}
		if got := writeTargets(a); strings.Join(got, ", ") != strings.Join(c.writes, ", ") {
			t.Errorf("%q: writes %q, want %q", c.line, got, c.writes)
		}
		if len(a.Opaque) > 0 {
			t.Errorf("%q: opaque %v", c.line, a.Opaque)
		}
	}
}

// TestWrapperOptionsFindTheCommand: a wrapper's options are read as its
// getopt reads them (abbreviated long options, glued and bundled values),
// so the wrapped command is the one that really runs; an option the table
// does not know makes the line unknown.
func TestWrapperOptionsFindTheCommand(t *testing.T) {
	cases := map[string]string{
		"timeout --kill 5 10 rm x": "rm", "timeout --kill-after 5 10 rm x": "rm", "timeout -k5 10 rm x": "rm",
		"timeout --sig KILL 5 rm x": "rm", "timeout --sig=KILL 5 rm x": "rm", "timeout -vs KILL 5 rm x": "rm",
		"nice --adj 5 rm x": "rm", "nice --adjustment 5 rm x": "rm", "nice -n5 rm x": "rm", "nice -5 rm x": "rm",
		"stdbuf --out L rm x": "rm", "stdbuf -oL -e0 rm x": "rm", "stdbuf --output=L rm x": "rm",
		"xargs --max-args 1 rm": "rm", "xargs -n1 -P 4 rm": "rm", "xargs --del , rm": "rm",
		"env -u X rm x": "rm", "env --unset X rm x": "rm", "env -- rm x": "rm", "env - rm x": "rm",
		"ionice -c 3 rm x": "rm", "setsid -f rm x": "rm", "strace -e trace=open -s 100 rm x": "rm",
		"sudo -u root rm x": "rm", "watch -n 1 rm x": "rm",
	}
	for line, want := range cases {
		a := Analyze(line)
		if got := names(a); got[len(got)-1] != want {
			t.Errorf("%q: commands %v, want the last to be %q", line, got, want)
		}
		if len(a.Opaque) > 0 {
			t.Errorf("%q: opaque %v", line, a.Opaque)
		}
	}
	for _, line := range []string{"timeout --bogus 5 rm x", "nice --frob 5 rm x", "stdbuf -q rm x", "env --frob=1 rm x",
		"xargs --frob rm", "nohup -x rm", "env -C $D ls"} {
		if a := Analyze(line); len(a.Opaque) == 0 && !hasNonLiteralPath(a) {
			t.Errorf("%q: not reported as unknown (%v)", line, names(a))
		}
	}
}

func hasNonLiteralPath(a Analysis) bool {
	for _, c := range a.Commands {
		for _, o := range c.PathOptions {
			if !o.Word.Literal {
				return true
			}
		}
	}
	return false
}

// TestGitConfigWrites: git config is read-only only for its get and list
// forms; every other form writes the repository's config (or the global,
// system or named file), which the line reports as a write.
func TestGitConfigWrites(t *testing.T) {
	reads := []string{"git config --get user.name", "git config --get-all remote.origin.url",
		"git config --get-regexp 'user.*'", "git config --list", "git config -l", "git config --list --show-origin",
		"git config --show-scope --get user.name", "git config --show-origin -l", "git config get user.name",
		"git config get --all user.name", "git config list", "git config list --show-origin", "git config --local --list",
		"git config --global --get user.name", "git config -z --list", "git config --name-only --list",
		"git config --type=bool --get core.bare", "git config --bool --get core.bare", "git config --get --default=x a.b"}
	for _, line := range reads {
		if _, ok := readOnlyLine(t, line); !ok {
			t.Errorf("%q is not read-only, want read-only", line)
		}
		if w := writeTargets(Analyze(line)); len(w) > 0 {
			t.Errorf("%q writes %v, want nothing", line, w)
		}
	}
	writes := map[string]string{
		"git config user.name x":                   ".git/config",
		"git config user.name":                     ".git/config",
		"git config --add a.b c":                   ".git/config",
		"git config --ad a.b c":                    ".git/config",
		"git config --unset a.b":                   ".git/config",
		"git config --unse a.b":                    ".git/config",
		"git config --unset-all a.b":               ".git/config",
		"git config --replace-all a.b c":           ".git/config",
		"git config --rename-section a b":          ".git/config",
		"git config --remove-section a":            ".git/config",
		"git config --edit":                        ".git/config",
		"git config -e":                            ".git/config",
		"git config --get a.b --unset":             ".git/config",
		"git config --list --add a.b c":            ".git/config",
		"git config --get-a a.b":                   ".git/config",
		"git config set a.b c":                     ".git/config",
		"git config unset a.b":                     ".git/config",
		"git config --global user.name x":          "~/.gitconfig",
		"git config --glo core.fsmonitor x":        "~/.gitconfig",
		"git config --global --add core.pager x":   "~/.gitconfig",
		"git config set --global core.fsmonitor x": "~/.gitconfig",
		"git config --system a.b c":                "/etc/gitconfig",
		"git config --sys a.b c":                   "/etc/gitconfig",
		"git config --file ../x a.b c":             "../x",
		"git config --file=cfg a.b c":              "cfg",
		"git config --fi=cfg a.b c":                "cfg",
		"git config -f cfg a.b c":                  "cfg",
		"git config -fcfg a.b c":                   "cfg",
		"git config --worktree a.b c":              ".git/config.worktree",
		"git -C sub config a.b c":                  ".git/config",
		"git --no-pager config a.b c":              ".git/config",
	}
	for line, want := range writes {
		if info, ok := readOnlyLine(t, line); ok {
			t.Errorf("%q is read-only (%s), want a write", line, info.Name)
		}
		found := false
		for _, w := range Analyze(line).Writes {
			found = found || w.Word.Value == want
		}
		if !found {
			t.Errorf("%q writes %v, want %s among them", line, writeTargets(Analyze(line)), want)
		}
	}
}

// TestSedScriptUnknown: a sed script that runs commands or reads or
// writes other files (e, w, W, r, R, s///e, s///w), a script read from a
// file and a script built at run time are unknown: never read-only, and
// the line is opaque so that no rule allows it.
func TestSedScriptUnknown(t *testing.T) {
	for _, line := range []string{
		"sed 'e rm -rf ~' f", "sed -n '1e touch x' f", "sed 's/a/b/e' f", "sed 's/a/b/w out' f", "sed 's|a|b|gw out' f",
		"sed 's/a/b/3e' f", "sed 'w out' f", "sed 'W out' f", "sed 'r /etc/passwd' f", "sed 'R /etc/passwd' f",
		"sed -e p -e 'e ls' f", "sed --expression='e ls' f", "sed --expr='e ls' f", "sed --expression 'e ls' f",
		"sed -ne 'e ls' f", "sed -n -e'w x' f", "sed -f s.sed f", "sed --file=s.sed f", "sed --fi s.sed f",
		"sed -nf s.sed f", "sed \"$X\" f", "sed '/x/e ls' f", "sed '1!e ls' f", "sed '1,3{e ls\n}' f",
		"sed 'y/a/b/;e ls' f", "sed '$!N;e' f", "sed -i 'e rm -rf ~' f.go", "sed -i 's/a/b/w /tmp/x' f.go",
		"sed -i.bak '1e id' f", "sed 's/a/b/;;e id' f", "sed '0~3 e id' f", "sed '/a/I,+2 e id' f", "sed '\\,x,e id' f",
		"sed 'p;e id' f", "sed -s 'p' f -e 'e id'", "sed '1 { e id\n}' f", "sed 's/a\\/b/c/e' f", "sed ':a;e id' f",
		"sed 'b end;e id' f", "sed 'v;e id' f", "sed 'l 5;e id' f", "sed 'q;e id' f", "sed 'Z' f", "sed 's/a/b' f",
		"sed --bogus p f", "timeout 5 sed 'e id' f", "find . -exec sed 'e id' {} ;",
	} {
		a := Analyze(line)
		if len(a.Opaque) == 0 {
			t.Errorf("%q: not opaque, want unknown", line)
		}
		for _, c := range a.Commands {
			if c.Base() != "sed" {
				continue
			}
			if _, ok := ReadOnly(c); ok {
				t.Errorf("%q: sed is read-only, want unknown", line)
			}
		}
	}
	for _, line := range []string{
		"sed -n '1,20p' f", "sed 's/a/b/g' f", "sed -E 's/(a)/\\1/' f", "sed '/^#/d' f", "sed 's/e/w/' f",
		"sed 's/x/y/;p' f", "sed -n '/start/,/end/p' f", "sed '1i header' f", "sed 'a text with e and w' f",
		"sed '$a\\' f", "sed 's,a/b,c,g' f", "sed -e 's/a/b/' -e 's/c/d/' f", "sed -n '$=' f", "sed 's/a/b/gI' f",
		"sed '1~2d' f", "sed -n '/a/{p;q}' f", "sed 'y/abc/xyz/' f", "sed ':a;N;$!ba;s/\\n/ /g' f", "sed --quiet -e p f",
		"sed -i 's/a/b/' f.go", "sed '# comment\np' f", "sed 's/a/b/2p' f",
	} {
		if a := Analyze(line); len(a.Opaque) > 0 {
			t.Errorf("%q: opaque %v, want known", line, a.Opaque)
		}
	}
}

// TestEverydayReadOnlyAfterOptions: the everyday commands stay read-only
// with the stricter option tables.
func TestEverydayReadOnlyAfterOptions(t *testing.T) {
	for _, line := range []string{
		"find . -name '*.go' -print", "find . -type f -newer x", "git config --get user.name", "sed -n '1,20p' f",
		"tar -tf a.tar", "env LANG=C ls", "timeout 5 ls", "nice ls", "xargs -0 echo", "find . -name '*.go'",
		"find src -type f -name '*.go' -not -path '*/vendor/*' -print0", "find . -maxdepth 2 -type d -ls",
		"git config --list", "git config -l", "git config get user.email", "sed 's/a/b/g' f", "sed -e p -n f",
		"tar -tvf a.tar", "tar -tzf a.tar.gz", "tar tf a.tar", "tar --list --file=a.tar", "tar -tf a.tar -C sub",
		"env LC_ALL=C sort f", "env TZ=UTC date", "env -C sub ls", "timeout -s KILL 10 grep -rn x .",
		"timeout 5s git status", "nice -n 10 wc -l f", "stdbuf -oL cat f", "xargs echo", "xargs -n1 echo",
		"xargs -a list.txt echo", "timeout 5 nice ls",
	} {
		if _, ok := readOnlyLine(t, line); !ok {
			a := Analyze(line)
			t.Errorf("%q is not read-only (commands %+v, opaque %v)", line, a.Commands, a.Opaque)
		}
	}
}

// TestReadOnlyAfterWrappersRefused: a wrapper keeps a command read-only
// only with the options of its allowlist.
func TestReadOnlyAfterWrappersRefused(t *testing.T) {
	for _, line := range []string{
		"env -i ls", "env -u GIT_CONFIG_COUNT git status", "env FOO=1 ls", "env PATH=/tmp ls", "env -S 'ls' x",
		"env GIT_DIR=x git status", "nohup ls", "sudo ls", "strace ls", "strace -o x ls", "watch ls", "xargs cat",
		"xargs -p echo", "xargs sh -c 'ls'", "command time -o x ls", "timeout --bogus 5 ls", "exec ls",
		"busybox ls", "env --block-signal ls", "tar -tf host:a.tar", "tar -tf a.tar --to-command=sh",
		"tar -tf a.tar -I sh", "tar -xf a.tar", "tar -cf a.tar .", "tar tfv host:x", "tar --tf a.tar", "tar -f a.tar",
		"tar -tf a.tar --rsh-command=sh", "tar -t --file=h:x",
	} {
		if info, ok := readOnlyLine(t, line); ok {
			t.Errorf("%q is read-only (%s), want not read-only", line, info.Name)
		}
	}
}
