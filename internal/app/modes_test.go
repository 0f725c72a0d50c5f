package app

import (
	"slices"
	"testing"
)

// One order of the permission modes: the web's /mode ceiling, /mode's
// list and the MCP server's ceiling compare by it.
func TestModesOrder(t *testing.T) {
	if got, want := Modes(), []string{"plan", "ask", "auto-edit", "yolo"}; !slices.Equal(got, want) {
		t.Fatalf("Modes() = %q, want %q", got, want)
	}
	for _, m := range Modes() {
		if p, err := ParseMode(m); err != nil || p != m {
			t.Errorf("ParseMode(%q) = %q, %v: Modes must list canonical names", m, p, err)
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"yolo", "auto-edit", true}, {"auto-edit", "ask", true}, {"ask", "plan", true}, {"yolo", "plan", true},
		{"plan", "ask", false}, {"ask", "ask", false}, {"auto-edit", "yolo", false}, {"nonsense", "plan", false},
	} {
		if got := ModeWider(c.a, c.b); got != c.want {
			t.Errorf("ModeWider(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
