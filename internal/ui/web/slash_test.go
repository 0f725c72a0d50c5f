package web

import (
	"testing"

	"github.com/zelvior/aidex/internal/ui/slash"
)

// The web chat's commands are the one table's web rows, in help order,
// each with the web's implementation; the refused ones give the table's
// reason (issue 34).
func TestWebCommandsComeFromTheOneTable(t *testing.T) {
	rows, got := slash.For(slash.Web), webCommands()
	if len(got) != len(rows) {
		t.Fatalf("%d web commands, the table has %d", len(got), len(rows))
	}
	for i, c := range got {
		if r := rows[i]; c.name != r.Name || c.args != r.Args || c.help != r.Help || c.run == nil {
			t.Errorf("web command %+v, the table says %+v", c, r)
		}
	}
	for _, r := range slash.Builtins() {
		why, refused := refusedCommand(r.Name)
		if want, ok := r.Refused[slash.Web]; refused != ok || why != want {
			t.Errorf("%s: refused %v (%q), the table says %v (%q)", r.Name, refused, why, ok, want)
		}
	}
}
