package agent

import "testing"

func TestHookVerdictNeverLoosensMoreThanTheModesAsk(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Verdict
		hook Decision
		want Decision
	}{
		{"allow skips the mode's ask", Verdict{Decision: Ask, Rule: "mode ask", ModeOnly: true}, Allow, Allow},
		{"allow skips the mode's ask headless", Verdict{Decision: Deny, Unasked: true, ModeOnly: true}, Allow, Allow},
		{"allow does not skip an ask rule", Verdict{Decision: Ask, Rule: "run_command(git *)"}, Allow, Ask},
		{"allow does not skip a protected path headless", Verdict{Decision: Deny, Unasked: true, Rule: "protected path"}, Allow, Deny},
		{"allow does not beat a deny rule", Verdict{Decision: Deny, Rule: "run_command(rm *)"}, Allow, Deny},
		{"allow does not beat a deny marked mode-only", Verdict{Decision: Deny, Rule: "mode plan", ModeOnly: true}, Allow, Deny},
		{"ask turns an allow into an ask", Verdict{Decision: Allow, Rule: "mode yolo"}, Ask, Ask},
		{"ask keeps a deny", Verdict{Decision: Deny, Rule: "run_command(rm *)"}, Ask, Deny},
		{"no opinion", Verdict{Decision: Ask, ModeOnly: true}, "", Ask},
	} {
		if got := hookVerdict(tc.v, tc.hook, "why").Decision; got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
