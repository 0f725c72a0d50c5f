package shell

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// constArith evaluates $((...)) made only of decimal numbers and
// operators ("echo $((1+2))" is "echo 3"); ok is false for anything else
// (variables, assignments, other bases, division by zero, ...).
func constArith(x syntax.ArithmExpr) (string, bool) {
	n, ok := evalConst(x, 0)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

func evalConst(x syntax.ArithmExpr, depth int) (int64, bool) {
	if depth > 32 {
		return 0, false
	}
	switch x := x.(type) {
	case *syntax.Word:
		lit := x.Lit()
		if !allDigits(lit) || len(lit) > 1 && lit[0] == '0' {
			return 0, false // not decimal (052 is octal)
		}
		n, err := strconv.ParseInt(lit, 10, 64)
		return n, err == nil
	case *syntax.ParenArithm:
		return evalConst(x.X, depth+1)
	case *syntax.UnaryArithm:
		n, ok := evalConst(x.X, depth+1)
		switch {
		case !ok:
			return 0, false
		case x.Op == syntax.Minus:
			return -n, true
		case x.Op == syntax.Plus:
			return n, true
		}
		return 0, false
	case *syntax.BinaryArithm:
		a, ok1 := evalConst(x.X, depth+1)
		b, ok2 := evalConst(x.Y, depth+1)
		if !ok1 || !ok2 {
			return 0, false
		}
		return binaryConst(x.Op, a, b)
	}
	return 0, false
}

func binaryConst(op syntax.BinAritOperator, a, b int64) (int64, bool) {
	switch op {
	case syntax.Add:
		return a + b, true
	case syntax.Sub:
		return a - b, true
	case syntax.Mul:
		return a * b, true
	case syntax.Quo, syntax.Rem:
		if b == 0 || a == -1<<63 && b == -1 {
			return 0, false
		}
		if op == syntax.Quo {
			return a / b, true
		}
		return a % b, true
	case syntax.Pow:
		if b < 0 || b > 62 {
			return 0, false
		}
		r := int64(1)
		for range b {
			r *= a
		}
		return r, true
	}
	return 0, false
}
