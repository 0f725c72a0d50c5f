package permission

import (
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/permission/shell"
)

// Rule names for shell decisions not made by a user rule.
const (
	RuleShellAnalysis = "shell analysis"
	RuleReadOnly      = "built-in read-only command"
	// RuleControlChars decides a line with control characters (see
	// shell.IsControl): never allowed by a rule nor read-only.
	RuleControlChars = "control characters"
	// RuleSandboxAutoAllow decides a command auto-edit mode runs unasked
	// because it runs in the OS sandbox ([sandbox] auto_allow).
	RuleSandboxAutoAllow = "sandbox auto_allow"
)

// credentialWhy ends the reason of a command asked about because it
// reads a credential file.
const credentialWhy = "it reads a credential file (.env, keys, tokens)"

// sandboxAllow turns v, the verdict of a command line, into an allow when
// the policy auto-allows sandboxed commands (PolicyConfig.SandboxAutoAllow),
// the mode is auto-edit and nothing but the mode asked: every part of the
// line is allowed or asked about by "mode auto-edit" only (not for reading
// a credential file).
func (p *Policy) sandboxAllow(v Verdict) Verdict {
	if !p.sandboxAutoAllow || p.mode != ModeAutoEdit || v.Decision != Ask || len(v.Commands) == 0 {
		return v
	}
	modeRule := "mode " + string(ModeAutoEdit)
	for _, cv := range v.Commands {
		if cv.Decision != Allow && (cv.Rule != modeRule || strings.HasSuffix(cv.Reason, credentialWhy)) {
			return v
		}
	}
	out := Verdict{Decision: Allow, Rule: RuleSandboxAutoAllow, Source: SourceBuiltin,
		Reason: "the command runs in the OS sandbox, and [sandbox] auto_allow lets auto-edit mode run it without asking"}
	for _, cv := range v.Commands {
		if cv.Decision == Ask {
			cv.Decision, cv.Rule, cv.Source, cv.Reason = Allow, out.Rule, out.Source, out.Reason
		}
		out.Commands = append(out.Commands, cv)
	}
	return out
}

// checkExec decides a run_command request: every simple command of the
// line, every file it writes or reads through redirections, and the
// line-level findings (safe_mode, what analysis cannot see); the worst
// decides.
func (p *Policy) checkExec(req Request, rules []Rule) Verdict {
	if strings.TrimSpace(req.Command) == "" {
		return builtin(Deny, RuleShellAnalysis, "empty command: give the command line to run")
	}
	if p.shell.Kind == ShellPowerShell {
		return p.checkPowerShell(req, rules)
	}
	bases, v, ok := p.execBases(req.Paths)
	if !ok {
		return v
	}
	ctrl := p.controlEntry(req.Command)
	a := shell.Analyze(req.Command)
	if a.ParseErr != nil {
		if ctrl != nil {
			return Verdict{Decision: ctrl.Decision, Rule: ctrl.Rule, Source: ctrl.Source, Reason: ctrl.Reason, Commands: []CommandVerdict{*ctrl}}
		}
		return p.parseFailure(req.Command, a.ParseErr)
	}
	entries := p.lineEntries(a)
	if ctrl != nil {
		entries = append(entries, *ctrl)
	}
	st := &execState{bases: bases}
	for _, sc := range a.Commands {
		entries = append(entries, p.decideCommand(sc, rules, st))
	}
	for _, t := range a.Writes {
		entries = append(entries, p.decideTarget(t, true, rules, st))
	}
	for _, t := range a.Reads {
		entries = append(entries, p.decideTarget(t, false, rules, st))
	}
	if len(entries) == 0 {
		return Verdict{Decision: Allow, Rule: RuleShellAnalysis, Source: SourceBuiltin, Reason: "the line runs no command"}
	}
	if ctrl != nil {
		markControls(entries, *ctrl)
	}
	worst := entries[0]
	for _, e := range entries[1:] {
		if e.Decision.severity() > worst.Decision.severity() {
			worst = e
		}
	}
	return Verdict{Decision: worst.Decision, Rule: worst.Rule, Source: worst.Source, Reason: worst.Reason, Commands: entries,
		ReadsOnly: ctrl == nil && readsOnly(a)}
}

