package commands

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
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

// /summary shows the session's figures, then the small model's summary
// (on a local provider without small_model: the main model).
func TestSummaryCommandAddsSmallModelSummary(t *testing.T) {
	f := newFixture(t, "", llmtest.Turn{Text: "Hello there."}, llmtest.Turn{Text: "- you said hello\n- nothing is left"})
	f.run(t, "say hello")
	out, _ := f.mustExec(t, "/summary")
	require.Contains(t, out, "1 prompts · 1 answers")
	require.Contains(t, out, "summary (fake/m1):\n- you said hello\n- nothing is left")
	reqs := f.script.Requests()
	require.Contains(t, string(reqs[len(reqs)-1]), "[user] say hello")
}
