package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Environment readers. printenv is not read-only: the environment is not
// the workspace, and what it holds is the user's, not the project's. Every
// other way a command shows environment variables is judged the same:
// jq's env and $ENV, awk's ENVIRON, perl's %ENV, set, export -p, a
// here-document that expands $VAR, and the rest of envOwnReaders. The
// environments of other processes (ps e, /proc/PID/environ, a terminal
// multiplexer's or service manager's environment) are not the one aidex
// cleans of credentials for the commands it runs: the policy refuses them
// like the process-information paths under /proc.

// EnvExposure says whether a command shows environment variables.
type EnvExposure uint8

const (
	// EnvOwn: the command shows its own environment, which aidex gives it
	// without credentials (printenv, env, jq env, awk ENVIRON, set,
	// export -p, a here-document expanding $VAR). Not read-only.
	EnvOwn EnvExposure = iota + 1
	// EnvOthers: the command shows the environment of other processes,
	// which aidex does not clean (ps e, tmux show-environment,
	// systemctl show-environment). Refused like /proc/PID/environ.
	EnvOthers
)

// String returns "own" or "others".
func (e EnvExposure) String() string {
	switch e {
	case EnvOwn:
		return "own"
	case EnvOthers:
		return "others"
	}
	return "none"
}

// envReader decides, from a command's words (Words[0] the name), why it
// shows environment variables, or "" when it does not.
type envReader func(words []Word) string

// envOwnReaders are the commands that show their own environment, by base
// name (folded), with a version suffix allowed for interpreters
// ("python3.12"). Interpreters given inline code are unknown anyway
// (InlineCode); they are listed so that the reason is named.
var envOwnReaders = map[string]envReader{
	"printenv": always("printenv prints the environment"),
	"env":      always("env without a command prints the environment"),
	"set":      noArgs("set without arguments prints every variable"),
	"export":   declPrints("export"),
	"declare":  declPrints("declare"),
	"typeset":  declPrints("typeset"),
	"readonly": declPrints("readonly"),
	"local":    declPrints("local"),
	"compgen":  anyWord("compgen lists variable names", "-v", "-e", "variable", "export"),
	"jq":       jqReadsEnv,
	"gojq":     jqReadsEnv,
	"jaq":      jqReadsEnv,
	"awk":      anyPart("awk's ENVIRON holds the environment", "ENVIRON"),
	"gawk":     anyPart("awk's ENVIRON holds the environment", "ENVIRON"),
	"mawk":     anyPart("awk's ENVIRON holds the environment", "ENVIRON"),
	"nawk":     anyPart("awk's ENVIRON holds the environment", "ENVIRON"),
	"perl":     anyPart("perl's %ENV holds the environment", "ENV"),
	"ruby":     anyPart("ruby's ENV holds the environment", "ENV"),
	"python":   anyPart("python's os.environ holds the environment", "environ", "getenv"),
	"node":     anyPart("node's process.env holds the environment", "process"),
	"deno":     anyPart("Deno.env holds the environment", "env"),
	"bun":      anyPart("Bun.env holds the environment", "env"),
	"php":      anyPart("php's getenv and $_ENV hold the environment", "getenv", "_ENV", "_SERVER"),
	"lua":      anyPart("lua's os.getenv reads the environment", "getenv"),
	"tclsh":    anyPart("tcl's env array holds the environment", "env"),
}

// envOthersReaders show the environment of other processes.
var envOthersReaders = map[string]envReader{
	"ps":        psShowsEnv,
	"tmux":      anyWord("tmux show-environment prints the environment of the tmux server", "show-environment", "showenv"),
	"systemctl": anyWord("systemctl show-environment prints the service manager's environment", "show-environment"),
	"launchctl": anyWord("launchctl getenv and export print launchd's environment", "getenv", "export"),
}

// exposesEnv reports whether sc shows environment variables, and why.
// The analysis sets SimpleCommand.ExposesEnv from it for every command.
func exposesEnv(sc SimpleCommand) (EnvExposure, string) {
	if sc.NonLiteral {
		return 0, ""
	}
	base := sc.FoldedBase()
	if r, ok := envOthersReaders[base]; ok {
		if why := r(sc.Words); why != "" {
			return EnvOthers, why
		}
	}
	r, ok := envOwnReaders[base]
	if !ok {
		r, ok = envOwnReaders[strings.TrimRight(base, "0123456789.")]
	}
	if ok {
		if why := r(sc.Words); why != "" {
			return EnvOwn, why
		}
	}
	return 0, ""
}

func always(why string) envReader { return func([]Word) string { return why } }

func noArgs(why string) envReader {
	return func(words []Word) string {
		if len(words) == 1 {
			return why
		}
		return ""
	}
}

// declPrints: export, declare, readonly and the like print variables
// with -p, or without a name.
func declPrints(name string) envReader {
	return func(words []Word) string {
		names := 0
		for _, w := range words[1:] {
			v := w.Pattern
			switch {
			case v == "-p" || strings.HasPrefix(v, "-") && strings.Contains(v, "p"):
				return name + " -p prints variables"
			case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			default:
				names++
			}
		}
		if names == 0 {
			return name + " without a name prints variables"
		}
		return ""
	}
}

