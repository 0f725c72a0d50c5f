package agent

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/kind"
)

// ApprovalWhy says why a call asks in plain words: the user's rule and
// where it is written, the mode for the call's kind, else the policy's
// own sentence; never "rule mode ask from built-in".
func TestApprovalWhyInPlainWords(t *testing.T) {
	cases := []struct {
		v    Verdict
		k    kind.Kind
		want string
	}{
		{Verdict{Rule: "mode ask", Source: "built-in", Reason: "rm x needs approval: commands need approval in ask mode", ModeOnly: true}, kind.Exec,
			"Commands that may change something ask in ask mode (an allow rule or another mode lets them run)."},
		{Verdict{Rule: "mode ask", Source: "built-in", Reason: "write_file wants to change a.go; in ask mode every change needs approval", ModeOnly: true}, kind.Write,
			"Changes to files ask in ask mode (an allow rule or another mode lets them run)."},
		{Verdict{Rule: "mode auto-edit", Source: "built-in", ModeOnly: true}, kind.Network,
			"Network requests ask in auto-edit mode (an allow rule or another mode lets them run)."},
		{Verdict{Rule: "run_command(rm *)", Source: "/ws/.aidex/config.toml", Reason: "rm x needs approval by the rule run_command(rm *) (from /ws/.aidex/config.toml)"}, kind.Exec,
			"Your rule run_command(rm *) asks (in /ws/.aidex/config.toml)."},
		{Verdict{Rule: "run_command(git push*)", Source: "flag"}, kind.Exec, "Your rule run_command(git push*) asks (given with --ask)."},
		{Verdict{Rule: "protected path", Source: "built-in", Reason: ".git/config is a protected path (.git, .aidex, editor or aidex config); changing it always needs approval, in every mode"}, kind.Write,
			".git/config is a protected path (.git, .aidex, editor or aidex config); changing it always needs approval, in every mode"},
	}
	for _, c := range cases {
		got := ApprovalWhy(c.v, c.k)
		require.Equal(t, c.want, got)
		require.NotContains(t, got, "from built-in")
	}
}