// readsOnly reports whether analysis a found a line that only reads: no
// write target, nothing hidden from it, no environment change or test,
// and every command in the read-only tables.
func readsOnly(a shell.Analysis) bool {
	if len(a.Writes) > 0 || len(a.Opaque) > 0 || len(a.EnvChanges) > 0 || len(a.EnvTests) > 0 {
		return false
	}
	for _, sc := range a.Commands {
		if _, ok := shell.ReadOnly(sc); !ok {
			return false
		}
	}
	return true
}

// execBases resolves the working directories the model asked for (the
// root when none); ok is false with the verdict when one is refused.
func (p *Policy) execBases(paths []string) ([]string, Verdict, bool) {
	if len(paths) == 0 {
		return []string{p.ws.Root()}, Verdict{}, true
	}
	bases := make([]string, 0, len(paths))
	for _, raw := range paths {
		abs, err := p.ws.Resolve(raw)
		if err != nil {
			v := pathErrorVerdict(err)
			v.Reason = "the working directory " + v.Reason
			return nil, v, false
		}
		bases = append(bases, abs)
	}
	return bases, Verdict{}, true
}

// parseFailure is the verdict for a line that does not parse.
func (p *Policy) parseFailure(line string, err error) Verdict {
	d := p.unsureDecision()
	v := builtin(d, RuleShellAnalysis, fmt.Sprintf("the command could not be analysed (%v); a command aidex cannot parse is never allowed without approval", err))
	v.Commands = []CommandVerdict{{Command: truncate(line, 200), Decision: d, Rule: v.Rule, Source: v.Source, Reason: v.Reason}}
	return v
}

// lineEntries are the verdicts about the line as a whole: safe_mode
// rules, constructs analysis cannot see through, tests of environment
// variables (answered as printenv is: asked, denied in plan mode, allowed
// in yolo mode), and variables that change what later commands run.
func (p *Policy) lineEntries(a shell.Analysis) []CommandVerdict {
	var entries []CommandVerdict
	add := func(d Decision, rule, reason string) {
		entries = append(entries, CommandVerdict{Command: "(whole line)", Decision: d, Rule: rule, Source: SourceBuiltin, Reason: reason})
	}
	if p.safeMode {
		if r := shell.SafeModeLine(a); r != "" {
			add(Deny, "safe_mode: "+r, "blocked by safe_mode: "+r)
		}
	}
	for _, o := range a.Opaque {
		add(p.unsureDecision(), RuleShellAnalysis, "analysis cannot see what runs ("+o+"), so it needs approval and no rule can allow it")
	}
	if len(a.EnvTests) > 0 && p.mode != ModeYolo {
		add(p.unsureDecision(), RuleShellAnalysis, "the line tests the environment variables "+strings.Join(a.EnvTests, ", ")+
			", and which branch runs shows what they hold, as printenv would; it needs approval")
	}
	if len(a.EnvChanges) > 0 && p.mode != ModeYolo {
		add(p.unsureDecision(), RuleShellAnalysis, "the line sets "+strings.Join(a.EnvChanges, ", ")+", which changes what later commands run; it needs approval")
	}
	return entries
}

// controlEntry is the line-level verdict of a line with control
// characters (a carriage return that rewinds what the approval shows, an
// escape sequence, a bidi override): ask (deny in plan mode, or where no
// one can be asked), whatever the rules and the read-only tables say; nil
// for a clean line. Deny rules still win: the rest of the line is judged.
func (p *Policy) controlEntry(line string) *CommandVerdict {
	if !shell.HasControls(line) {
		return nil
	}
	return &CommandVerdict{Command: "(whole line)", Decision: p.unsureDecision(), Rule: RuleControlChars, Source: SourceBuiltin,
		Reason: shell.ControlReason(line, 200)}
}

// markControls shows the entries of a line with control characters with
// those characters escaped, and none of them allowed: what the analysis
// read as "ls" may be a command named "ls\rrm" to the shell.
func markControls(entries []CommandVerdict, ctrl CommandVerdict) {
	for i := range entries {
		e := &entries[i]
		e.Command, e.Reason = shell.EscapeControls(e.Command), shell.EscapeControls(e.Reason)
		if e.Decision == Allow {
			e.Decision, e.Rule, e.Source, e.Reason = ctrl.Decision, ctrl.Rule, ctrl.Source, ctrl.Reason
		}
	}
}