// anyWord: one of the words is exactly one of list.
func anyWord(why string, list ...string) envReader {
	return func(words []Word) string {
		for _, w := range words[1:] {
			for _, l := range list {
				if w.Pattern == l || w.Value == l {
					return why
				}
			}
		}
		return ""
	}
}

// anyPart: one of the words contains one of list (code given inline).
func anyPart(why string, list ...string) envReader {
	return func(words []Word) string {
		for _, w := range words[1:] {
			for _, l := range list {
				if strings.Contains(w.Value, l) || strings.Contains(w.Pattern, l) {
					return why
				}
			}
		}
		return ""
	}
}

// psValueOptions are ps options (procps and BSD) whose value is the next
// word: a user, command or format name is not a BSD option cluster.
var psValueOptions = set("-C -G -g -o -O -p -q -s -t -u -U -k --pid --ppid --sort --format --cols --columns " +
	"--rows --lines --width --user --User --group --Group --sid --tty --quick-pid -N --deselect o O p t U k")

// psShowsEnv: ps with the BSD "e" option (ps e, ps auxe, ps eww) or -E
// shows each process's environment.
func psShowsEnv(words []Word) string {
	const why = "ps e shows the environment of every process"
	for i := 1; i < len(words); i++ {
		v := words[i].Pattern
		if psValueOptions[v] {
			i++
			continue
		}
		switch {
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-"):
			if strings.Contains(v, "E") {
				return why
			}
		case allLetters(v) && strings.Contains(v, "e"):
			return why
		}
	}
	return ""
}

// jqReadsEnv: a jq filter that uses env or $ENV, comes from a file (-f,
// --from-file) or imports modules (import, include) may show the
// environment.
func jqReadsEnv(words []Word) string {
	filter, fromFile := jqFilter(words)
	switch {
	case fromFile:
		return "jq reads its filter from a file, which may use env or $ENV"
	case filter == nil:
		return ""
	case !filter.Literal:
		return "jq's filter is built at run time"
	}
	return jqFilterEnv(filter.Value)
}

// jq's options that take one or two values.
var (
	jqOneValue = set("--indent --tab-width -L --library-path")
	jqTwoValue = set("--arg --argjson --slurpfile --rawfile")
)

// jqFilter returns jq's filter (its first operand) and whether the filter
// comes from a file instead.
func jqFilter(words []Word) (*Word, bool) {
	for i := 1; i < len(words); i++ {
		v := words[i].Pattern
		name, _, eq := strings.Cut(v, "=")
		switch {
		case v == "--":
			if i+1 < len(words) {
				return &words[i+1], false
			}
			return nil, false
		case name == "--from-file" || longPrefixOf(name, "--from-file") && len(name) > len("--fr"):
			return nil, true
		case jqTwoValue[name] && !eq:
			i += 2
		case jqTwoValue[name]:
			i++
		case jqOneValue[name] && !eq:
			i++
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") && len(v) > 1:
			j := strings.IndexAny(v[1:], "fL")
			switch {
			case j < 0:
			case v[1+j] == 'f':
				return nil, true
			case 1+j == len(v)-1:
				i++ // -L DIR
			}
		default:
			return &words[i], false
		}
	}
	return nil, false
}

// jqFilterEnv scans a jq program for the env builtin, $ENV and module
// imports; string literals are skipped but their \(...) interpolations
// are code. A program it cannot read (an unterminated string) counts as
// using them.
func jqFilterEnv(src string) string {
	type frame struct{ depth int } // an interpolation: parentheses open inside it
	var stack []frame
	inString := false
	depth := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			switch c {
			case '\\':
				if i+1 < len(src) && src[i+1] == '(' {
					stack = append(stack, frame{depth})
					depth = 0
					inString = false
					i++
				} else {
					i++
				}
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 && len(stack) > 0 {
				depth = stack[len(stack)-1].depth
				stack = stack[:len(stack)-1]
				inString = true
				continue
			}
			depth--
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			if why := jqIdentEnv(src, i, src[i:j]); why != "" {
				return why
			}
			i = j - 1
		}
	}
	if inString || len(stack) > 0 {
		return "jq's filter does not parse (an unterminated string)"
	}
	return ""
}

// jqIdentEnv judges the identifier id at src[i:].
func jqIdentEnv(src string, i int, id string) string {
	prev := strings.TrimRight(src[:i], " \t\r\n")
	field := i > 0 && src[i-1] == '.' && (i < 2 || src[i-2] != '.')
	switch {
	case id == "env" && !field && !strings.HasSuffix(prev, "$") && !strings.HasSuffix(src[:i], "::"):
		return "jq's env builtin returns the environment"
	case id == "ENV" && strings.HasSuffix(prev, "$"):
		return "jq's $ENV holds the environment"
	case (id == "import" || id == "include") && !field && !strings.HasSuffix(prev, "$"):
		return "jq " + id + " loads a module, which may use env or $ENV"
	}
	return ""
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// expandsVariables reports a here-document or here-string whose text
// expands parameters ($VAR, ${VAR}, $1): the shell puts their values in
// the command's input. Command substitutions are judged as commands.
func expandsVariables(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		if partExpands(p) {
			return true
		}
	}
	return false
}

