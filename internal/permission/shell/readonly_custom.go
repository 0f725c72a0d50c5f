package shell

import "strings"

// findAccepts: find's leading options (-H, -L, -P, -D LIST, -O LEVEL, one
// "--"), then start points and an expression in which every word that
// starts with "-" must be a test, option or action of the table (with its
// value); "(", ")", "!" and "," are operators. GNU find reads every such
// word as part of the expression, even after "--".
func findAccepts(s *roSpec, args []string) bool {
	for i := findStart(args); i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			continue // a start point or an operator
		}
		kind, ok := s.opts.opts[a]
		if !ok {
			return false
		}
		if kind == argRequired {
			i++
		}
	}
	return true
}

// findStart returns the index after find's leading options.
func findStart(args []string) int {
	i := 0
	for ; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-H" || a == "-L" || a == "-P":
		case a == "-D":
			i++
		case strings.HasPrefix(a, "-O") && allDigits(a[2:]):
		case a == "--":
			return i + 1
		default:
			return i
		}
	}
	return i
}

// gitConfigAccepts: git config get and list (git 2.46), or the old forms
// with --get, --get-all, --get-regexp, --get-urlmatch, --get-color,
// --get-colorbool or --list; every other form writes a config file.
func gitConfigAccepts(s *roSpec, args []string) bool {
	if len(args) > 0 {
		if sub, ok := s.subs[args[0]]; ok {
			_, ok := sub.generic(args[1:])
			return ok
		}
	}
	_, ok := s.generic(args)
	return ok
}
