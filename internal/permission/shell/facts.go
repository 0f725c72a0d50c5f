package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// varFacts is what one piece of shell code assigns to its variables. Bash
// evaluates the value of a variable used in arithmetic ((( v )), $((v)),
// [[ v -eq 1 ]], ${a[v]}) as an expression again, and a subscript in that
// value runs its command substitutions: v='x[$(cmd)]'; (( v )) runs cmd.
// A variable is therefore safe in arithmetic only when this code gives it
// nothing but integers; variables from the environment or assigned by a
// command (read, mapfile, eval, ...) are unknown.
type varFacts struct {
	ints      map[string]bool // given only integers (literals, arithmetic)
	tainted   map[string]bool // given something else, or named by a builtin that assigns
	all       bool            // anything may be assigned to any variable (eval, source, nameref, ...)
	intAttr   map[string]bool // declared with the integer attribute (declare -i)
	allexport bool            // set -a: every assignment is exported
}

// shellInts are variables bash keeps numeric whatever is assigned.
var shellInts = set("RANDOM SRANDOM SECONDS LINENO BASHPID PPID UID EUID EPOCHSECONDS")

// assigningBuiltins assign the variables their arguments name.
var assigningBuiltins = set("read mapfile readarray printf getopts unset wait declare typeset local export readonly")

// codeBuiltins run code in the current shell, which may assign anything.
var codeBuiltins = set("eval source . trap mapfile readarray")

// intSafe reports a variable whose value bash can evaluate as arithmetic
// without running anything.
func (f *varFacts) intSafe(name string) bool {
	return !f.all && !f.tainted[name] && (f.ints[name] || shellInts[name])
}

func (f *varFacts) set(name string, isInt bool) {
	if isInt {
		f.ints[name] = true
	} else {
		f.tainted[name] = true
	}
}

// collectFacts walks the whole file for everything that assigns variables.
func collectFacts(file *syntax.File) *varFacts {
	f := &varFacts{ints: map[string]bool{}, tainted: map[string]bool{}, intAttr: map[string]bool{}}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			f.assign(x)
		case *syntax.WordIter:
			f.set(x.Name.Value, len(x.Items) > 0 && allInts(x.Items))
		case *syntax.BinaryArithm:
			if isArithAssign(x.Op) {
				f.setTarget(x.X)
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				f.setTarget(x.X)
			}
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) && x.Param != nil {
				f.set(x.Param.Value, intWord(x.Exp.Word))
			}
		case *syntax.DeclClause:
			f.decl(x)
		case *syntax.CallExpr:
			f.call(x)
		}
		return true
	})
	return f
}

func (f *varFacts) assign(as *syntax.Assign) {
	switch {
	case as.Naked && as.Value != nil:
		if _, flag := declFlag(as); !flag {
			f.all = true // declare "$x": a name built at run time
		}
	case as.Naked || as.Name == nil:
	case as.Array != nil:
		isInt := true
		for _, e := range as.Array.Elems {
			isInt = isInt && intWord(e.Value)
		}
		f.set(as.Name.Value, isInt)
	default:
		f.set(as.Name.Value, intWord(as.Value))
	}
}

// setTarget records the variable an arithmetic assignment gives an integer.
func (f *varFacts) setTarget(x syntax.ArithmExpr) {
	if name := arithTargetName(x); name != "" {
		f.set(name, true)
	}
}

func (f *varFacts) decl(d *syntax.DeclClause) {
	var names []string
	integer := false
	for _, as := range d.Args {
		if flags, ok := declFlag(as); ok {
			f.all = f.all || strings.Contains(flags, "n") // a nameref assigns another variable
			integer = integer || strings.Contains(flags, "i")
		} else if as.Name != nil {
			names = append(names, as.Name.Value)
		}
	}
	if integer {
		for _, n := range names {
			f.intAttr[n] = true
		}
	}
}

