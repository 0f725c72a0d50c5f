package permission

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/ospath"
	"github.com/zelvior/aidex/internal/permission/shell"
)

// trackCd records the directories a cd/pushd may lead to. A target the
// analysis cannot confine (built at run time, -, ~, the directory stack,
// outside the workspace) loses track: later relative paths are unknown.
func (p *Policy) trackCd(sc shell.SimpleCommand, st *execState) {
	base := sc.Base()
	if base != "cd" && base != "pushd" && base != "popd" {
		return
	}
	w, ok := cdTarget(sc)
	if base == "popd" || !ok || cdUnknown(base, w) != "" || w.Value == "-" || strings.HasPrefix(w.Value, "~") {
		st.overflow = true
		return
	}
	dir, why := p.hostArg(w.Value, st.bases)
	if why != "" {
		st.overflow = true
		return
	}
	p.addBases(dir, st)
}

// cdTarget returns the directory operand of cd or pushd (after its
// options), or false when there is none.
func cdTarget(sc shell.SimpleCommand) (shell.Word, bool) {
	for i, w := range sc.Words[1:] {
		switch {
		case w.Literal && w.Value == "--":
			if i+2 < len(sc.Words) {
				return sc.Words[i+2], true
			}
			return shell.Word{}, false
		case w.Literal && len(w.Value) > 1 && w.Value[0] == '-' && !isStackIndex(w.Value):
			continue // -L, -P, -e, -@
		}
		return w, true
	}
	return shell.Word{}, false
}

// isStackIndex reports pushd's +N / -N, an entry of the directory stack.
func isStackIndex(v string) bool {
	if len(v) < 2 || v[0] != '+' && v[0] != '-' {
		return false
	}
	_, err := strconv.Atoi(v[1:])
	return err == nil
}

// cdUnknown says why a cd/pushd target cannot be confined ("" when it
// can be resolved): a directory built at run time or taken from the stack.
func cdUnknown(base string, w shell.Word) string {
	switch {
	case !w.Literal || w.Glob:
		return w.Value + " is built at run time"
	case base == "pushd" && isStackIndex(w.Value):
		return w.Value + " is an entry of the directory stack"
	}
	return ""
}

// addBases adds dir, resolved from every directory the line may be in,
// to those directories. A directory that does not resolve inside the
// workspace, or one too many, loses track: later relative paths are
// unknown.
func (p *Policy) addBases(dir string, st *execState) {
	for _, b := range append([]string(nil), st.bases...) {
		abs, err := p.ws.resolve(physicalJoin(b, dir))
		switch {
		case err != nil || len(st.bases) >= maxBases && !containsStr(st.bases, abs):
			st.overflow = true
			return
		case !containsStr(st.bases, abs):
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
		dir, why := p.hostArg(w.Value, st.bases)
		if why != "" {
			st.overflow = true
			return
		}
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

// pathArgs checks the arguments of a command that look like paths, and
// the option values that name paths. A command that reads names of inputs
// at run time (a list file, xargs' input: shell.HasListInput) cannot be
// confined: its list's own path is checked, and the command is unknown.
func (p *Policy) pathArgs(sc shell.SimpleCommand, st *execState) argFindings {
	var f argFindings
	if sc.NonLiteral {
		return f
	}
	if p.chdirOptions(sc, st, &f); f.protected != nil {
		return f
	}
	cdFindings(sc, &f)
	for _, cand := range shell.PathArgs(sc) {
		p.checkCandidate(cand, st, &f)
		if f.protected != nil {
			return f
		}
	}
	if what, ok := shell.HasListInput(sc); ok {
		f.unsure = append(f.unsure, what+" names more inputs, which are read only when the command runs")
	}
	if len(f.outside) == 0 {
		p.checkRecursion(sc, st, &f)
	}
	return f
}

// cdFindings judges the target of cd, pushd and popd: the home
// directory, $OLDPWD and the directory stack are outside what the line
// shows, and a target built at run time cannot be confined.
func cdFindings(sc shell.SimpleCommand, f *argFindings) {
	base := sc.Base()
	if base != "cd" && base != "pushd" && base != "popd" {
		return
	}
	w, ok := cdTarget(sc)
	switch {
	case base == "popd":
		f.unknownDir = "popd returns to a directory of the stack"
	case !ok && base == "cd":
		f.outside = append(f.outside, "~ (cd without arguments goes to the home directory)")
	case !ok:
		f.unknownDir = "pushd without a directory swaps to the previous one"
	case w.Literal && w.Value == "-":
		f.outside = append(f.outside, "- (cd - goes to the previous directory, $OLDPWD)")
	default:
		if why := cdUnknown(base, w); why != "" {
			f.unknownDir = why
		}
	}
}

// checkCandidate resolves one candidate against every possible cwd.
func (p *Policy) checkCandidate(c shell.PathArg, st *execState, f *argFindings) {
	v := c.Value
	if isDevSink(v) || strings.Contains(v, "://") {
		return
	}
	if p.shell.Paths == ospath.Windows && isWindowsNul(v) {
		return
	}
	v, why := p.hostArg(v, st.bases)
	if why != "" {
		if !p.ws.unconfined {
			f.outside = append(f.outside, c.Shown+" = "+why)
		}
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
		if p.checkPattern(v, c.Shown, f); f.protected == nil && len(f.outside) == 0 {
			p.checkGlob(v, c.Shown, st, f)
		}
		return
	}
	if st.overflow && !filepath.IsAbs(v) {
		f.outside = append(f.outside, c.Shown+" (after a cd aidex cannot follow)")
		return
	}
	for _, b := range st.bases {
		if p.judgeArgPath(physicalJoin(b, v), c.Shown, f) {
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

// checkPattern judges a non-literal or globbed absolute path by its
// literal prefix (checkGlob then judges what it matches).
func (p *Policy) checkPattern(pat, shown string, f *argFindings) {
	if !filepath.IsAbs(pat) {
		return // relative: checkGlob judges the matches
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
	if isDevSink(v) || (w.Literal && (t.Op == "tee" && v == "-")) || (p.shell.Paths == ospath.Windows && isWindowsNul(v)) {
		return k.verdict(Allow, RuleShellAnalysis, SourceBuiltin, k.shown+" is a standard stream")
	}
	v, why := p.hostArg(v, st.bases)
	if why != "" {
		k.shown += " = " + why
		return k.outside()
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
	if st.overflow && !filepath.IsAbs(v) {
		return k.verdict(p.unsureDecision(), RuleConfinement, SourceBuiltin,
			fmt.Sprintf("the line %s %s after a cd aidex cannot follow, so the path cannot be confined; it needs approval", k.verb, v))
	}
	worst := CommandVerdict{Decision: Allow}
	for _, b := range st.bases {
		abs, err := p.ws.resolve(physicalJoin(b, v))
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
