package commands

import (
	"testing"

	"github.com/zelvior/aidex/internal/ui/slash"
)

// Every front end's command list comes from the one table
// (internal/ui/slash): the same names, arguments, help and aliases, in
// help order, each with an implementation here.
func TestForComesFromTheOneTable(t *testing.T) {
	for _, f := range []slash.Front{slash.TUI, slash.Line, slash.ACP, slash.Headless} {
		rows, got := slash.For(f), For(f)
		if len(got) != len(rows) {
			t.Fatalf("%v: %d commands, the table has %d", f, len(got), len(rows))
		}
		for i, s := range got {
			r := rows[i]
			if s.Name != r.Name || s.Args != r.Args || s.Help != r.Help || len(s.Aliases) != len(r.Aliases) || s.Run == nil {
				t.Errorf("%v: %+v, the table says %+v", f, s, r)
			}
		}
	}
	if len(Default()) != len(slash.For(slash.TUI)) {
		t.Errorf("Default() has %d commands, the terminal's table %d", len(Default()), len(slash.For(slash.TUI)))
	}
	for _, r := range slash.Builtins() {
		if r.Runs(slash.Session) && runOf(r.Name) == nil {
			t.Errorf("%s runs in %v but has no implementation", r.Name, r.Fronts)
		}
	}
}
