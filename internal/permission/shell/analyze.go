package shell

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxNesting bounds recursion into sh -c strings, eval and wrappers.
const maxNesting = 8

// maxCommandLine bounds the command line length analysed (bytes).
const maxCommandLine = 64 << 10

// Word is one shell word of a simple command.
type Word struct {
	// Value is the word after quote removal when Literal; otherwise the
	// word's source text (e.g. "$HOME/x").
	Value string
	// Literal reports that the word has no expansion ($VAR, $(...),
	// globs and brace expansion excluded; quotes and escapes are fine).
	Literal bool
	// Quoted reports that the word contains quotes or backslash escapes.
	Quoted bool
	// Pattern is the word with $HOME / ${HOME} / a leading ~ written as
	// "~" and every other expansion as "*"; used by the deny list.
	Pattern string
	// Glob reports unquoted glob or brace-expansion characters.
	Glob bool
}

// SimpleCommand is one command the line would run, after looking through
// wrappers (env, nohup, timeout, sudo, sh -c, xargs, ...).
type SimpleCommand struct {
	// Name is the command name's literal value ("curl" for c''url), or its
	// source text when NonLiteral.
	Name string
	// Args are the arguments: literal values, or source text for
	// non-literal words (see Words for detail).
	Args []string
	// Words holds the name (Words[0]) and arguments in detail.
	Words []Word
	// NonLiteral reports that the name is not a literal word ($X$Y).
	NonLiteral bool
	// Suspicious reports that no allow rule may approve this command, with
	// the reason in SuspiciousReason (quoted name, confusable characters,
	// dangerous environment assignment, ...). The deny list still applies.
	Suspicious bool
	// SuspiciousReason says why the command is Suspicious ("; "-joined).
	SuspiciousReason string
	// Wrappers lists the wrappers looked through, outermost first
	// ("sudo", "nohup", "sh -c", "find -exec", ...).
	Wrappers []string
	// Context says where the command appears: "" (top level), "subshell",
	// "command substitution", "process substitution", "function NAME".
	Context string
	// PipedFrom lists the base names of commands in earlier stages of the
	// same pipeline (their output reaches this command's stdin).
	PipedFrom []string
	// ArgCommands lists base names of commands run inside this command's
	// arguments (command and process substitutions).
	ArgCommands []string
	// StdinProgram reports a shell or interpreter that reads its program
	// from standard input (e.g. "... | sh").
	StdinProgram bool
	// InlineCode reports an interpreter given a program inline
	// (python -c, node -e, awk with system(), a pipe, getline or ENVIRON).
	InlineCode bool
	// Background reports the command runs in the background (&).
	Background bool
	// EnvPrefixed reports NAME=value assignments before the command (or an
	// enclosing one) of a variable off the harmless list (LANG, LC_*, TZ,
	// NO_COLOR, TERM, COLUMNS, ...), which can change what it reads,
	// writes or runs (RIPGREP_CONFIG_PATH, GIT_DIR, TAR_OPTIONS, ...).
	EnvPrefixed bool
	// PathOptions are the option values, of the command and of the
	// wrappers around it, that name files it reads or directories it runs
	// in, in order; the files they write are in Analysis.Writes.
	PathOptions []OptionPath
	// WrappersReadOnly reports that every wrapper in Wrappers only runs
	// the command, with options from its read-only allowlist (timeout 5,
	// nice, env LANG=C, env -C DIR, xargs -0): ReadOnly then judges the
	// wrapped command by itself.
	WrappersReadOnly bool
	// ArgsFromInput reports a command that gets more arguments at run
	// time from its input (xargs), which the analysis cannot see.
	ArgsFromInput bool
	// ExposesEnv reports a command that shows environment variables: its
	// own (printenv, env, jq env, awk ENVIRON, set, export -p, a
	// here-document expanding $VAR), which makes it not read-only, or
	// those of other processes (ps e, tmux show-environment), which the
	// policy refuses; ExposesEnvReason says how (envreaders.go).
	ExposesEnv       EnvExposure
	ExposesEnvReason string
}

// Base returns the base name of the command ("curl" for /usr/bin/curl).
func (c SimpleCommand) Base() string {
	if c.NonLiteral {
		return c.Name
	}
	return filepath.Base(c.Name)
}

// FoldedBase returns Base folded to ASCII (fullwidth forms mapped,
// invisible format characters dropped): "curl" for "ｃｕｒｌ".
func (c SimpleCommand) FoldedBase() string { return foldConfusable(c.Base()) }