// unsureDecision is the decision when analysis gives up: ask, or deny in
// plan mode.
func (p *Policy) unsureDecision() Decision {
	if p.mode == ModePlan {
		return Deny
	}
	return Ask
}

// execState tracks directories a line may cd into (relative paths are
// checked against each of them).
type execState struct {
	bases    []string
	overflow bool // a cd the analysis cannot follow (or too many): relative paths are unknown
}

// maxBases bounds the directories tracked through cd (each cd can double
// the set, since aidex does not know which cd succeeded).
const maxBases = 16

type argFindings struct {
	protected  *PathError
	outside    []string
	cred       bool
	protWrite  []string // arguments inside .git, .aidex, ... (IsProtectedWrite)
	unsure     []string // why the arguments cannot be confined (too many matches, a walk through a link out)
	dirs       []string // the existing directories the arguments name (resolved)
	unknownDir string   // why a cd target cannot be confined
}

// commandCheck decides one simple command of a line.
type commandCheck struct {
	p     *Policy
	sc    shell.SimpleCommand
	rules []Rule
	text  string // the command as rules see it
	alt   string // the same with the base name folded, for deny and ask rules
}

func (k *commandCheck) verdict(d Decision, rule, source, reason string) CommandVerdict {
	return CommandVerdict{Command: k.text, Decision: d, Rule: rule, Source: source, Reason: reason}
}

func (k *commandCheck) builtin(d Decision, rule, reason string) CommandVerdict {
	return k.verdict(d, rule, SourceBuiltin, reason)
}

// restrictive returns the first deny or ask rule (action) matching the
// command as written or with its base name folded ("/usr/bin/curl").
func (k *commandCheck) restrictive(action Decision) *Rule {
	return firstRule(k.rules, action, CommandTool, func(r Rule) bool {
		return matchCommand(r.Pattern, k.text) || matchCommand(r.Pattern, k.alt)
	})
}

// decideCommand decides one simple command. Deny rules and safe_mode
// come first, then protected paths (and the environments of other
// processes, shell.EnvOthers), ask rules, what analysis cannot see,
// confinement, and last the mode, the read-only tables and allow rules.
func (p *Policy) decideCommand(sc shell.SimpleCommand, rules []Rule, st *execState) CommandVerdict {
	k := &commandCheck{p: p, sc: sc, rules: rules, text: sc.Text(), alt: sc.FoldedText()}
	if r := k.restrictive(Deny); r != nil {
		return k.verdict(Deny, r.String(), r.Source, fmt.Sprintf("%s is denied by the rule %s (from %s)", k.text, r, r.Source))
	}
	if p.safeMode {
		if r := shell.SafeModeCommand(sc, p.ws.home); r != "" {
			return k.builtin(Deny, "safe_mode: "+r, fmt.Sprintf("%s is blocked by safe_mode: %s", k.text, r))
		}
	}
	f := p.pathArgs(sc, st)
	if f.protected != nil {
		return k.builtin(Deny, RuleProtected, fmt.Sprintf("%s touches a protected path: %v", k.text, f.protected))
	}
	if sc.ExposesEnv == shell.EnvOthers {
		return k.builtin(Deny, RuleProtected, fmt.Sprintf("%s shows the environment of other processes (%s), which aidex does not clean of credentials; like /proc/PID/environ it is refused in every mode",
			k.text, sc.ExposesEnvReason))
	}
	p.trackCd(sc, st)
	if v, ok := k.unsure(f); ok {
		return v
	}
	return k.byMode(k.readOnly(f, st), f)
}

