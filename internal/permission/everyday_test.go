package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEverydayReadOnlyAfterWalk: everyday read-only commands are still
// allowed in plan mode, without anyone to ask.
func TestEverydayReadOnlyAfterWalk(t *testing.T) {
	f := newFixture(t)
	mustWrite(t, filepath.Join(f.root, "README.md"), "# x\n")
	mustWrite(t, filepath.Join(f.root, "data.json"), "{}\n")
	mustWrite(t, filepath.Join(f.root, "b.txt"), "b\n")
	if err := os.MkdirAll(filepath.Join(f.root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	plan := newPolicy(t, f, ModePlan, false)
	lines := []string{
		"git status", "git status -sb", "git log --oneline -5", "git log -p -1", "git diff", "git diff --stat",
		"git diff --cached", "git show HEAD --stat", "git branch -a", "git rev-parse HEAD", "git ls-files",
		"git blame -L 1,10 README.md", "git grep -n foo", "git remote -v", "ls", "ls -la", "ls -R src",
		"cat README.md", "cat -n README.md", "head -n 20 README.md", "head -5 README.md", "tail -n 20 README.md",
		"wc -l README.md", "grep -rn TODO .", "grep -c foo README.md", "rg TODO", "rg -n --type go func",
		"find . -name '*.go' -print", "find . -maxdepth 2 -type f", "tree -L 2", "stat README.md", "file README.md",
		"du -sh .", "pwd", "echo hello", "echo $((1+2))", "a[0]=1", "a[0]=1; echo ok", "date +%s", "uname -a",
		"which go", "go version", "go env GOPATH", "sort README.md | uniq -c", "cat README.md | head -5",
		"git log --oneline -5 | cat", "diff README.md b.txt", "sha256sum README.md", "jq . data.json",
		"jq -r .name data.json", "[[ -f README.md ]] && cat README.md", "[ -f README.md ] && cat README.md",
		"test -f README.md", "cd src && ls", "LANG=C ls", "LC_ALL=C sort README.md", "TZ=UTC date",
		"NO_COLOR=1 git status", "(( 1 + 2 ))", "for ((i=0; i<3; i++)); do echo hi; done", "x=1; ls",
		"for f in a b; do echo hi; done",
	}
	for _, line := range lines {
		if v := plan.Check(execReq(line)); v.Decision != Allow {
			t.Errorf("plan %q: %s (%s), want allow", line, v.Decision, v.Reason)
		}
	}
	if len(lines) < 40 {
		t.Fatalf("only %d everyday commands", len(lines))
	}
}
