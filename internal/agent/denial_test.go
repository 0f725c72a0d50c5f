package agent

import (
	"strings"
	"testing"
)

// The text sent back for a policy denial names the rule once: in the
// reason when the policy wrote it there, else in brackets.
func TestPolicyDenialNamesRuleOnce(t *testing.T) {
	cases := []struct {
		v    Verdict
		want string
	}{
		{Verdict{Decision: Deny, Rule: "run_command(rm *)", Source: "flag", Reason: "rm -rf x is denied by the rule run_command(rm *) (from flag)"},
			"denied by the permission policy: rm -rf x is denied by the rule run_command(rm *) (from flag)"},
		{Verdict{Decision: Deny, Rule: "mode plan", Source: "built-in", Reason: "plan mode is read-only"},
			"denied by the permission policy: plan mode is read-only [rule mode plan from built-in]"},
		{Verdict{Decision: Deny, Reason: "no rule"}, "denied by the permission policy: no rule"},
	}
	for _, c := range cases {
		got := policyDenial(c.v)
		if got != c.want {
			t.Errorf("policyDenial(%+v)\n got %q\nwant %q", c.v, got, c.want)
		}
		if c.v.Rule != "" && strings.Count(got, c.v.Rule) != 1 {
			t.Errorf("%q names %q more than once", got, c.v.Rule)
		}
	}
}