func partExpands(p syntax.WordPart) bool {
	switch x := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ExtGlob:
		return false
	case *syntax.DblQuoted:
		for _, dp := range x.Parts {
			if partExpands(dp) {
				return true
			}
		}
		return false
	case *syntax.ArithmExp:
		_, ok := constArith(x.X)
		return !ok
	}
	return true
}

// inputExpands reports a here-document or here-string among redirs that
// expands parameters.
func inputExpands(redirs []*syntax.Redirect) bool {
	for _, r := range redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if expandsVariables(r.Hdoc) {
				return true
			}
		case syntax.WordHdoc:
			if expandsVariables(r.Word) {
				return true
			}
		}
	}
	return false
}

// shellOwnVars are variables bash sets itself (or aidex sets for every
// command): testing them shows nothing of the environment.
var shellOwnVars = set("RANDOM SRANDOM SECONDS LINENO BASHPID PPID UID EUID EPOCHSECONDS EPOCHREALTIME BASH " +
	"BASH_VERSION BASH_VERSINFO BASH_REMATCH BASH_SOURCE BASH_LINENO BASH_SUBSHELL PIPESTATUS FUNCNAME GROUPS " +
	"HOSTNAME HOSTTYPE OSTYPE MACHTYPE SHLVL PWD OLDPWD IFS OPTIND OPTARG DIRSTACK REPLY")

// envTests lists the variables of the environment a line tests in its
// control structures ([[ $X == a* ]], case $X in ..., for w in $X,
// (( ${#X} > 3 ))): which branch runs shows what they hold, as printenv
// would. Variables the line gives values free of the environment itself
// (literal words, globs, command output, lines read: x=1; [[ $x == 1 ]]),
// special parameters and bash's own variables are not listed. A bare name
// in arithmetic is judged apart (walk.go: unknown unless the line gives it
// only integers).
func envTests(file *syntax.File) []string {
	given, all := lineGivenVars(file)
	var out []string
	note := func(w syntax.Node) {
		if w == nil {
			return
		}
		syntax.Walk(w, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				return false // commands are judged on their own
			case *syntax.ParamExp:
				if x.Param == nil {
					return true
				}
				name := x.Param.Value
				if isNumericSpecial(x) || !isName(name) || shellOwnVars[name] || given[name] && !all {
					return true
				}
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
			return true
		})
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.TestClause:
			note(x.X)
		case *syntax.CaseClause:
			note(x.Word)
		case *syntax.WordIter:
			for _, w := range x.Items {
				note(w)
			}
		case *syntax.ArithmCmd:
			note(x.X)
		case *syntax.LetClause:
			for _, e := range x.Exprs {
				note(e)
			}
		case *syntax.CStyleLoop:
			for _, e := range []syntax.ArithmExpr{x.Init, x.Cond, x.Post} {
				if e != nil {
					note(e)
				}
			}
		}
		return true
	})
	return out
}

// lineGivenVars returns the variables a line assigns only values free of
// the environment (no parameter expansion in any value it gives them), and
// whether it may assign any variable at all (eval, source, a nameref).
func lineGivenVars(file *syntax.File) (map[string]bool, bool) {
	clean, dirty := map[string]bool{}, map[string]bool{}
	mark := func(name string, w *syntax.Word) {
		if expandsVariables(w) {
			dirty[name] = true
		} else {
			clean[name] = true
		}
	}
	facts := collectFacts(file)
	syntax.Walk(file, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			switch {
			case x.Name == nil:
			case x.Array != nil:
				for _, e := range x.Array.Elems {
					mark(x.Name.Value, e.Value)
				}
			default:
				mark(x.Name.Value, x.Value)
			}
		case *syntax.WordIter:
			for _, w := range x.Items {
				mark(x.Name.Value, w)
			}
			if len(x.Items) == 0 {
				dirty[x.Name.Value] = true // for x; do: the positional parameters
			}
		case *syntax.ParamExp:
			if x.Exp != nil && x.Param != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				mark(x.Param.Value, x.Exp.Word)
			}
		case *syntax.CallExpr:
			readTargets(x, clean)
		}
		return true
	})
	for name := range facts.ints {
		clean[name] = true
	}
	for name := range dirty {
		delete(clean, name)
	}
	return clean, facts.all
}

// readInput are the builtins that assign lines of their input to the
// variables they name (a here-string's expansion is judged apart).
var readInput = set("read mapfile readarray")

// readTargets marks the variables read and mapfile name as given by the
// line: their values come from the command's input.
func readTargets(x *syntax.CallExpr, clean map[string]bool) {
	args := builtinArgs(x.Args)
	if len(args) == 0 {
		return
	}
	if name, _ := literalOf(args[0]); !readInput[name] {
		return
	}
	for _, w := range args[1:] {
		if v, ok := literalOf(w); ok && isName(v) {
			clean[v] = true
		}
	}
	if len(args) == 1 {
		clean["REPLY"], clean["MAPFILE"] = true, true
	}
}
