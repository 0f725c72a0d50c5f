package permission

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 43, part 3, class 1: options whose value is a file listing more
// inputs, judged by the policy in every mode.

// TestListFileOptionsNeverAllowed: a command given a file that lists more
// inputs (--files0-from, -T, @argfile, xargs -a, sha256sum -c, a list on
// standard input, ...) is unknown in every mode: denied in plan mode,
// asked in ask and yolo mode, and allowed by no rule, while the list
// itself names a file outside the workspace.
func TestListFileOptionsNeverAllowed(t *testing.T) {
	f := newFixture(t)
	secret := filepath.Join(f.outside, "secret.txt")
	mustWrite(t, filepath.Join(f.root, "list"), secret+"\x00"+filepath.Join(f.home, ".ssh", "id_rsa")+"\x00")
	mustWrite(t, filepath.Join(f.root, "names.txt"), secret+"\n/proc/self/environ\n")
	mustWrite(t, filepath.Join(f.root, "sums"), "0000  "+secret+"\n")
	lines := []string{
		"sort --files0-from=list", "sort --files0-from list", "sort -n --files0=list", "wc --files0-from=list",
		"wc -l --files0-from list", "du -s --files0-from=list", "find -files0-from list -print", "find -files0-from list",
		"tar -tf x.tar -T names.txt", "tar -tvT names.txt -f x.tar", "tar tfT x.tar names.txt", "tar -tf x.tar --files-from=names.txt",
		"tar -cf out.tar -T names.txt", "bsdtar -tf x.tar -T names.txt", "file -f names.txt", "file --files-from names.txt",
		"sha256sum -c sums", "md5sum --check sums", "xargs -a names.txt cat", "xargs --arg-file=names.txt grep -h x",
		"xargs cat < names.txt", "cat names.txt | xargs cat", "cat names.txt | xargs -I{} head -1 {}",
		"rsync -a --files-from=names.txt / sub/", "git add --pathspec-from-file=names.txt", "gcc @names.txt",
		"javac @names.txt", "7z a out.7z @names.txt", "zip out.zip -@ < names.txt", "cpio -o < names.txt > sub/o.cpio",
		"cat list | sort --files0-from=-", "sort --files0-from=- < list", "find . -print0 | du --files0-from=- -s",
		"git ls-files -z | wc -l --files0-from=-", "tar -tf x.tar -T - < names.txt", "timeout 5 sort --files0-from=list",
		"env -C sub wc --files0-from=../list", "bash -c 'sort --files0-from=list'", "echo $(sort --files0-from=list)",
		"mytool --files-from=names.txt", "sort --files0-from=link_in", "wc --files0-from=/dev/stdin < list",
	}
	mustSymlink(t, filepath.Join(f.root, "list"), filepath.Join(f.root, "link_in"))
	rules := []Rule{rule(t, Allow, "run_command(*)")}
	for _, mode := range []Mode{ModePlan, ModeAsk, ModeAutoEdit, ModeYolo} {
		p := newPolicy(t, f, mode, true)
		ruled := newPolicy(t, f, mode, true, rules...)
		for _, line := range lines {
			v := p.Check(execReq(line))
			want := Ask
			if mode == ModePlan {
				want = Deny
			}
			if v.Decision != want {
				t.Errorf("%s %q: %s (%s: %s), want %s", mode, line, v.Decision, v.Rule, v.Reason, want)
			}
			if rv := ruled.Check(execReq(line)); rv.Decision == Allow {
				t.Errorf("%s %q: allowed by the rule %s", mode, line, rv.Rule)
			}
		}
	}
	// The list's own path is still confined: a protected list is denied.
	yolo := newPolicy(t, f, ModeYolo, true)
	for _, line := range []string{"sort --files0-from=/proc/self/environ", "tar -tf x.tar -T ~/.ssh/id_rsa",
		"xargs -a /proc/self/environ cat", "gcc @/proc/self/environ", "sha256sum -c ~/.ssh/id_rsa"} {
		if v := yolo.Check(execReq(line)); v.Decision != Deny {
			t.Errorf("yolo %q: %s (%s), want deny", line, v.Decision, v.Reason)
		}
	}
	// A list option asks with a reason that names it.
	v := newPolicy(t, f, ModeAsk, true).Check(execReq("sort --files0-from=list"))
	if !strings.Contains(v.Reason, "--files0-from") || !strings.Contains(v.Reason, "no rule can allow it") {
		t.Errorf("reason %q does not name the list option", v.Reason)
	}
}

// TestListFileEverydayAllowed: the everyday commands near the class stay
// allowed in plan mode.
func TestListFileEverydayAllowed(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"file", "a.go", "b.go", "list", "data.json", "package.json"} {
		mustWrite(t, filepath.Join(f.root, name), "x\n")
	}
	plan := newPolicy(t, f, ModePlan, false)
	for _, line := range []string{"sort file", "sort -u file", "wc -l *.go", "du -sh .", "tar -tf x.tar", "tar tvf x.tar",
		"find . -name '*.go' -print", "file file", "sha256sum file", "xargs -a list echo", "find . -name x | xargs -0 echo",
		"grep -f list file", "jq . data.json", "jq -r .name package.json", "diff --from-file=file a.go"} {
		if v := plan.Check(execReq(line)); v.Decision != Allow {
			t.Errorf("plan %q: %s (%s: %s), want allow", line, v.Decision, v.Rule, v.Reason)
		}
	}
}

// TestFileOptionsConfinedThroughLinks: the option values of read-only
// commands that name a file they read are confined like arguments, glued
// too: date -fLINK printed the lines of a file outside the workspace.
func TestFileOptionsConfinedThroughLinks(t *testing.T) {
	f := newFixture(t)
	mustWrite(t, filepath.Join(f.root, "a"), "x\n")
	mustSymlink(t, filepath.Join(f.outside, "secret.txt"), filepath.Join(f.root, "leak"))
	plan := newPolicy(t, f, ModePlan, true)
	for _, line := range []string{"date -fleak", "date -f leak", "date -rleak", "date --reference=leak", "date --file=leak",
		"hexdump -fleak a", "hexdump --format-file=leak a", "sort --random-source=leak a", "tree --infofile=leak",
		"tree --gitfile=leak", "git blame --ignore-revs-file=leak a", "grep -fleak a", "du -Xleak ."} {
		if v := plan.Check(execReq(line)); v.Decision == Allow {
			t.Errorf("plan %q: allowed (%s), want it confined", line, v.Reason)
		}
	}
	for _, line := range []string{"date -f a", "date -r a", "hexdump -C a", "sort a", "tree -L 1"} {
		if v := plan.Check(execReq(line)); v.Decision != Allow {
			t.Errorf("plan %q: %s (%s), want allow", line, v.Decision, v.Reason)
		}
	}
}
