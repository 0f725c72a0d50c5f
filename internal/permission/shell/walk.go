package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// checkFile walks every node of a parsed file, after the structural walk:
// it analyses the command and process substitutions that walk did not
// reach, reports as unknown (Opaque) the strings bash evaluates as
// arithmetic or as variable names when they could run commands, and
// records the variables the line sets for later commands.
func (z *analyzer) checkFile(file *syntax.File, c actx) {
	for _, name := range envTests(file) {
		if !slices.Contains(z.a.EnvTests, name) {
			z.a.EnvTests = append(z.a.EnvTests, name)
		}
	}
	e := exprCheck{z: z, f: collectFacts(file)}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			if !z.seen[x] {
				z.seen[x] = true
				z.stmts(x.Stmts, withContext(c, "command substitution"))
			}
		case *syntax.ProcSubst:
			if !z.seen[x] {
				z.seen[x] = true
				z.stmts(x.Stmts, withContext(c, "process substitution"))
			}
		default:
			e.node(n)
		}
		return true
	})
}

// exprCheck judges the expressions of one file.
type exprCheck struct {
	z *analyzer
	f *varFacts
}

func (e exprCheck) node(n syntax.Node) {
	switch x := n.(type) {
	case *syntax.ArithmExp:
		e.arith(x.X)
	case *syntax.ArithmCmd:
		e.arith(x.X)
	case *syntax.LetClause:
		for _, a := range x.Exprs {
			e.arith(a)
		}
	case *syntax.CStyleLoop:
		for _, a := range []syntax.ArithmExpr{x.Init, x.Cond, x.Post} {
			if a != nil {
				e.arith(a)
			}
		}
	case *syntax.Assign:
		e.assign(x)
	case *syntax.ArrayElem:
		e.index(x.Index)
	case *syntax.ParamExp:
		e.param(x)
	case *syntax.BinaryTest:
		if isArithTest(x.Op) {
			e.operand(x.X)
			e.operand(x.Y)
		}
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			e.varName(x.X)
		}
	case *syntax.WordIter:
		e.z.envGlobal(x.Name.Value, e.f)
	case *syntax.DeclClause:
		e.decl(x)
	case *syntax.CallExpr:
		e.call(x)
	}
}

// unknown marks the line opaque because bash evaluates what as code.
func (e exprCheck) unknown(what string, n syntax.Node) {
	e.z.opaque("bash evaluates " + truncate(printNode(n), 60) + " as " + what +
		", where a variable or subscript can run commands")
}

func (e exprCheck) arith(x syntax.ArithmExpr) {
	if !e.arithSafe(x) {
		e.unknown("arithmetic", x)
	}
}

// arithSafe reports an arithmetic expression made of numbers, operators
// and variables this code gives only integers.
func (e exprCheck) arithSafe(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		if isArithAssign(x.Op) {
			return arithTargetName(x.X) != "" && e.arithSafe(x.Y)
		}
		return e.arithSafe(x.X) && e.arithSafe(x.Y)
	case *syntax.UnaryArithm:
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			return arithTargetName(x.X) != ""
		}
		return e.arithSafe(x.X)
	case *syntax.ParenArithm:
		return e.arithSafe(x.X)
	case *syntax.Word:
		return e.intValue(x)
	}
	return false
}

// intValue reports a word whose expanded value bash may evaluate as
// arithmetic without running anything: a number, a variable this code
// gives only integers, $#, ${#x}, $((...)).
func (e exprCheck) intValue(w *syntax.Word) bool {
	switch p := singlePart(w).(type) {
	case *syntax.Lit:
		if isName(p.Value) {
			return e.f.intSafe(p.Value)
		}
		return isNumberToken(p.Value)
	case *syntax.ArithmExp:
		return true // judged on its own
	case *syntax.ParamExp:
		switch {
		case isNumericSpecial(p), p.Length && !p.Excl && p.Exp == nil && p.Repl == nil && p.Slice == nil:
			return true
		case p.Excl || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Names != 0 || p.Param == nil:
			return false
		}
		return isName(p.Param.Value) && e.f.intSafe(p.Param.Value)
	}
	return false
}

// isNumberToken reports an arithmetic number: 42, 0x2a, 052, 16#2a.
func isNumberToken(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for _, r := range s {
		if !(r == '#' || r == '_' || r == '@' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// operand checks an operand of [[ -eq ]] and friends, which bash
// evaluates as arithmetic after expansion.
func (e exprCheck) operand(x syntax.Node) {
	if w, ok := x.(*syntax.Word); !ok || !e.intValue(w) {
		e.unknown("arithmetic", x)
	}
}

// varName checks the operand of -v / -R, a variable name whose subscript
// bash evaluates.
func (e exprCheck) varName(x syntax.Node) {
	if w, ok := x.(*syntax.Word); !ok || !safeNameWord(w) {
		e.unknown("a variable name", x)
	}
}

// safeNameWord reports a literal variable name, with at most a literal
// index ("a", "a[0]", "a[@]"), optionally followed by =value or +=value.
func safeNameWord(w *syntax.Word) bool {
	v, ok := literalOf(w)
	if !ok {
		return false
	}
	v, _, _ = strings.Cut(v, "=")
	v = strings.TrimSuffix(v, "+")
	name, idx, sub := strings.Cut(v, "[")
	if !sub {
		return isName(name)
	}
	idx, ok = strings.CutSuffix(idx, "]")
	return ok && isName(name) && (idx == "@" || idx == "*" || allDigits(idx))
}

func isArithTest(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		return true
	}
	return false
}

// index checks an array subscript: "@" and "*" are not arithmetic.
func (e exprCheck) index(x syntax.ArithmExpr) {
	if x != nil && !isAllIndex(x) {
		e.arith(x)
	}
}

// isAllIndex reports the subscripts [@] and [*].
func isAllIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

func (e exprCheck) assign(as *syntax.Assign) {
	e.index(as.Index)
	if as.Name == nil {
		return
	}
	if placeVars[as.Name.Value] {
		e.z.opaque(placeReason(as.Name.Value))
	}
	if e.f.intAttr[as.Name.Value] && as.Value != nil && !e.intValue(as.Value) {
		e.unknown("arithmetic (integer variable "+as.Name.Value+")", as.Value)
	}
}

func (e exprCheck) param(p *syntax.ParamExp) {
	e.index(p.Index)
	if p.Slice != nil {
		for _, x := range []syntax.ArithmExpr{p.Slice.Offset, p.Slice.Length} {
			if x != nil {
				e.arith(x)
			}
		}
	}
	if p.Excl && p.Names == 0 && (p.Index == nil || !isAllIndex(p.Index)) {
		e.unknown("the name of another variable (${!x})", p)
	}
	if p.Exp == nil || p.Param == nil {
		return
	}
	switch p.Exp.Op {
	case syntax.OtherParamOps:
		if p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P") {
			e.unknown("a prompt string (${x@P})", p)
		}
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		e.z.envGlobal(p.Param.Value, e.f)
	}
}
