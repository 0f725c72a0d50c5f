package permission

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/kind"
)

// Sources used in verdicts for decisions not made by a user rule.
const (
	SourceBuiltin = "built-in"
	SourceSession = "session"
	SourceFlag    = "flag"
)

// Request is a tool call to check.
type Request struct {
	// Tool is the tool name (run_command, read_file, write_file, ...).
	Tool string
	// Kind says what the tool does.
	Kind kind.Kind
	// Paths are the file paths the call touches, as the model gave them.
	// For kind.Exec, Paths optionally holds the working directory the model
	// asked for; it must resolve inside the workspace and relative paths
	// in the command are judged from it.
	Paths []string
	// Command is the shell command line for kind.Exec; for kind.Network the
	// URL or host; for other kinds an optional summary matched by rules.
	Command string
}

// CommandVerdict is the decision for one simple command of a line, or for
// one write/read target (Command is then "> path").
type CommandVerdict struct {
	// Command is the simple command as rules see it ("go test ./..."),
	// "> path" for a target, or "(whole line)" for a line-level finding.
	Command string
	// Decision is Allow, Ask or Deny for this command.
	Decision Decision
	// Rule names what decided, as in Verdict.Rule.
	Rule string
	// Source is where the rule came from, as in Verdict.Source.
	Source string
	// Reason is a sentence for the user and the model.
	Reason string
}

// Verdict is the outcome of Policy.Check.
type Verdict struct {
	// Decision is Allow, Ask or Deny (Ask only when the policy can ask).
	Decision Decision
	// Rule names what decided: a rule as written ("run_command(go test *)"),
	// "safe_mode: <name>", "workspace confinement", "protected path" or
	// "mode ask".
	Rule string
	// Source is where the rule came from: a config file path, "flag",
	// "session" or "built-in".
	Source string
	// Reason is a sentence for the user and the model.
	Reason string
	// Commands has one entry per simple command and redirection target for
	// kind.Exec requests.
	Commands []CommandVerdict
	// Resolved holds the absolute resolved Paths (same order) when all of
	// them resolved.
	Resolved []string
	// Unasked is set when the decision would have been Ask and was turned
	// into Deny because the policy cannot ask (PolicyConfig.CanAsk false):
	// an allow rule or another mode would let the call run.
	Unasked bool
	// ReadsOnly reports a run_command line the shell analysis found to
	// only read (every command in the read-only tables, no write target,
	// nothing it cannot see, no control characters): refusing it refuses
	// no change.
	ReadsOnly bool
}

// PolicyConfig configures NewPolicy.
type PolicyConfig struct {
	// Mode is the permission mode; empty means ModeAsk.
	Mode Mode
	// Rules are the allow/ask/deny rules from config files and flags.
	Rules []Rule
	// SafeMode enables the built-in deny list (default on in config).
	SafeMode bool
	// Workspace confines paths; required.
	Workspace *Workspace
	// CanAsk is false for front ends that cannot ask (headless, Ralph):
	// every Ask becomes Deny.
	CanAsk bool
	// SandboxAutoAllow is set when commands (kind.Exec) run in the OS
	// sandbox and [sandbox] auto_allow is on: in auto-edit mode a command
	// the mode alone would ask about is then allowed (rule
	// RuleSandboxAutoAllow). Deny and ask rules, protected paths, paths
	// outside the workspace, credential reads, control characters and
	// what analysis cannot see still ask or deny.
	SandboxAutoAllow bool
	// Shell is the shell commands run in: its language and how its
	// programs read paths. The zero value is POSIX sh with the host's
	// paths.
	Shell Shell
}

// Policy decides tool calls. It is safe for concurrent use.
type Policy struct {
	mode     Mode
	rules    []Rule
	safeMode bool
	ws       *Workspace
	canAsk   bool
	// sandboxAutoAllow: see PolicyConfig.SandboxAutoAllow.
	sandboxAutoAllow bool
	shell            Shell

	mu      sync.RWMutex
	session []Rule
}

// NewPolicy returns a policy. It fails when the workspace is missing, the
// mode is unknown or a rule has no valid action.
func NewPolicy(cfg PolicyConfig) (*Policy, error) {
	if cfg.Workspace == nil {
		return nil, errors.New("permission policy: no workspace given")
	}
	mode := cfg.Mode
	if mode == "" {
		mode = ModeAsk
	}
	if _, err := ParseMode(string(mode)); err != nil {
		return nil, fmt.Errorf("permission policy: %w", err)
	}
	for _, r := range cfg.Rules {
		if r.Action < Allow || r.Action > Deny {
			return nil, fmt.Errorf("permission policy: rule %s from %s has no action (allow, ask or deny)", r, r.Source)
		}
	}
	return &Policy{mode: mode, rules: append([]Rule(nil), cfg.Rules...), safeMode: cfg.SafeMode,
		ws: cfg.Workspace, canAsk: cfg.CanAsk, sandboxAutoAllow: cfg.SandboxAutoAllow, shell: cfg.Shell}, nil
}