// FoldedText renders the command like Text with the name replaced by its
// folded base name, for deny rules: "/usr/bin/curl x" and "ｃｕｒｌ x" are
// rendered "curl x".
func (c SimpleCommand) FoldedText() string {
	if c.NonLiteral {
		return c.Text()
	}
	f := c
	f.Words = append([]Word{literalWord(c.FoldedBase())}, c.Words[1:]...)
	return f.Text()
}

// Text renders the command as shell-quoted words for messages and rule
// matching, with non-printable characters escaped.
func (c SimpleCommand) Text() string {
	parts := make([]string, 0, len(c.Words))
	for _, w := range c.Words {
		if !w.Literal {
			parts = append(parts, EscapeInvisible(w.Value))
			continue
		}
		parts = append(parts, shellQuote(w.Value))
	}
	return strings.Join(parts, " ")
}

// Target is a file a command line writes or reads outside of a command's
// arguments: a redirection, or the file argument of tee / dd of=.
type Target struct {
	// Op is the redirection operator (">", ">>", "&>", ">|", "<>", "<")
	// or the command that writes ("tee", "dd of=", "--output").
	Op string
	// Word is the file, as a word of the line.
	Word Word
}

// Analysis is the result of Analyze.
type Analysis struct {
	// Line is the analysed command line.
	Line string
	// Commands are all simple commands, in source order.
	Commands []SimpleCommand
	// Writes are the files written by redirections, tee and similar.
	Writes []Target
	// Reads are the files read by input redirections (<).
	Reads []Target
	// ParseErr is set when the line does not parse; Commands may be empty.
	ParseErr error
	// NonLiteral reports that some command name is not a literal word, or
	// analysis gave up (too deep, non-literal sh -c string).
	NonLiteral bool
	// Opaque lists the reasons analysis could not see everything the line
	// runs (non-literal sh -c string, eval of an expansion, ...).
	Opaque []string
	// ForkBomb reports a function that calls itself through a pipe or in
	// the background.
	ForkBomb bool
	// Functions are the names of the functions the line defines.
	Functions []string
	// Aliases are the names of the aliases the line defines.
	Aliases []string
	// EnvChanges lists dangerous variables the line sets (PATH, LD_PRELOAD,
	// BASH_ENV, ...), which change what later commands run.
	EnvChanges []string
	// NetRedirects lists redirections to /dev/tcp or /dev/udp.
	NetRedirects []string
	// EnvTests lists the environment variables the line tests in its
	// control structures ([[ $X == a* ]], case $X in ...): which branch
	// runs shows what they hold, as printenv would (envreaders.go).
	EnvTests []string
}

type actx struct {
	context   string
	wrappers  []string
	pipedFrom []string
	stdin     bool // input comes from a pipe
	depth     int
	inFunc    string
	bg        bool
	taint     string           // reason inherited from a suspicious wrapper
	env       bool             // NAME=value assignments off the harmless list prefix the command
	in        *syntax.Redirect // the redirection standard input comes from (<<, <<<, <)
	input     string           // the wrapper feeding input lines as arguments (xargs, find -exec)
	replace   string           // the placeholder it replaces in the arguments ("{}")
	optPaths  []OptionPath     // path options of the wrappers around the command
	wrapTaint bool             // a wrapper around the command may not keep it read-only
	inputArgs bool             // the command gets arguments from its input (xargs)
	envInput  bool             // a here-document or here-string on the command expands variables
}

type analyzer struct {
	a        *Analysis
	recursed map[string]bool      // function names that call themselves via pipe/&
	seen     map[syntax.Node]bool // command and process substitutions analysed
}

// Analyze parses a bash command line with mvdan.cc/sh/v3/syntax and
// lists every simple command it runs, looking through lists (&&, ||, ;, &,
// newlines), pipelines, subshells, blocks, command and process
// substitutions, backticks, control structures, function bodies, aliases,
// and the wrappers env, nohup, timeout, nice, xargs, command, exec, time,
// sudo, doas, su -c, busybox, eval and sh/bash/zsh -c (parsed recursively).
// It never fails: a line that does not parse has ParseErr set.
func Analyze(line string) Analysis {
	a := Analysis{Line: line}
	if len(line) > maxCommandLine {
		a.ParseErr = fmt.Errorf("command line is %d bytes, over the %d-byte limit for analysis", len(line), maxCommandLine)
		return a
	}
	if strings.ContainsRune(line, 0) {
		a.ParseErr = errors.New("command line contains a NUL byte")
		return a
	}
	z := &analyzer{a: &a, recursed: map[string]bool{}, seen: map[syntax.Node]bool{}}
	z.parseAndWalk(line, actx{})
	return a
}

