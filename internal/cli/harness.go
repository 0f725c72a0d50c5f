package cli

import (
	"fmt"

	"github.com/zelvior/aidex/internal/agent"
)

// ExitUnverified: --require-verified was given and the run's check did
// not pass (verified false or none).
const ExitUnverified = 7

// verifyOffReason is verify_reason when verify before finishing is off.
const verifyOffReason = "verify before finishing is off ([harness] verify = false; --require-verified or --set harness.verify=true turns it on)"

// reportVerification fills in d's Verified ("none" with the reason when
// verify before finishing was off) and its harness record, as headless
// JSON and stream-json report them.
func reportVerification(d *agent.DoneInfo) {
	if d.Verified == "" {
		d.Verified, d.VerifyReason = agent.VerifiedNone, verifyOffReason
	}
	if d.Harness == nil {
		d.Harness = &agent.HarnessInfo{}
	}
}

// requireVerified turns a run that would exit 0 into ExitUnverified when
// --require-verified was given and its check did not pass.
func requireVerified(f *runFlags, d *agent.DoneInfo, exit error) error {
	if !f.requireVerified || exit != nil || d == nil || d.Verified == agent.VerifiedTrue {
		return exit
	}
	v := *d
	reportVerification(&v)
	return &ExitError{Code: ExitUnverified, Err: fmt.Errorf("not verified (verified %s): %s", v.Verified, v.VerifyReason)}
}
