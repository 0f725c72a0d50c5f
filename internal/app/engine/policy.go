package engine

import (
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// Policy adapts the permission policy to the engine (agent.Policy), and
// saves "always allow" answers as rules in the project's
// .aidex/config.toml.
type Policy struct {
	// P is the session's permission policy.
	P *permission.Policy
	// ProjectFile is the project's config file, where an "always" answer
	// is saved as an allow rule ("": nowhere).
	ProjectFile string
	// Paths and Workspace record "always" answers in the user's own state,
	// so the rule also applies while the folder is not trusted as a whole
	// (Workspace "": not recorded).
	Paths     config.Paths
	Workspace string
	// DryRun: file changes are dry runs (--agent-writes dry-run), so a
	// file tool's call is judged as the read it is.
	DryRun bool
}

// Check asks the permission policy about a prepared call.
func (a *Policy) Check(c *agent.Call) agent.Verdict {
	req := CallRequest(c)
	if p, ok := c.Impl.(*tools.Prepared); ok && a.DryRun && req.Kind == kind.Write && p.Def.DryRun {
		req.Kind = kind.Read
	}
	cover := ""
	if p, ok := c.Impl.(*tools.Prepared); ok {
		cover = p.Cover
	}
	v := CheckCovered(a.P, req, cover)
	out := agent.Verdict{Rule: v.Rule, Source: v.Source, Reason: v.Reason, Suggested: a.P.SuggestRule(req), Unasked: v.Unasked,
		ReadsOnly: v.ReadsOnly, ModeOnly: ModeOnly(v)}
	switch v.Decision {
	case permission.Allow:
		out.Decision = agent.Allow
	case permission.Ask:
		out.Decision = agent.Ask
	default:
		out.Decision = agent.Deny
	}
	return out
}

// ModeOnly reports whether v asks (or, unable to ask, denied) only
// because of the mode's default: every part of it that is not allowed is
// decided by a "mode ..." rule, none about a credential file. A
// PreToolUse hook's allow may skip that ask, never an ask rule, a
// protected path, safe_mode or a doubt of the shell analysis.
func ModeOnly(v permission.Verdict) bool {
	if v.Decision == permission.Allow || (v.Decision == permission.Deny && !v.Unasked) {
		return false
	}
	byMode := func(rule, reason string) bool {
		return strings.HasPrefix(rule, "mode ") && !strings.Contains(reason, "credential")
	}
	if len(v.Commands) == 0 {
		return byMode(v.Rule, v.Reason)
	}
	for _, cv := range v.Commands {
		if cv.Decision != permission.Allow && !byMode(cv.Rule, cv.Reason) {
			return false
		}
	}
	return true
}

// Remember records a "session" or "always" approval. Errors: a rule the
// policy cannot parse, the project's config file or the user's state
// that cannot be written (the message names the file).
func (a *Policy) Remember(d agent.Answer, rule string) error {
	if err := a.P.AllowForSession(rule); err != nil {
		return err
	}
	if d == agent.AnswerAlways {
		if err := config.AddRule(a.ProjectFile, "allow", rule); err != nil {
			return fmt.Errorf("save rule %s in %s: %w", rule, a.ProjectFile, err)
		}
		if a.Workspace != "" {
			if err := a.Paths.ApproveRule(a.Workspace, rule); err != nil {
				return fmt.Errorf("record approval of %s: %w", rule, err)
			}
		}
	}
	return nil
}

// CallRequest describes a prepared call to the permission policy. The
// call's paths and subject were set from its tools.Prepared when the
// call was prepared, so this is the same request field for field.
func CallRequest(c *agent.Call) permission.Request {
	return permission.Request{Tool: c.Name, Kind: c.Kind, Paths: c.Paths, Command: c.Command}
}

// CheckCovered is the policy's verdict on req, for a seed tool that runs
// under the cover of another tool (tools.Prepared.Cover, "" for none)
// also held against the rules of that tool: a deny or ask rule naming the
// cover (edit_file(secrets/*)) applies to what it covers (append_file),
// so a rule cannot be bypassed by calling a tool of another name. The
// mode's own default is the same for both (same kind and paths) and is
// not counted twice.
func CheckCovered(p *permission.Policy, req permission.Request, cover string) permission.Verdict {
	v := p.Check(req)
	if cover == "" || v.Decision == permission.Deny {
		return v
	}
	creq := req
	creq.Tool = cover
	cv := p.Check(creq)
	if decisionRank(cv.Decision) > decisionRank(v.Decision) && !ModeOnly(cv) {
		return cv
	}
	return v
}

// decisionRank orders decisions by strictness: allow < ask < deny.
func decisionRank(d permission.Decision) int {
	switch d {
	case permission.Allow:
		return 0
	case permission.Ask:
		return 1
	}
	return 2
}

var _ agent.Policy = (*Policy)(nil)