// Mode returns the policy's permission mode.
func (p *Policy) Mode() Mode { return p.mode }

// Workspace returns the policy's workspace.
func (p *Policy) Workspace() *Workspace { return p.ws }

// AllowForSession adds an allow rule ("run_command(go test *)") for the
// rest of the session. It returns ParseRule's error for a bad rule.
func (p *Policy) AllowForSession(rule string) error {
	r, err := ParseRule(rule)
	if err != nil {
		return err
	}
	r.Action, r.Source = Allow, SourceSession
	p.mu.Lock()
	p.session = append(p.session, r)
	p.mu.Unlock()
	return nil
}

func (p *Policy) allRules() []Rule {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]Rule, 0, len(p.rules)+len(p.session))
	out = append(out, p.rules...)
	return append(out, p.session...)
}

// Check decides a request. Deny beats ask beats allow. With CanAsk false
// an Ask becomes a Deny whose reason names the rule that asked.
func (p *Policy) Check(req Request) Verdict {
	rules := p.allRules()
	var v Verdict
	switch req.Kind {
	case kind.Exec:
		v = p.sandboxAllow(p.checkExec(req, rules))
	case kind.Read, kind.Write:
		v = p.checkPaths(req, rules)
	default:
		v = p.checkOther(req, rules)
	}
	return p.finish(v)
}

func (p *Policy) finish(v Verdict) Verdict {
	if v.Decision == 0 {
		v.Decision = Deny
	}
	if v.Decision == Ask && !p.canAsk {
		v.Decision, v.Unasked = Deny, true
		v.Reason = nonInteractiveDenial(v)
		for i := range v.Commands {
			if v.Commands[i].Decision == Ask {
				v.Commands[i].Decision = Deny
			}
		}
	}
	return v
}

// nonInteractiveDenial is the reason of an ask turned into a deny because
// no one can be asked. It names the rule once: not again when the reason
// already does.
func nonInteractiveDenial(v Verdict) string {
	msg := strings.TrimSuffix(v.Reason, ".") + "; this run cannot ask for approval (non-interactive), so it is denied"
	if !strings.Contains(v.Reason, v.Rule) {
		msg += fmt.Sprintf(" (rule: %s, from %s)", v.Rule, v.Source)
	}
	if v.Rule == RuleProtected {
		return msg + "; no rule or mode allows it: approve it in an interactive session (aidex, aidex web) or make the change yourself"
	}
	return msg + "; to allow it, add an allow rule with --allow or in .aidex/config.toml, or use a more permissive mode"
}

// match returns the first rule of the given action matching the request
// input, or nil.
func firstRule(rules []Rule, action Decision, tool string, match func(Rule) bool) *Rule {
	for i := range rules {
		r := &rules[i]
		if r.Action == action && r.matchesTool(tool) && match(*r) {
			return r
		}
	}
	return nil
}

func verdictFromRule(r *Rule, reason string) Verdict {
	return Verdict{Decision: r.Action, Rule: r.String(), Source: r.Source, Reason: reason}
}

func builtin(d Decision, rule, reason string) Verdict {
	return Verdict{Decision: d, Rule: rule, Source: SourceBuiltin, Reason: reason}
}

// checkPaths handles kind.Read and kind.Write.
func (p *Policy) checkPaths(req Request, rules []Rule) Verdict {
	if len(req.Paths) == 0 {
		return builtin(Deny, RuleInvalidPath, fmt.Sprintf("%s was called without a path: give a file path relative to the workspace root", req.Tool))
	}
	write := req.Kind == kind.Write
	var worst Verdict
	resolved := make([]string, 0, len(req.Paths))
	for _, raw := range req.Paths {
		abs, err := p.ws.Resolve(raw)
		if err != nil {
			return pathErrorVerdict(err)
		}
		resolved = append(resolved, abs)
		v := p.checkOnePath(req.Tool, write, abs, rules)
		if write && v.Decision == Allow && p.ws.IsProtectedWrite(p.lexical(raw)) {
			// The path as written names a protected directory even though
			// it resolves elsewhere (a symlinked .aidex): still ask.
			v = builtin(Ask, RuleProtected, fmt.Sprintf("%s goes through a protected path (.git, .aidex, editor or aidex config); changing it always needs approval, in every mode", raw))
		}
		if worst.Decision == 0 || v.Decision.severity() > worst.Decision.severity() {
			worst = v
		}
	}
	worst.Resolved = resolved
	return worst
}