func (z *analyzer) parseAndWalk(src string, c actx) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if z.a.ParseErr == nil {
			z.a.ParseErr = fmt.Errorf("parse %q: %w", truncate(src, 80), err)
		}
		return
	}
	z.stmts(f.Stmts, c)
	z.checkFile(f, c)
}

func (z *analyzer) stmts(list []*syntax.Stmt, c actx) {
	for _, s := range list {
		z.stmt(s, c)
	}
}

func (z *analyzer) stmt(s *syntax.Stmt, c actx) {
	if s == nil {
		return
	}
	if s.Background || s.Coprocess || s.Disown {
		c.bg = true
	}
	for _, r := range s.Redirs {
		z.redirect(r, c)
		if isStdinRedirect(r) {
			c.in = r
		}
	}
	if inputExpands(s.Redirs) {
		c.envInput = true
	}
	z.command(s.Cmd, c)
}

// command walks one command: simple commands, lists, pipelines,
// subshells, blocks, function declarations and the control structures.
func (z *analyzer) command(cmd syntax.Command, c actx) {
	switch x := cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		z.call(x, c)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			z.pipeline(x, c)
			return
		}
		z.stmt(x.X, c)
		z.stmt(x.Y, c)
	case *syntax.Subshell:
		z.stmts(x.Stmts, withContext(c, "subshell"))
	case *syntax.Block:
		z.stmts(x.Stmts, c)
	case *syntax.FuncDecl:
		z.funcDecl(x, c)
	case *syntax.DeclClause:
		z.decl(x, c)
	case *syntax.TimeClause:
		z.stmt(x.Stmt, withWrapper(c, "time"))
	case *syntax.CoprocClause:
		c.bg = true
		z.stmt(x.Stmt, c)
	case *syntax.TestDecl:
		z.stmt(x.Body, c)
	default:
		if !z.control(cmd, c) {
			z.opaque(fmt.Sprintf("unsupported shell construct %T", cmd))
		}
	}
}

// control walks if, while, for, case, arithmetic, test and let commands;
// it reports whether cmd was one of them.
func (z *analyzer) control(cmd syntax.Command, c actx) bool {
	switch x := cmd.(type) {
	case *syntax.IfClause:
		for ic := x; ic != nil; ic = ic.Else {
			z.stmts(ic.Cond, c)
			z.stmts(ic.Then, c)
		}
	case *syntax.WhileClause:
		z.stmts(x.Cond, c)
		z.stmts(x.Do, c)
	case *syntax.ForClause:
		z.subs(x.Loop, c)
		z.stmts(x.Do, c)
	case *syntax.CaseClause:
		z.subs(x.Word, c)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				z.subs(p, c)
			}
			z.stmts(it.Stmts, c)
		}
	case *syntax.ArithmCmd:
		z.subs(x.X, c)
	case *syntax.TestClause:
		z.subs(x.X, c)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			z.subs(e, c)
		}
	default:
		return false
	}
	return true
}

func (z *analyzer) pipeline(b *syntax.BinaryCmd, c actx) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) &&
			len(s.Redirs) == 0 && !s.Negated {
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(b.X)
	flatten(b.Y)
	var before []string
	for i, s := range stages {
		sc := c
		sc.pipedFrom = append(append([]string(nil), c.pipedFrom...), before...)
		sc.stdin = c.stdin || i > 0
		start := len(z.a.Commands)
		z.stmt(s, sc)
		for _, cmd := range z.a.Commands[start:] {
			before = append(before, cmd.Base())
		}
	}
}

func (z *analyzer) funcDecl(f *syntax.FuncDecl, c actx) {
	names := []string{}
	if f.Name != nil {
		names = append(names, f.Name.Value)
	}
	for _, n := range f.Names {
		names = append(names, n.Value)
	}
	z.a.Functions = append(z.a.Functions, names...)
	for _, n := range names {
		fc := withContext(c, "function "+n)
		fc.inFunc = n
		start := len(z.a.Commands)
		z.stmt(f.Body, fc)
		for _, cmd := range z.a.Commands[start:] {
			if cmd.Name == n && (len(cmd.PipedFrom) > 0 || cmd.Background || hasPipeToSelf(z.a.Commands[start:], n)) {
				z.a.ForkBomb = true
			}
		}
		if len(names) > 1 {
			break
		}
	}
}