// call records variables named by builtins that assign them, and builtins
// that run code in this shell.
func (f *varFacts) call(x *syntax.CallExpr) {
	args := builtinArgs(x.Args)
	if len(args) == 0 {
		return
	}
	name, _ := literalOf(args[0])
	if name == "set" {
		f.allexport = f.allexport || setsAllexport(args[1:])
	}
	if codeBuiltins[name] {
		f.all = true
	}
	if !assigningBuiltins[name] {
		return
	}
	for _, w := range args[1:] {
		lit, ok := literalOf(w)
		if !ok {
			f.all = true // a name built at run time
			continue
		}
		n, _, _ := strings.Cut(lit, "=")
		n, _, _ = strings.Cut(n, "[")
		if isName(n) {
			f.tainted[n] = true
		}
	}
}

// builtinArgs strips "builtin" and "command" in front of a builtin.
func builtinArgs(args []*syntax.Word) []*syntax.Word {
	for len(args) > 1 {
		if v, _ := literalOf(args[0]); v != "builtin" && v != "command" {
			break
		}
		args = args[1:]
	}
	return args
}

// literalOf returns the value of a word without expansions after quote
// removal.
func literalOf(w *syntax.Word) (string, bool) {
	x := (*analyzer)(nil).word(w)
	return x.Value, x.Literal
}

// setsAllexport reports set -a or set -o allexport.
func setsAllexport(args []*syntax.Word) bool {
	prev := ""
	for _, w := range args {
		v, _ := literalOf(w)
		if prev == "-o" && v == "allexport" {
			return true
		}
		if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "a") {
			return true
		}
		prev = v
	}
	return false
}

// declFlag returns the flags of a declare option word ("-xi").
func declFlag(as *syntax.Assign) (string, bool) {
	if !as.Naked || as.Value == nil {
		return "", false
	}
	v, _ := literalOf(as.Value)
	if len(v) > 1 && (v[0] == '-' || v[0] == '+') {
		return v[1:], true
	}
	return "", false
}

func allInts(words []*syntax.Word) bool {
	for _, w := range words {
		if !intWord(w) {
			return false
		}
	}
	return true
}

// intWord reports a word whose value is an integer: a literal number, a
// brace range of numbers, $((...)) or $# / $? / $$ / $!.
func intWord(w *syntax.Word) bool {
	if w == nil {
		return true
	}
	p := singlePart(w)
	switch x := p.(type) {
	case *syntax.Lit:
		return isIntLiteral(x.Value) || isIntRange(x.Value)
	case *syntax.ArithmExp:
		return true
	case *syntax.ParamExp:
		return isNumericSpecial(x)
	}
	return false
}

// singlePart returns the only part of a word, looking into "..." quotes;
// nil when the word has several parts.
func singlePart(w *syntax.Word) syntax.WordPart {
	if len(w.Parts) != 1 {
		return nil
	}
	if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok {
		if len(dq.Parts) != 1 {
			return nil
		}
		return dq.Parts[0]
	}
	return w.Parts[0]
}

func isIntLiteral(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return allDigits(s)
}

// isIntRange reports a brace range of integers ("{1..10}", "{0..9..2}").
func isIntRange(s string) bool {
	inner, ok := strings.CutPrefix(s, "{")
	if inner, ok = strings.CutSuffix(inner, "}"); !ok {
		return false
	}
	parts := strings.Split(inner, "..")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if !isIntLiteral(p) {
			return false
		}
	}
	return true
}

// isNumericSpecial reports $#, $?, $$ and $! without any operator.
func isNumericSpecial(pe *syntax.ParamExp) bool {
	return pe.Param != nil && strings.Contains("#?$!", pe.Param.Value) && len(pe.Param.Value) == 1 &&
		pe.Index == nil && pe.Exp == nil && pe.Repl == nil && pe.Slice == nil && !pe.Excl && pe.Names == 0
}

func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// arithTargetName returns the variable an arithmetic assignment writes
// ("x" for x=1 and a[0]=1), or "".
func arithTargetName(x syntax.ArithmExpr) string {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return ""
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if isName(p.Value) {
			return p.Value
		}
	case *syntax.ParamExp:
		if p.Short && p.Param != nil && isName(p.Param.Value) {
			return p.Param.Value
		}
	}
	return ""
}
