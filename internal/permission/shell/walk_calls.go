package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// nameArgs says which arguments of a builtin are variable names, whose
// subscripts bash evaluates (read 'a[$(cmd)]' runs cmd).
type nameArgs struct {
	valued   string // option letters that take a value
	nameOpts string // option letters whose value is a variable name
	operands int    // operands that are names (or NAME=value): 0 all, -1 none, n the n-th
}

var nameBuiltins = map[string]nameArgs{
	"read":      {valued: "adinNptu", nameOpts: "a"},
	"mapfile":   {valued: "dnOsuCc"},
	"readarray": {valued: "dnOsuCc"},
	"printf":    {valued: "v", nameOpts: "v", operands: -1},
	"getopts":   {operands: 2},
	"unset":     {},
	"wait":      {valued: "p", nameOpts: "p", operands: -1},
	"declare":   {},
	"typeset":   {},
	"local":     {},
	"export":    {},
	"readonly":  {},
}

func (e exprCheck) call(x *syntax.CallExpr) {
	if len(x.Args) == 0 {
		for _, as := range x.Assigns {
			if as.Name != nil && as.Array == nil && as.Index == nil {
				e.z.envGlobal(as.Name.Value, e.f)
			}
		}
		return
	}
	args := builtinArgs(x.Args)
	name, _ := literalOf(args[0])
	switch name {
	case "test", "[":
		e.testArgs(args[1:])
	case "shopt":
		for _, w := range args[1:] {
			if v, ok := literalOf(w); !ok || v == "cdable_vars" {
				e.z.opaque(placeReason("shopt cdable_vars"))
			}
		}
	}
	if spec, ok := nameBuiltins[name]; ok {
		e.nameArgs(args[1:], spec)
	}
}

// testArgs checks test / [ arguments: -v NAME and the operands of the
// arithmetic comparisons (zsh evaluates them as arithmetic).
func (e exprCheck) testArgs(args []*syntax.Word) {
	for i, w := range args {
		v, _ := literalOf(w)
		switch {
		case (v == "-v" || v == "-R") && i+1 < len(args):
			e.varName(args[i+1])
		case isArithTestWord(v) && i > 0 && i+1 < len(args):
			e.operand(args[i-1])
			e.operand(args[i+1])
		}
	}
}

func isArithTestWord(v string) bool {
	switch v {
	case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		return true
	}
	return false
}

// nameArgs checks the arguments of a builtin that names variables.
func (e exprCheck) nameArgs(args []*syntax.Word, spec nameArgs) {
	i, n := 0, 0
	for ; i < len(args); i++ {
		v, lit := literalOf(args[i])
		if !lit {
			if spec.operands == -1 {
				return // printf FORMAT "$x": data, not names
			}
			break
		}
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' && v[0] != '+' {
			break
		}
		i += e.nameOption(args, i, spec)
	}
	for ; i < len(args); i++ {
		n++
		if spec.operands == 0 || spec.operands == n {
			e.checkName(args[i])
		}
	}
}

// nameOption checks one option word; it returns 1 when the option's
// value is the next word.
func (e exprCheck) nameOption(args []*syntax.Word, i int, spec nameArgs) int {
	v, _ := literalOf(args[i])
	for j := 1; j < len(v); j++ {
		if !strings.ContainsRune(spec.valued, rune(v[j])) {
			continue
		}
		isName := strings.ContainsRune(spec.nameOpts, rune(v[j]))
		if j < len(v)-1 {
			if isName && !safeNameWord(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v[j+1:]}}}) {
				e.unknown("a variable name", args[i])
			}
			return 0
		}
		if i+1 < len(args) && isName {
			e.checkName(args[i+1])
		}
		return 1
	}
	return 0
}

func (e exprCheck) checkName(w *syntax.Word) {
	if !safeNameWord(w) {
		e.unknown("a variable name", w)
	}
}

// decl checks declare, local, export, readonly and typeset: names built at
// run time, nameref targets, and the variables set for later commands.
func (e exprCheck) decl(d *syntax.DeclClause) {
	exported := d.Variant.Value == "export"
	nameref := false
	for _, as := range d.Args {
		flags, isFlag := declFlag(as)
		switch {
		case isFlag:
			sign, _ := literalOf(as.Value)
			exported = exported || sign[0] == '-' && strings.Contains(flags, "x")
			nameref = nameref || strings.Contains(flags, "n")
		case as.Naked && as.Value != nil:
			e.unknown("a variable assignment", as.Value) // declare "$x" or declare 'a[...]=1'
		}
	}
	for _, as := range d.Args {
		if as.Name == nil {
			continue
		}
		if nameref && as.Value != nil && !safeNameWord(as.Value) {
			e.unknown("a variable name (nameref)", as.Value)
		}
		if exported {
			e.z.envExport(as.Name.Value)
		} else if as.Array == nil && as.Index == nil {
			e.z.envGlobal(as.Name.Value, e.f)
		}
	}
}