func hasPipeToSelf(cmds []SimpleCommand, name string) bool {
	for _, c := range cmds {
		for _, p := range c.PipedFrom {
			if p == name {
				return true
			}
		}
	}
	return false
}

func (z *analyzer) decl(d *syntax.DeclClause, c actx) {
	words := []Word{literalWord(d.Variant.Value)}
	for _, as := range d.Args {
		z.assign(as, c)
		if as.Name != nil {
			words = append(words, literalWord(as.Name.Value))
		} else if as.Value != nil {
			words = append(words, z.word(as.Value))
		}
	}
	z.add(SimpleCommand{Words: words}, c)
}

// assign analyses the substitutions inside an assignment (index, value,
// array) and returns the name it assigns when that name is not on the
// harmless list (checkFile judges what the assignment means for later
// commands).
func (z *analyzer) assign(as *syntax.Assign, c actx) string {
	if as.Index != nil {
		z.subs(as.Index, c)
	}
	if as.Value != nil {
		z.subs(as.Value, c)
	}
	if as.Array != nil {
		z.subs(as.Array, c)
	}
	if as.Name == nil || isHarmlessEnv(as.Name.Value) {
		return ""
	}
	return as.Name.Value
}

func (z *analyzer) call(x *syntax.CallExpr, c actx) {
	var unknownEnv []string
	for _, as := range x.Assigns {
		if n := z.assign(as, c); n != "" {
			unknownEnv = append(unknownEnv, n)
		}
	}
	if len(x.Args) == 0 {
		return
	}
	words := make([]Word, len(x.Args))
	var inner []string
	for i, w := range x.Args {
		inner = append(inner, z.subs(w, c)...)
		words[i] = z.word(w)
	}
	if len(unknownEnv) > 0 {
		c.env = true
	}
	z.simple(words, c, inner, unknownEnv)
}

// simple handles one simple command given as words, looking through wrappers.
func (z *analyzer) simple(words []Word, c actx, inner, envNames []string) {
	if len(words) == 0 {
		return
	}
	if c.depth > maxNesting {
		z.opaque("commands nested too deeply")
		z.add(SimpleCommand{Words: words, NonLiteral: true, Suspicious: true,
			SuspiciousReason: "nested too deeply to analyse"}, c)
		return
	}
	sc := SimpleCommand{Words: words, ArgCommands: inner, Name: words[0].Value}
	if c.taint != "" {
		markSuspicious(&sc, "run by a suspicious wrapper ("+c.taint+")")
	}
	if len(envNames) > 0 {
		markSuspicious(&sc, envReason(envNames))
	}
	name := words[0]
	if !name.Literal || name.Glob {
		sc.NonLiteral = true
		z.a.NonLiteral = true
		markSuspicious(&sc, "the command name is not a literal word")
		z.add(sc, c)
		return
	}
	if name.Quoted {
		markSuspicious(&sc, "the command name contains quotes or backslashes")
	}
	if reason := confusable(name.Value); reason != "" {
		markSuspicious(&sc, reason)
	}
	if z.unwrap(sc, c) {
		return
	}
	z.add(sc, c)
	z.innerCommands(sc, c)
}

func markSuspicious(sc *SimpleCommand, reason string) {
	if sc.Suspicious {
		sc.SuspiciousReason += "; " + reason
		return
	}
	sc.Suspicious = true
	sc.SuspiciousReason = reason
}

