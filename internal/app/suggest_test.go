package app

import (
	"testing"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/kind"
)

// TestApprovalShowsTheRuleAlwaysSaves: the verdict the engine turns into
// an approval request names the rule "always" saves: the command with its
// non-path options ("sed -i *", never "sed *"), and no rule at all for a
// line no rule may allow (a sed script that runs commands).
func TestApprovalShowsTheRuleAlwaysSaves(t *testing.T) {
	_, _, pol := newTestPolicy(t)
	a := &engine.Policy{P: pol}
	for line, want := range map[string]string{
		"sed -i 's/a/b/' f.go":   "run_command(sed -i *)",
		"git commit -m 'x y'":    "run_command(git commit *)",
		"sed 'e rm -rf ~' f":     "",
		"sed -i 's/a/b/w x' f":   "",
		"sed -i -f evil.sed f":   "",
		"sort -o out.txt in.txt": "run_command(sort -o out.txt in.txt)",
	} {
		v := a.Check(&agent.Call{Name: "run_command", Kind: kind.Exec, Command: line})
		if v.Decision != agent.Ask || v.Suggested != want {
			t.Errorf("%q: decision %s, suggested %q; want ask and %q", line, v.Decision, v.Suggested, want)
		}
	}
}
