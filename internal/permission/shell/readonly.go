package shell

import "strings"

// operandRule limits the operands of a read-only command.
type operandRule uint8

const (
	operandsAny  operandRule = iota // files to read, patterns, revisions
	operandsNone                    // git remote, go version
	operandsOne                     // uniq IN OUT and xxd IN OUT write OUT
	operandsPlus                    // date +FORMAT; date MMDDhhmm sets the clock
)

// roSpec says when one command (or subcommand) only reads files and
// prints: every option must be in opts, and the operands must fit.
type roSpec struct {
	opts     optSpec
	data     bool        // every argument is text (echo, test, true)
	posix    bool        // options end at the first operand
	operands operandRule // how many operands, of what form
	// listWith names options that select a listing ("--list -l"): with
	// listAll every argument needs one of them, otherwise operands do
	// (git branch NAME creates a branch, git branch --list NAME lists).
	listWith string
	listAll  bool
	// subs holds the read-only subcommands (git, go), after the options
	// in global; the command alone is not read-only.
	global optSpec
	subs   map[string]*roSpec
	// name is the description in verdicts ("git branch (list)"); the
	// default is the command and subcommand.
	name string
	// rootOnly: only read-only at the workspace root (git discovers a
	// repository in parent directories and runs what its config names).
	rootOnly bool
	// custom replaces the generic check for commands whose arguments need
	// more than an option allowlist (find's expression, sed's script,
	// tar's archive names, git config's forms).
	custom func(s *roSpec, args []string) bool
}

// ReadOnlyInfo describes a command ReadOnly accepts.
type ReadOnlyInfo struct {
	// Name names the command for verdicts ("git status", "git branch (list)").
	Name string
	// RootOnly reports a command that is read-only only when it runs at
	// the workspace root (git, which discovers repositories upwards and
	// runs programs a discovered repository's config names).
	RootOnly bool
}

// ReadOnly reports whether sc only reads files and prints, according to
// the built-in tables. It fails closed: a command or subcommand missing
// from the tables, an option missing from its allowlist (abbreviated long
// options included), a non-literal word, a wrapper, an environment
// assignment of a variable off the harmless list (LANG, LC_*, TZ,
// NO_COLOR, TERM, COLUMNS, ...), inline code, a file listing more inputs
// (HasListInput) or showing environment variables (ExposesEnv, as
// printenv does) all make it not read-only. Path arguments are not judged
// here; the caller checks them.
func ReadOnly(sc SimpleCommand) (ReadOnlyInfo, bool) {
	if sc.NonLiteral || sc.Suspicious || sc.InlineCode || len(sc.Wrappers) > 0 && !sc.WrappersReadOnly ||
		sc.EnvPrefixed || strings.ContainsRune(sc.Name, '/') {
		return ReadOnlyInfo{}, false
	}
	for _, w := range sc.Words[1:] {
		if !w.Literal {
			return ReadOnlyInfo{}, false // $VAR may expand to secrets or options
		}
	}
	if sc.ExposesEnv != 0 {
		return ReadOnlyInfo{}, false // shows environment variables, like printenv
	}
	if _, ok := HasListInput(sc); ok {
		return ReadOnlyInfo{}, false // names of inputs read at run time
	}
	spec, ok := readOnlyCommands()[sc.Name]
	if !ok || sc.ArgsFromInput && !spec.data {
		return ReadOnlyInfo{}, false // xargs: arguments read at run time
	}
	name, ok := spec.accepts(sc.Name, sc.Args)
	if !ok {
		return ReadOnlyInfo{}, false
	}
	return ReadOnlyInfo{Name: name, RootOnly: spec.rootOnly}, true
}

// accepts reports whether args keep the command read-only, and its name.
func (s *roSpec) accepts(name string, args []string) (string, bool) {
	if s.name != "" {
		name = s.name
	}
	switch {
	case s.data:
		return name, true
	case s.custom != nil:
		if !s.custom(s, args) {
			return "", false
		}
		return name, true
	case s.subs != nil:
		r := s.global.check(args, true)
		if !r.ok || len(r.operands) == 0 {
			return "", false
		}
		sub, ok := s.subs[r.operands[0]]
		if !ok {
			return "", false
		}
		return sub.accepts(name+" "+r.operands[0], r.operands[1:])
	}
	if _, ok := s.generic(args); !ok {
		return "", false
	}
	return name, true
}

// generic checks args against the option allowlist and the operand and
// listing rules.
func (s *roSpec) generic(args []string) (scan, bool) {
	r := s.opts.check(args, s.posix)
	return r, r.ok && s.operandsFit(r.operands) && s.listing(r, len(args))
}

func (s *roSpec) operandsFit(ops []string) bool {
	switch s.operands {
	case operandsNone:
		return len(ops) == 0
	case operandsOne:
		return len(ops) <= 1
	case operandsPlus:
		for _, o := range ops {
			if !strings.HasPrefix(o, "+") {
				return false
			}
		}
	}
	return true
}

// listing checks the listWith rule.
func (s *roSpec) listing(r scan, nargs int) bool {
	if s.listWith == "" || nargs == 0 || !s.listAll && len(r.operands) == 0 {
		return true
	}
	for _, o := range strings.Fields(s.listWith) {
		if r.seen[o] {
			return true
		}
	}
	return false
}

// compileAll compiles the option notation of every spec in the table.
func compileAll(m map[string]*roSpec) map[string]*roSpec {
	for _, s := range m {
		s.opts.compile()
		s.global.compile()
		compileAll(s.subs)
	}
	return m
}
