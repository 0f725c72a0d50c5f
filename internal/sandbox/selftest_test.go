package sandbox

import (
	"slices"
	"testing"
)

// Summarize folds attempts into one result per class: broken when any
// attempt broke (naming the first), not available when none could run,
// held otherwise; classes come in the order of Classes.
func TestSummarize(t *testing.T) {
	checks := []Check{
		{Class: ClassNetwork, Name: "tcp", OK: true},
		{Class: ClassGitDir, Name: "config", OK: true},
		{Class: ClassGitDir, Name: "hooks", OK: false, Note: "written"},
		{Class: ClassGitDir, Name: "gitlink", OK: false},
		{Class: ClassIPC, Name: "shm", OK: true, Unavailable: "no System V shared memory here"},
		{Class: ClassCaches, Name: "staged", OK: true},
		{Class: ClassCaches, Name: "yours", OK: true, Unavailable: "none exists"},
		{Class: "new class", Name: "x", OK: true},
	}
	got := Summarize(checks)
	want := []ClassResult{
		{Class: ClassGitDir, State: "broken", Note: "hooks"},
		{Class: ClassCaches, State: "held"},
		{Class: ClassIPC, State: "not available here", Note: "no System V shared memory here"},
		{Class: ClassNetwork, State: "held"},
		{Class: "new class", State: "held"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Summarize:\n got %+v\nwant %+v", got, want)
	}
	if len(Summarize(nil)) != 0 {
		t.Error("no checks, some classes")
	}
}

// The escape suite's table has at least one attempt for every class.
func TestEveryClassHasAnAttempt(t *testing.T) {
	for _, cl := range Classes() {
		n := 0
		for _, a := range attempts() {
			if a.class == cl {
				n++
			}
		}
		if n == 0 {
			t.Errorf("class %s has no attempt", cl)
		}
	}
	for _, a := range attempts() {
		if !slices.Contains(Classes(), a.class) || a.name == "" {
			t.Errorf("attempt %q of class %q", a.name, a.class)
		}
	}
}
