//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEscapeSuiteHolds: every attempt of the escape suite holds in the
// real sandbox on this machine, every class ran, and the suite leaves
// nothing behind.
func TestEscapeSuiteHolds(t *testing.T) {
	c := requireCaps(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	checks := SelfTest(context.Background(), Policy{}, c)
	for _, ch := range checks {
		if !ch.OK || ch.Unavailable != "" && ch.Name != "write into your own caches" {
			t.Errorf("%s: %s: ok %v, note %q, unavailable %q", ch.Class, ch.Name, ch.OK, ch.Note, ch.Unavailable)
		}
	}
	var classes []string
	for _, r := range Summarize(checks) {
		classes = append(classes, r.Class)
		if r.State != "held" {
			t.Errorf("class %s: %s (%s)", r.Class, r.State, r.Note)
		}
	}
	if !slices.Equal(classes, Classes()) {
		t.Errorf("classes reported %v, want %v", classes, Classes())
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("the suite left %v", left)
	}
}

// TestEscapeSuiteDetectsEscapes: without the sandbox, every class of the
// suite but the controls reports broken, so that each class's attempts
// can fail; the controls still work.
func TestEscapeSuiteDetectsEscapes(t *testing.T) {
	c := requireCaps(t)
	t.Setenv("TMPDIR", t.TempDir())
	checks := runSuite(context.Background(), Policy{}, c, Off)
	for _, r := range Summarize(checks) {
		want := "broken"
		if r.Class == ClassControls {
			want = "held"
		}
		if r.State != want {
			t.Errorf("class %s unsandboxed: %s (%s), want %s", r.Class, r.State, r.Note, want)
		}
	}
	for _, ch := range checks {
		if ch.Class == ClassGitDir || ch.Class == ClassProject || ch.Class == ClassSockets || ch.Class == ClassOutside {
			if ch.OK && ch.Unavailable == "" {
				t.Errorf("%s: %s held without the sandbox: the attempt cannot fail (%q)", ch.Class, ch.Name, ch.Note)
			}
		}
	}
}

// TestEscapeSuiteUsesYourCaches: the suite tries to write into the
// user's own caches, as the user's policy names them, and keeps a cache
// that lies in one of the user's writable folders in a writable folder;
// the sandbox holds it and the suite removes nothing of it.
func TestEscapeSuiteUsesYourCaches(t *testing.T) {
	c := requireCaps(t)
	base := t.TempDir()
	scratch, userW := filepath.Join(base, "tmp"), filepath.Join(base, "work")
	host := filepath.Join(userW, "gocache")
	mustMkdir(t, scratch)
	mustMkdir(t, host)
	mustWrite(t, filepath.Join(host, "entry"), "cached")
	t.Setenv("TMPDIR", scratch)
	private := filepath.Join(base, "aidex-cache", "go-build")
	p := Policy{Writable: []string{userW}, Caches: []Cache{{Name: "Go build cache", Host: host, Private: private, Env: []string{"GOCACHE=" + private}}}}
	s, err := newSuite(context.Background(), p, c, WorkspaceWrite)
	if s != nil {
		defer os.RemoveAll(s.root)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(s.caches) != 2 || s.caches[1].Host != host || !strings.HasPrefix(s.caches[1].Private, s.root) ||
		s.caches[1].Env[0] != "GOCACHE="+s.caches[1].Private {
		t.Fatalf("caches %+v: want the user's, its private copy in the scratch dir", s.caches)
	}
	if !slices.Contains(s.sb.fixed.writable, userW) {
		t.Errorf("writable %v: the user's cache is not in a writable folder as it is for the user", s.sb.fixed.writable)
	}
	held, note, na := s.cacheWrite(s.caches[1])
	if !held || na != "" {
		t.Errorf("write into the user's cache: held %v, %q %q", held, note, na)
	}
	if entries, _ := os.ReadDir(host); len(entries) != 1 {
		t.Errorf("the user's cache holds %v", entries)
	}
	if _, err := os.Stat(private); err == nil {
		t.Error("the suite created the user's real private cache")
	}
}

// TestEscapeSuiteLandlockOnly: on a machine with Landlock but no user
// namespaces, the classes that need the namespaces say "not available
// here" with the reason instead of running (and breaking), and the
// classes Landlock and the check after each command hold still run.
func TestEscapeSuiteLandlockOnly(t *testing.T) {
	c := requireCaps(t)
	c.Namespaces = false
	describe(&c)
	t.Setenv("TMPDIR", t.TempDir())
	got := map[string]ClassResult{}
	for _, r := range Summarize(SelfTest(context.Background(), Policy{}, c)) {
		got[r.Class] = r
	}
	for _, cl := range []string{ClassCredentials, ClassSockets, ClassProcesses, ClassTerminals, ClassIPC} {
		if r := got[cl]; r.State != "not available here" || !strings.Contains(r.Note, "no user namespaces") {
			t.Errorf("%s with Landlock alone: %+v", cl, r)
		}
	}
	for _, cl := range []string{ClassControls, ClassOutside, ClassGitDir, ClassProject, ClassNetwork} {
		if r := got[cl]; r.State != "held" {
			t.Errorf("%s with Landlock alone: %+v", cl, r)
		}
	}
}