// unsure handles ask rules, a non-literal command name and paths outside
// the workspace: no allow rule or mode can approve them.
func (k *commandCheck) unsure(f argFindings) (CommandVerdict, bool) {
	p := k.p
	if r := k.restrictive(Ask); r != nil {
		return k.verdict(Ask, r.String(), r.Source, fmt.Sprintf("%s needs approval by the rule %s (from %s)", k.text, r, r.Source)), true
	}
	if k.sc.NonLiteral {
		return k.builtin(p.unsureDecision(), RuleShellAnalysis,
			fmt.Sprintf("the command name %s is not a literal word, so aidex cannot tell what runs; it needs approval and no rule can allow it", k.text)), true
	}
	if f.unknownDir != "" {
		return k.builtin(p.unsureDecision(), RuleConfinement,
			fmt.Sprintf("%s: aidex cannot tell which directory this is (%s), so later relative paths cannot be confined; it needs approval and no rule can allow it",
				k.text, f.unknownDir)), true
	}
	if len(f.outside) > 0 {
		return k.builtin(p.unsureDecision(), RuleConfinement,
			fmt.Sprintf("%s uses %s, outside the workspace %s; commands touching paths outside the workspace need approval (grant a directory with --add-dir)",
				k.text, strings.Join(f.outside, ", "), p.ws.Root())), true
	}
	if len(f.unsure) > 0 {
		return k.builtin(p.unsureDecision(), RuleConfinement,
			fmt.Sprintf("%s cannot be confined to the workspace: %s; it needs approval and no rule can allow it", k.text, strings.Join(f.unsure, "; "))), true
	}
	return CommandVerdict{}, false
}

// readOnly returns the name of a built-in read-only command, or "" when
// the command is not one here: it reads a credential file, or it is git
// (RootOnly) away from the workspace root, where git may discover a
// repository the workspace holds as plain files (a bare-style directory
// with HEAD, objects, refs and a config whose core.fsmonitor runs a
// program).
func (k *commandCheck) readOnly(f argFindings, st *execState) string {
	info, ro := shell.ReadOnly(k.sc)
	if !ro || f.cred {
		return ""
	}
	if info.RootOnly && (st.overflow || len(st.bases) != 1 || st.bases[0] != k.p.ws.Root()) {
		return ""
	}
	return info.Name
}

// byMode decides what the earlier checks left: protected writes, the
// mode, suspicious commands, the read-only tables (roName, "" when not
// read-only) and allow rules.
func (k *commandCheck) byMode(roName string, f argFindings) CommandVerdict {
	p, sc, text := k.p, k.sc, k.text
	if roName == "" && len(f.protWrite) > 0 && p.mode != ModePlan {
		return k.builtin(Ask, RuleProtected, fmt.Sprintf("%s may change the protected path %s (.git, .aidex, editor or agent config); this always needs approval, in every mode",
			text, strings.Join(f.protWrite, ", ")))
	}
	switch {
	case p.mode == ModePlan && roName != "":
		return k.builtin(Allow, RuleReadOnly, roName+" only reads")
	case p.mode == ModePlan:
		return k.builtin(Deny, "mode plan", fmt.Sprintf("plan mode allows only read-only commands; %s is not one of the built-in read-only commands", text))
	case p.mode == ModeYolo:
		return k.builtin(Allow, "mode yolo", text+" is allowed in yolo mode")
	case sc.Suspicious:
		return k.builtin(Ask, RuleShellAnalysis, fmt.Sprintf("%s needs approval and no rule can allow it: %s", text, sc.SuspiciousReason))
	case roName != "":
		return k.builtin(Allow, RuleReadOnly, roName+" only reads")
	}
	if r := firstRule(k.rules, Allow, CommandTool, func(r Rule) bool {
		return matchCommand(r.Pattern, text) && (!sc.InlineCode || namesInlineFlag(r.Pattern))
	}); r != nil {
		return k.verdict(Allow, r.String(), r.Source, fmt.Sprintf("%s is allowed by the rule %s (from %s)", text, r, r.Source))
	}
	why := "commands need approval in " + string(p.mode) + " mode"
	if f.cred {
		why = credentialWhy
	}
	return k.builtin(Ask, "mode "+string(p.mode), fmt.Sprintf("%s needs approval: %s", text, why))
}

// namesInlineFlag reports whether an allow rule's literal prefix names an
// inline-code flag ("python3 -c *"): "python3 *" does not allow
// "python3 -c CODE", whose code is opaque.
func namesInlineFlag(pattern string) bool {
	prefix, _, _ := strings.Cut(pattern, "*")
	return shell.MentionsInlineCode(prefix)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
