package commands

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// /architect turns architect mode on with an editor (or the main model),
// shows it, and turns it off.
func TestArchitectCommand(t *testing.T) {
	f := newFixture(t, "")
	out, _ := f.mustExec(t, "/architect")
	require.Contains(t, out, "architect mode: off")

	out, _ = f.mustExec(t, "/architect planner")
	main := f.c.Runtime().Provider.Name + "/" + f.c.Runtime().Model
	require.Contains(t, out, "architect mode: "+f.c.Runtime().Provider.Name+"/planner plans with read-only tools, then "+main+" makes the edits")

	out, _ = f.mustExec(t, "/architect planner coder")
	require.Contains(t, out, "then "+f.c.Runtime().Provider.Name+"/coder makes the edits")

	out, _ = f.mustExec(t, "/architect off")
	require.Contains(t, out, "architect mode: off")
	_, _, on := f.c.Runtime().Architect()
	require.False(t, on)

	_, _, err := f.exec(t, "/architect a b c")
	require.ErrorContains(t, err, "usage: /architect")
}
