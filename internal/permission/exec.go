package permission

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/permission/shell"
)

// Rule names for shell decisions not made by a user rule.
const (
	RuleShellAnalysis = "shell analysis"
	RuleReadOnly      = "built-in read-only command"
)

// checkExec decides a run_command request.
func (p *Policy) checkExec(req Request, rules []Rule) Verdict {
	if strings.TrimSpace(req.Command) == "" {
		return builtin(Deny, RuleShellAnalysis, "empty command: give the command line to run")
	}
	bases := []string{p.ws.Root()}
	if len(req.Paths) > 0 {
		bases = bases[:0]
		for _, raw := range req.Paths {
			abs, err := p.ws.Resolve(raw)
			if err != nil {
				v := pathErrorVerdict(err)
				v.Reason = "the working directory " + v.Reason
				return v
			}
			bases = append(bases, abs)
		}
	}
	a := shell.Analyze(req.Command)
	if a.ParseErr != nil {
		d := Ask
		if p.mode == ModePlan {
			d = Deny
		}
		v := builtin(d, RuleShellAnalysis, fmt.Sprintf("the command could not be analysed (%v); a command aidex cannot parse is never allowed without approval", a.ParseErr))
		v.Commands = []CommandVerdict{{Command: truncate(req.Command, 200), Decision: d, Rule: v.Rule, Source: v.Source, Reason: v.Reason}}
		return v
	}
	var entries []CommandVerdict
	addLine := func(d Decision, rule, reason string) {
		entries = append(entries, CommandVerdict{Command: "(whole line)", Decision: d, Rule: rule, Source: SourceBuiltin, Reason: reason})
	}
	if p.safeMode {
		if r := shell.SafeModeLine(a); r != "" {
			addLine(Deny, "safe_mode: "+r, "blocked by safe_mode: "+r)
		}
	}
	for _, o := range a.Opaque {
		addLine(p.unsureDecision(), RuleShellAnalysis, "analysis cannot see what runs ("+o+"), so it needs approval and no rule can allow it")
	}
	if len(a.EnvChanges) > 0 && p.mode != ModeYolo {
		addLine(p.unsureDecision(), RuleShellAnalysis, "the line sets "+strings.Join(a.EnvChanges, ", ")+", which changes what later commands run; it needs approval")
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
	worst := entries[0]
	for _, e := range entries[1:] {
		if e.Decision.severity() > worst.Decision.severity() {
			worst = e
		}
	}
	return Verdict{Decision: worst.Decision, Rule: worst.Rule, Source: worst.Source, Reason: worst.Reason, Commands: entries}
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
	overflow bool // too many cd targets to track: relative paths are unknown
}

// maxBases bounds the directories tracked through cd (each cd can double
// the set, since aidex does not know which cd succeeded).
const maxBases = 16

type argFindings struct {
	protected *PathError
	outside   []string
	cred      bool
	protWrite []string // arguments inside .git, .aidex, ... (IsProtectedWrite)
}

func (p *Policy) decideCommand(sc shell.SimpleCommand, rules []Rule, st *execState) CommandVerdict {
	text := sc.Text()
	cv := func(d Decision, rule, source, reason string) CommandVerdict {
		return CommandVerdict{Command: text, Decision: d, Rule: rule, Source: source, Reason: reason}
	}
	alt := sc.FoldedText()
	denyMatch := func(r Rule) bool { return matchCommand(r.Pattern, text) || matchCommand(r.Pattern, alt) }
	if r := firstRule(rules, Deny, CommandTool, denyMatch); r != nil {
		return cv(Deny, r.String(), r.Source, fmt.Sprintf("%s is denied by the rule %s (from %s)", text, r, r.Source))
	}
	if p.safeMode {
		if r := shell.SafeModeCommand(sc, p.ws.home); r != "" {
			return cv(Deny, "safe_mode: "+r, SourceBuiltin, fmt.Sprintf("%s is blocked by safe_mode: %s", text, r))
		}
	}
	f := p.pathArgs(sc, st)
	if f.protected != nil {
		return cv(Deny, RuleProtected, SourceBuiltin, fmt.Sprintf("%s touches a protected path: %v", text, f.protected))
	}
	p.trackCd(sc, st)
	if r := firstRule(rules, Ask, CommandTool, denyMatch); r != nil {
		return cv(Ask, r.String(), r.Source, fmt.Sprintf("%s needs approval by the rule %s (from %s)", text, r, r.Source))
	}
	if sc.NonLiteral {
		return cv(p.unsureDecision(), RuleShellAnalysis, SourceBuiltin,
			fmt.Sprintf("the command name %s is not a literal word, so aidex cannot tell what runs; it needs approval and no rule can allow it", text))
	}
	if len(f.outside) > 0 {
		return cv(p.unsureDecision(), RuleConfinement, SourceBuiltin,
			fmt.Sprintf("%s uses %s, outside the workspace %s; commands touching paths outside the workspace need approval (grant a directory with --add-dir)",
				text, strings.Join(f.outside, ", "), p.ws.Root()))
	}
	info, ro := shell.ReadOnly(sc)
	roName := info.Name
	ro = ro && !f.cred
	if ro && info.RootOnly && (st.overflow || len(st.bases) != 1 || st.bases[0] != p.ws.Root()) {
		// Outside the root, git may discover a repository the workspace
		// holds as plain files (a bare-style directory with HEAD, objects,
		// refs and a config whose core.fsmonitor runs a program).
		ro = false
	}
	if !ro && len(f.protWrite) > 0 && p.mode != ModePlan {
		return cv(Ask, RuleProtected, SourceBuiltin, fmt.Sprintf("%s may change the protected path %s (.git, .aidex, editor or agent config); this always needs approval, in every mode",
			text, strings.Join(f.protWrite, ", ")))
	}
	if p.mode == ModePlan {
		if ro {
			return cv(Allow, RuleReadOnly, SourceBuiltin, roName+" only reads")
		}
		return cv(Deny, "mode plan", SourceBuiltin, fmt.Sprintf("plan mode allows only read-only commands; %s is not one of the built-in read-only commands", text))
	}
	if p.mode == ModeYolo {
		return cv(Allow, "mode yolo", SourceBuiltin, text+" is allowed in yolo mode")
	}
	if sc.Suspicious {
		return cv(Ask, RuleShellAnalysis, SourceBuiltin, fmt.Sprintf("%s needs approval and no rule can allow it: %s", text, sc.SuspiciousReason))
	}
	if ro {
		return cv(Allow, RuleReadOnly, SourceBuiltin, roName+" only reads")
	}
	if r := firstRule(rules, Allow, CommandTool, func(r Rule) bool {
		return matchCommand(r.Pattern, text) && (!sc.InlineCode || namesInlineFlag(r.Pattern))
	}); r != nil {
		return cv(Allow, r.String(), r.Source, fmt.Sprintf("%s is allowed by the rule %s (from %s)", text, r, r.Source))
	}
	why := "commands need approval in " + string(p.mode) + " mode"
	if f.cred {
		why = "it reads a credential file (.env, keys, tokens)"
	}
	return cv(Ask, "mode "+string(p.mode), SourceBuiltin, fmt.Sprintf("%s needs approval: %s", text, why))
}

// namesInlineFlag reports whether an allow rule's literal prefix names an
// inline-code flag ("python3 -c *"): "python3 *" does not allow
// "python3 -c CODE", whose code is opaque.
func namesInlineFlag(pattern string) bool {
	prefix, _, _ := strings.Cut(pattern, "*")
	return shell.MentionsInlineCode(prefix)
}

// trackCd records literal cd/pushd targets inside the workspace.
func (p *Policy) trackCd(sc shell.SimpleCommand, st *execState) {
	if sc.Name != "cd" && sc.Name != "pushd" {
		return
	}
	for _, w := range sc.Words[1:] {
		if !w.Literal || strings.HasPrefix(w.Value, "-") {
			continue
		}
		for _, b := range append([]string(nil), st.bases...) {
			if abs, err := p.ws.resolve(joinBase(b, w.Value)); err == nil && !containsStr(st.bases, abs) {
				if len(st.bases) >= maxBases {
					st.overflow = true
					return
				}
				st.bases = append(st.bases, abs)
			}
		}
		return
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func joinBase(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// pathArgs checks the arguments of a command that look like paths.
func (p *Policy) pathArgs(sc shell.SimpleCommand, st *execState) argFindings {
	var f argFindings
	if sc.NonLiteral {
		return f
	}
	if base := sc.Base(); base == "cd" || base == "pushd" {
		switch {
		case len(sc.Words) == 1:
			f.outside = append(f.outside, "~ (cd without arguments goes to the home directory)")
		case base == "cd" && containsStr(sc.Args, "-"):
			f.outside = append(f.outside, "- (cd - goes to the previous directory, $OLDPWD)")
		}
	}
	for _, cand := range shell.PathArgs(sc) {
		p.checkCandidate(cand, st, &f)
		if f.protected != nil {
			return f
		}
	}
	return f
}

// checkCandidate resolves one candidate against every possible cwd.
func (p *Policy) checkCandidate(c shell.PathArg, st *execState, f *argFindings) {
	v := c.Value
	if isDevSink(v) || strings.Contains(v, "://") {
		return
	}
	if strings.HasPrefix(v, "~") {
		rest, ok := homeRest(v)
		if !ok || p.ws.home == "" {
			if !p.ws.unconfined {
				f.outside = append(f.outside, c.Shown)
			}
			return
		}
		v = filepath.Join(p.ws.home, rest)
	}
	if isCredentialFileName(filepath.Base(v)) {
		f.cred = true
	}
	if !c.Literal {
		p.checkPattern(v, c.Shown, f)
		return
	}
	if st.overflow && !filepath.IsAbs(v) {
		f.outside = append(f.outside, c.Shown+" (after too many cd commands to track)")
		return
	}
	for _, b := range st.bases {
		abs, err := p.ws.resolve(joinBase(b, v))
		if err == nil {
			if p.ws.IsProtectedWrite(abs) {
				f.protWrite = append(f.protWrite, c.Shown)
			}
			continue
		}
		var pe *PathError
		switch {
		case errors.As(err, &pe) && errors.Is(err, ErrProtected):
			f.protected = pe
			return
		case errors.Is(err, ErrOutsideWorkspace):
			f.outside = append(f.outside, c.Shown)
			return
		}
	}
}

// homeRest splits "~" or "~/x" into "x"; "~user" is not handled (ok false).
func homeRest(v string) (string, bool) {
	if v == "~" {
		return "", true
	}
	if rest, ok := strings.CutPrefix(v, "~/"); ok {
		return rest, true
	}
	return "", false
}

// checkPattern judges a non-literal or globbed path by its literal prefix.
func (p *Policy) checkPattern(pat, shown string, f *argFindings) {
	if !filepath.IsAbs(pat) {
		return // relative globs expand inside the current directory
	}
	prefix := pat
	if i := strings.IndexAny(prefix, "*?["); i >= 0 {
		prefix = prefix[:i]
	}
	comps := splitComponents(pat)
	if len(comps) >= 2 && comps[0] == "proc" && (strings.ContainsAny(comps[1], "*?[") || isProcPID(comps[1])) {
		f.protected = &PathError{Path: shown, Reason: "may name process information under /proc (environment, memory, file descriptors)", Rule: RuleProtected, Err: ErrProtected}
		return
	}
	dir := filepath.Clean(prefix)
	if !strings.HasSuffix(prefix, "/") {
		dir = filepath.Dir(dir)
	}
	if loc, what := p.ws.protectedLocation(dir); loc != "" && !p.ws.grantedAtOrBelow(loc) {
		f.protected = &PathError{Path: shown, Reason: "is a protected path (" + loc + " " + what + ")", Rule: RuleProtected, Err: ErrProtected}
		return
	}
	if !p.ws.unconfined && !p.ws.inAllowed(dir) {
		f.outside = append(f.outside, shown)
	}
}

// isDevSink reports harmless device paths (/dev/null, standard streams).
func isDevSink(v string) bool {
	switch filepath.Clean(v) {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "/dev/random",
		"/dev/urandom", "/dev/fd/1", "/dev/fd/2", "/dev/fd/0":
		return true
	}
	return false
}

// decideTarget decides a redirection, tee or dd target.
func (p *Policy) decideTarget(t shell.Target, write bool, rules []Rule, st *execState) CommandVerdict {
	w := t.Word
	shown := t.Op + " " + w.Value
	cv := func(d Decision, rule, source, reason string) CommandVerdict {
		return CommandVerdict{Command: shown, Decision: d, Rule: rule, Source: source, Reason: reason}
	}
	verb := "reads"
	if write {
		verb = "writes"
	}
	v := w.Value
	if !w.Literal || w.Glob {
		v = w.Pattern
	}
	if isDevSink(v) || (w.Literal && (t.Op == "tee" && v == "-")) {
		return cv(Allow, RuleShellAnalysis, SourceBuiltin, shown+" is a standard stream")
	}
	if strings.HasPrefix(v, "~") {
		rest, ok := homeRest(v)
		if !ok || p.ws.home == "" {
			return p.outsideTarget(shown, verb, write, cv)
		}
		v = filepath.Join(p.ws.home, rest)
	}
	if !w.Literal || w.Glob {
		var f argFindings
		p.checkPattern(v, w.Value, &f)
		if f.protected != nil {
			return cv(Deny, RuleProtected, SourceBuiltin, fmt.Sprintf("the line %s %v", verb, f.protected))
		}
		if len(f.outside) > 0 {
			return p.outsideTarget(shown, verb, write, cv)
		}
		return cv(p.unsureDecision(), RuleShellAnalysis, SourceBuiltin,
			fmt.Sprintf("the line %s %s, a path built at run time; it needs approval and no rule can allow it", verb, w.Value))
	}
	worst := CommandVerdict{Decision: Allow}
	for _, b := range st.bases {
		abs, err := p.ws.resolve(joinBase(b, v))
		if err != nil {
			if errors.Is(err, ErrOutsideWorkspace) {
				return p.outsideTarget(shown, verb, write, cv)
			}
			return cv(Deny, RuleProtected, SourceBuiltin, fmt.Sprintf("the line %s %v", verb, err))
		}
		tool := "read_file"
		if write {
			tool = "write_file"
		}
		pv := p.checkOnePath(tool, write, abs, rules)
		if pv.Decision.severity() > worst.Decision.severity() || worst.Rule == "" {
			worst = cv(pv.Decision, pv.Rule, pv.Source, "the line "+verb+" "+p.ws.Rel(abs)+": "+pv.Reason)
		}
	}
	return worst
}

func (p *Policy) outsideTarget(shown, verb string, write bool, cv func(Decision, string, string, string) CommandVerdict) CommandVerdict {
	if p.ws.unconfined {
		return cv(p.unsureDecision(), RuleShellAnalysis, SourceBuiltin, "the line "+verb+" "+shown+" outside the workspace")
	}
	d := p.unsureDecision()
	if write {
		d = Deny
	}
	return cv(d, RuleConfinement, SourceBuiltin, fmt.Sprintf("the line %s %s, outside the workspace %s: writes are confined to the workspace; ask the user to add a directory with --add-dir",
		verb, shown, p.ws.Root()))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
