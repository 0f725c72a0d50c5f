package shell

import "testing"

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