// lexical is raw joined to the workspace root and cleaned, without
// resolving symlinks: the path as the model named it.
func (p *Policy) lexical(raw string) string {
	if filepath.IsAbs(raw) {
		return filepath.Clean(raw)
	}
	return filepath.Join(p.ws.Root(), raw)
}

func pathErrorVerdict(err error) Verdict {
	var pe *PathError
	if errors.As(err, &pe) {
		return builtin(Deny, pe.Rule, pe.Error())
	}
	return builtin(Deny, RuleInvalidPath, err.Error())
}

// checkOnePath decides one resolved path for a read or write tool.
func (p *Policy) checkOnePath(tool string, write bool, abs string, rules []Rule) Verdict {
	rel := p.ws.Rel(abs)
	m := func(r Rule) bool { return matchPath(r.Pattern, rel) }
	if r := firstRule(rules, Deny, tool, m); r != nil {
		return verdictFromRule(r, fmt.Sprintf("%s of %s is denied by the rule %s (from %s)", tool, rel, r, r.Source))
	}
	if !write {
		if p.safeMode && isCredentialFileName(filepath.Base(abs)) {
			return builtin(Ask, "safe_mode: credential file", fmt.Sprintf("%s looks like a credential file (.env, keys, tokens); reading it always needs approval while safe_mode is on", rel))
		}
		if r := firstRule(rules, Ask, tool, m); r != nil {
			return verdictFromRule(r, fmt.Sprintf("%s of %s needs approval by the rule %s (from %s)", tool, rel, r, r.Source))
		}
		return Verdict{Decision: Allow, Rule: "mode " + string(p.mode), Source: SourceBuiltin,
			Reason: fmt.Sprintf("reading %s inside the workspace is allowed", rel)}
	}
	if p.mode == ModePlan {
		return builtin(Deny, "mode plan", fmt.Sprintf("plan mode is read-only: %s cannot change %s; switch to ask or auto-edit mode to make changes", tool, rel))
	}
	if why := p.ws.GitDirLookalike(abs); why != "" {
		return builtin(Deny, RuleProtected, fmt.Sprintf("%s cannot change %s: %s", tool, rel, why))
	}
	if why := p.ws.ProtectedWriteReason(abs); why != "" {
		return builtin(Ask, RuleProtected, fmt.Sprintf("%s is a protected path (%s); changing it always needs approval, in every mode", rel, why))
	}
	if r := firstRule(rules, Ask, tool, m); r != nil {
		return verdictFromRule(r, fmt.Sprintf("%s of %s needs approval by the rule %s (from %s)", tool, rel, r, r.Source))
	}
	if p.mode == ModeAutoEdit || p.mode == ModeYolo {
		return Verdict{Decision: Allow, Rule: "mode " + string(p.mode), Source: SourceBuiltin,
			Reason: fmt.Sprintf("file changes inside the workspace are allowed in %s mode", p.mode)}
	}
	if r := firstRule(rules, Allow, tool, m); r != nil {
		return verdictFromRule(r, fmt.Sprintf("%s of %s is allowed by the rule %s (from %s)", tool, rel, r, r.Source))
	}
	return builtin(Ask, "mode ask", fmt.Sprintf("%s wants to change %s; in ask mode every change needs approval", tool, rel))
}

// checkOther handles network and other tools.
func (p *Policy) checkOther(req Request, rules []Rule) Verdict {
	for _, raw := range req.Paths {
		if _, err := p.ws.Resolve(raw); err != nil {
			return pathErrorVerdict(err)
		}
	}
	m, mAllow := subjectMatchers(req)
	what := req.Tool
	if req.Command != "" {
		what = fmt.Sprintf("%s(%s)", req.Tool, truncate(req.Command, 120))
	}
	if r := firstRule(rules, Deny, req.Tool, m); r != nil {
		return verdictFromRule(r, fmt.Sprintf("%s is denied by the rule %s (from %s)", what, r, r.Source))
	}
	if p.mode == ModePlan {
		return builtin(Deny, "mode plan", fmt.Sprintf("plan mode allows only read-only tools; %s is not one", what))
	}
	if r := firstRule(rules, Ask, req.Tool, m); r != nil {
		return verdictFromRule(r, fmt.Sprintf("%s needs approval by the rule %s (from %s)", what, r, r.Source))
	}
	if p.mode == ModeYolo {
		return builtin(Allow, "mode yolo", fmt.Sprintf("%s is allowed in yolo mode", what))
	}
	if r := firstRule(rules, Allow, req.Tool, mAllow); r != nil {
		return verdictFromRule(r, fmt.Sprintf("%s is allowed by the rule %s (from %s)", what, r, r.Source))
	}
	noun := "this tool"
	if req.Kind == kind.Network {
		noun = "network access"
	}
	return builtin(Ask, "mode "+string(p.mode), fmt.Sprintf("%s needs approval: %s is not allowed without asking in %s mode", what, noun, p.mode))
}