// add appends a command with its context information.
func (z *analyzer) add(sc SimpleCommand, c actx) {
	sc.Name = sc.Words[0].Value
	if !sc.Words[0].Literal {
		sc.NonLiteral = true
	}
	sc.Args = make([]string, 0, len(sc.Words)-1)
	for _, w := range sc.Words[1:] {
		sc.Args = append(sc.Args, w.Value)
	}
	sc.Context = c.context
	sc.Wrappers = append([]string(nil), c.wrappers...)
	sc.PipedFrom = append([]string(nil), c.pipedFrom...)
	sc.Background = c.bg
	sc.EnvPrefixed = c.env
	sc.WrappersReadOnly = len(c.wrappers) > 0 && !c.wrapTaint
	sc.ArgsFromInput = c.inputArgs
	sc.PathOptions = append(append([]OptionPath(nil), c.optPaths...), sc.PathOptions...)
	if !sc.NonLiteral {
		z.programSource(&sc, c)
	}
	if !sc.NonLiteral && hasInlineCode(sc) {
		sc.InlineCode = true
	}
	if !sc.NonLiteral && isNetworkCommand(foldConfusable(sc.Base())) && hasExpansionArg(sc) {
		markSuspicious(&sc, "a network command with arguments built at run time can send local data out (exfiltration)")
	}
	if !sc.NonLiteral && isInteractiveEscape(foldConfusable(sc.Base())) {
		markSuspicious(&sc, "an interactive pager or editor can run shell commands (!cmd, LESSOPEN)")
	}
	if sc.Name == "alias" {
		z.aliases(sc, c)
	}
	if !sc.NonLiteral {
		z.commandWrites(sc)
		z.commandPaths(&sc)
		listReaders(&sc)
		z.sedScripts(&sc)
		sc.ExposesEnv, sc.ExposesEnvReason = exposesEnv(sc)
	}
	if c.envInput && sc.ExposesEnv == 0 {
		sc.ExposesEnv, sc.ExposesEnvReason = EnvOwn, "its input is a here-document or here-string that expands variables"
	}
	z.a.Commands = append(z.a.Commands, sc)
}

func (z *analyzer) aliases(sc SimpleCommand, c actx) {
	for _, w := range sc.Words[1:] {
		name, val, ok := strings.Cut(w.Value, "=")
		if !ok {
			continue
		}
		z.a.Aliases = append(z.a.Aliases, name)
		if !w.Literal {
			z.opaque("alias with a non-literal value")
			continue
		}
		z.parseAndWalk(val, nested(c, "alias "+name))
	}
}

func (z *analyzer) opaque(reason string) {
	if !slices.Contains(z.a.Opaque, reason) {
		z.a.Opaque = append(z.a.Opaque, reason)
	}
}

func withContext(c actx, ctx string) actx {
	if c.context != "" {
		ctx = c.context + " > " + ctx
	}
	c.context = ctx
	return c
}

// withWrapper adds a wrapper to the context; the wrapped command is not
// read-only unless the caller vets the wrapper (wrapperOptions).
func withWrapper(c actx, w string) actx {
	c.wrappers = append(append([]string(nil), c.wrappers...), w)
	c.wrapTaint = true
	return c
}

func nested(c actx, wrapper string) actx {
	c = withWrapper(c, wrapper)
	c.depth++
	return c
}

// subs walks node for command and process substitutions, analyses their
// commands, and returns the base names of the commands found.
func (z *analyzer) subs(node syntax.Node, c actx) []string {
	if node == nil {
		return nil
	}
	var names []string
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			z.seen[x] = true
			start := len(z.a.Commands)
			z.stmts(x.Stmts, withContext(c, "command substitution"))
			names = append(names, baseNames(z.a.Commands[start:])...)
			return false
		case *syntax.ProcSubst:
			z.seen[x] = true
			start := len(z.a.Commands)
			z.stmts(x.Stmts, withContext(c, "process substitution"))
			names = append(names, baseNames(z.a.Commands[start:])...)
			return false
		}
		return true
	})
	return names
}

func baseNames(cmds []SimpleCommand) []string {
	out := make([]string, 0, len(cmds))
	for _, c := range cmds {
		out = append(out, c.Base())
	}
	return out
}

// redirect records write and read targets.
func (z *analyzer) redirect(r *syntax.Redirect, c actx) {
	if r.Word != nil {
		z.subs(r.Word, c)
	}
	if r.Hdoc != nil {
		z.subs(r.Hdoc, c)
	}
	if r.Word == nil {
		return
	}
	w := z.word(r.Word)
	if isNetDevice(w.Pattern) {
		z.a.NetRedirects = append(z.a.NetRedirects, w.Value)
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		z.a.Writes = append(z.a.Writes, Target{Op: r.Op.String(), Word: w})
	case syntax.DplOut:
		if !isFdWord(w) {
			z.a.Writes = append(z.a.Writes, Target{Op: r.Op.String(), Word: w})
		}
	case syntax.RdrIn:
		z.a.Reads = append(z.a.Reads, Target{Op: r.Op.String(), Word: w})
	}
}

func isFdWord(w Word) bool {
	if !w.Literal {
		return false
	}
	v := strings.TrimSuffix(w.Value, "-")
	if v == "" {
		return true
	}
	_, err := strconv.Atoi(v)
	return err == nil
}

func isNetDevice(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}
