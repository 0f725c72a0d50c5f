//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
	if _, err := os.Stat(filepath.Join(os.Getenv("TMPDIR"), "x")); err == nil {
		t.Error("unexpected file")
	}
}
