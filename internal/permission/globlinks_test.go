package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// linkFixture adds links leading out of the workspace: docs -> ~/.ssh (a
// protected location), data -> an outside directory, and tree/deep/out ->
// the outside directory below an ordinary folder. clean/ has no link out.
func linkFixture(t *testing.T) fixture {
	t.Helper()
	f := newFixture(t)
	mustSymlink := func(target, link string) {
		t.Helper()
		mustMkdir(t, filepath.Dir(link))
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(f.home, ".ssh", "known_hosts"), "h\n")
	mustSymlink(filepath.Join(f.home, ".ssh"), filepath.Join(f.root, "docs"))
	mustSymlink(f.outside, filepath.Join(f.root, "data"))
	mustSymlink(f.outside, filepath.Join(f.root, "tree", "deep", "out"))
	mustWrite(t, filepath.Join(f.root, "tree", "a.txt"), "key\n")
	mustMkdir(t, filepath.Join(f.root, "clean", "sub"))
	mustWrite(t, filepath.Join(f.root, "clean", "sub", "b.go"), "package b // foo\n")
	mustSymlink("sub", filepath.Join(f.root, "clean", "inner"))
	mustSymlink(filepath.Join(f.root, "tree"), filepath.Join(f.root, "via", "tree"))
	return f
}

// TestGlobsAndRecursionThroughLinks is hole 9 of issue 22: a glob is
// expanded against the real tree and every match resolved before it is
// judged, ".." is taken after the link it follows (as the kernel does),
// and a recursive command over a folder holding a link out of the
// workspace is unknown: in plan mode all are denied.
func TestGlobsAndRecursionThroughLinks(t *testing.T) {
	f := linkFixture(t)
	p := newPolicy(t, f, ModePlan, true)
	for _, c := range []struct {
		cmd  string
		want Decision
	}{
		{"cat doc*/id_*", Deny},
		{"cat d*/id_rsa", Deny},
		{"cat d*/known_hosts", Deny},
		{"cat */known_hosts", Deny},
		{"cat {docs,x}/known_hosts", Deny},
		{"cat [d]ocs/known*", Deny},
		{"cat $(echo docs)/known_hosts", Deny},
		{"cat */id_rsa", Deny},
		{"cat do?s/*", Deny},
		{"cat [d]ocs/id_rsa", Deny},
		{"cat {docs,x}/id_rsa", Deny},
		{"cat {x,{y,docs}}/id_rsa", Deny},
		{"head -n 5 dat*/secret.txt", Deny},
		{"cat */*/out/secret.txt", Deny},
		{"cat data/../outside/secret.txt", Deny},
		{"cat tree/deep/out/../../ws/inside.txt", Deny},
		{"wc -l < doc*/id_rsa", Deny},
		{"grep -R key .", Deny},
		{"grep -r key .", Deny},
		{"grep -rn key tree", Deny},
		{"grep --recursive key tree", Deny},
		{"grep --dereference-recursive key tree", Deny},
		{"grep -R key via", Deny},
		{"rg -L key", Deny},
		{"rg --follow key tree", Deny},
		{"find -L tree -name x", Deny},
		{"find tree -follow -name x", Deny},
		{"ls -R tree", Deny},
		{"ls -laR", Deny},
		{"du -a tree", Deny},
		{"tree -l tree", Deny},
		// Everyday commands over folders without links out still run.
		{"cat inside.txt", Allow},
		{"cat ins*.txt", Allow},
		{"cat *.txt", Allow},
		{"cat clean/*/b.go", Allow},
		{"cat clean/inner/*.go", Allow},
		{"grep -rn foo clean", Allow},
		{"grep -R foo clean", Allow},
		{"ls -R clean", Allow},
		{"ls -la", Allow},
		{"find clean -name '*.go' -print", Allow},
		{"rg foo clean", Allow},
		{"du -sh clean", Allow},
		{"cat nomatch*", Allow},
		{"grep -n foo tree/a.txt", Allow},
	} {
		if v := p.Check(execReq(c.cmd)); v.Decision != c.want {
			t.Errorf("plan mode %q: %s (%s: %s), want %s", c.cmd, v.Decision, v.Rule, v.Reason, c.want)
		}
	}
	ask := newPolicy(t, f, ModeAsk, true, rule(t, Allow, "run_command(cat *)"), rule(t, Allow, "run_command(grep *)"))
	for _, cmd := range []string{"cat dat*/secret.txt", "grep -R key tree"} {
		if v := ask.Check(execReq(cmd)); v.Decision != Ask {
			t.Errorf("ask mode with an allow rule %q: %s (%s), want ask: no rule allows a path it cannot confine", cmd, v.Decision, v.Reason)
		}
	}
}

// TestEverydayRecursionWithoutLinks keeps `grep -rn foo .` and friends
// read-only in a workspace without links out of it.
func TestEverydayRecursionWithoutLinks(t *testing.T) {
	f := newFixture(t)
	mustWrite(t, filepath.Join(f.root, "sub", "deep", "a.go"), "package a\n")
	if err := os.Symlink("sub", filepath.Join(f.root, "inner")); err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, f, ModePlan, true)
	for _, cmd := range []string{"grep -rn foo .", "grep -R foo .", "grep -rn foo", "ls -R", "rg -L foo", "find -L . -name '*.go' -print",
		"du -sh .", "cat */*.go", "cat sub/../inside.txt", "cat inner/../inside.txt"} {
		if v := p.Check(execReq(cmd)); v.Decision != Allow {
			t.Errorf("plan mode %q: %s (%s: %s), want allow", cmd, v.Decision, v.Rule, v.Reason)
		}
	}
}
