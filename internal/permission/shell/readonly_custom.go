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

// sedAccepts: the option allowlist, and scripts (from -e, or the first
// operand) that neither run commands nor touch other files.
func sedAccepts(s *roSpec, args []string) bool {
	r, ok := s.generic(args)
	if !ok {
		return false
	}
	scripts := append(append([]string(nil), r.values["-e"]...), r.values["--expression"]...)
	if len(scripts) == 0 {
		if len(r.operands) == 0 {
			return false
		}
		scripts = r.operands[:1]
	}
	return sedScriptsRisk(scripts) == ""
}

// tarArgLetters are tar's option letters that take a value.
const tarArgLetters = "bCfFgHIKLNTVX"

// tarAccepts: tar listing an archive (-t), with the options of the
// allowlist, and no archive name with ":" (a remote archive, which tar
// reaches through rsh). Old-style "tar tvf FILE" is read as tar does.
func tarAccepts(s *roSpec, args []string) bool {
	r, ok := s.generic(tarOldStyle(args))
	if !ok {
		return false
	}
	for _, f := range append(append([]string(nil), r.values["-f"]...), r.values["--file"]...) {
		if strings.Contains(f, ":") {
			return false
		}
	}
	return true
}

// tarOldStyle rewrites "tar tvf FILE" as "tar -t -v -f FILE": the
// letters of a first word without "-" are options, and those that take
// a value take the next words in order.
func tarOldStyle(args []string) []string {
	if len(args) == 0 || args[0] == "" || strings.HasPrefix(args[0], "-") || strings.Trim(args[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return args
	}
	out := []string{}
	next := 1
	for _, l := range args[0] {
		out = append(out, "-"+string(l))
		if strings.ContainsRune(tarArgLetters, l) && next < len(args) {
			out = append(out, args[next])
			next++
		}
	}
	return append(out, args[next:]...)
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
