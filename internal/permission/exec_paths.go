package permission

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/permission/shell"
)

// trackCd records literal cd/pushd targets inside the workspace.
func (p *Policy) trackCd(sc shell.SimpleCommand, st *execState) {
	if sc.Name != "cd" && sc.Name != "pushd" {
		return
	}
	for _, w := range sc.Words[1:] {
		if !w.Literal || strings.HasPrefix(w.Value, "-") {
			continue
		}
		p.addBases(w.Value, st)
		return
	}
}

// addBases adds dir, resolved from every directory the line may be in,
// to those directories (when it lies inside the workspace).
func (p *Policy) addBases(dir string, st *execState) {
	for _, b := range append([]string(nil), st.bases...) {
		if abs, err := p.ws.resolve(joinBase(b, dir)); err == nil && !containsStr(st.bases, abs) {
			if len(st.bases) >= maxBases {
				st.overflow = true
				return
			}
			st.bases = append(st.bases, abs)
		}
	}
}

// chdirOptions confines the directories a command's options make it work
// in (env -C DIR, git -C DIR, tar --directory=DIR, make -C DIR) like
// arguments, and adds them to the directories the line may be in, so that
// the command's relative paths (and the rest of the line's) are judged
// from there as well. A directory built at run time makes relative paths
// unknown.
func (p *Policy) chdirOptions(sc shell.SimpleCommand, st *execState, f *argFindings) {
	for _, o := range sc.PathOptions {
		if o.Access != shell.PathChdir {
			continue
		}
		w := o.Word
		if !w.Literal || w.Glob {
			f.outside = append(f.outside, w.Value+" (a directory built at run time)")
			st.overflow = true
			return
		}
		p.checkCandidate(shell.PathArg{Value: w.Value, Literal: true, Shown: w.Value}, st, f)
		if f.protected != nil || len(f.outside) > 0 {
			return
		}
		dir := w.Value
		if rest, ok := homeRest(dir); ok && strings.HasPrefix(dir, "~") && p.ws.home != "" {
			dir = filepath.Join(p.ws.home, rest)
		}
		p.addBases(dir, st)
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
	if p.chdirOptions(sc, st, &f); f.protected != nil {
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

// devSinks are harmless device paths (/dev/null, standard streams).
var devSinks = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/stdin": true, "/dev/tty": true,
	"/dev/zero": true, "/dev/random": true, "/dev/urandom": true, "/dev/fd/0": true, "/dev/fd/1": true, "/dev/fd/2": true,
}

// isDevSink reports harmless device paths.
func isDevSink(v string) bool { return devSinks[filepath.Clean(v)] }

// targetCheck decides one file a line writes or reads outside of a
// command's arguments (a redirection, tee FILE, dd of=FILE).
type targetCheck struct {
	p     *Policy
	shown string // "> path"
	verb  string // "writes" or "reads"
	write bool
}

func (k targetCheck) verdict(d Decision, rule, source, reason string) CommandVerdict {
	return CommandVerdict{Command: k.shown, Decision: d, Rule: rule, Source: source, Reason: reason}
}

// decideTarget decides a redirection, tee or dd target.
func (p *Policy) decideTarget(t shell.Target, write bool, rules []Rule, st *execState) CommandVerdict {
	w := t.Word
	k := targetCheck{p: p, shown: t.Op + " " + w.Value, verb: "reads", write: write}
	if write {
		k.verb = "writes"
	}
	v := w.Value
	if !w.Literal || w.Glob {
		v = w.Pattern
	}
	if isDevSink(v) || (w.Literal && (t.Op == "tee" && v == "-")) {
		return k.verdict(Allow, RuleShellAnalysis, SourceBuiltin, k.shown+" is a standard stream")
	}
	if strings.HasPrefix(v, "~") {
		rest, ok := homeRest(v)
		if !ok || p.ws.home == "" {
			return k.outside()
		}
		v = filepath.Join(p.ws.home, rest)
	}
	if !w.Literal || w.Glob {
		return k.pattern(v, w.Value)
	}
	return k.literal(v, rules, st)
}

// pattern decides a target built at run time by its literal prefix.
func (k targetCheck) pattern(pat, shown string) CommandVerdict {
	var f argFindings
	k.p.checkPattern(pat, shown, &f)
	if f.protected != nil {
		return k.verdict(Deny, RuleProtected, SourceBuiltin, fmt.Sprintf("the line %s %v", k.verb, f.protected))
	}
	if len(f.outside) > 0 {
		return k.outside()
	}
	return k.verdict(k.p.unsureDecision(), RuleShellAnalysis, SourceBuiltin,
		fmt.Sprintf("the line %s %s, a path built at run time; it needs approval and no rule can allow it", k.verb, shown))
}

// literal decides a literal target from every directory the line may be
// in, like write_file or read_file would.
func (k targetCheck) literal(v string, rules []Rule, st *execState) CommandVerdict {
	p := k.p
	tool := "read_file"
	if k.write {
		tool = "write_file"
	}
	worst := CommandVerdict{Decision: Allow}
	for _, b := range st.bases {
		abs, err := p.ws.resolve(joinBase(b, v))
		if err != nil {
			if errors.Is(err, ErrOutsideWorkspace) {
				return k.outside()
			}
			return k.verdict(Deny, RuleProtected, SourceBuiltin, fmt.Sprintf("the line %s %v", k.verb, err))
		}
		pv := p.checkOnePath(tool, k.write, abs, rules)
		if pv.Decision.severity() > worst.Decision.severity() || worst.Rule == "" {
			worst = k.verdict(pv.Decision, pv.Rule, pv.Source, "the line "+k.verb+" "+p.ws.Rel(abs)+": "+pv.Reason)
		}
	}
	return worst
}

// outside decides a target outside the workspace: writes are denied,
// reads need approval.
func (k targetCheck) outside() CommandVerdict {
	p := k.p
	if p.ws.unconfined {
		return k.verdict(p.unsureDecision(), RuleShellAnalysis, SourceBuiltin, "the line "+k.verb+" "+k.shown+" outside the workspace")
	}
	d := p.unsureDecision()
	if k.write {
		d = Deny
	}
	return k.verdict(d, RuleConfinement, SourceBuiltin, fmt.Sprintf("the line %s %s, outside the workspace %s: writes are confined to the workspace; ask the user to add a directory with --add-dir",
		k.verb, k.shown, p.ws.Root()))
}
