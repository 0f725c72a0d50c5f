package shell

import "strings"

// PathArg is an argument of a command that may name a file: a whole word,
// the value of --opt=VALUE or NAME=VALUE, or a value glued to a short
// option (-o/tmp/x).
type PathArg struct {
	// Value is the path; when Literal is false it is a pattern with "~"
	// for $HOME and "*" for every other expansion or glob.
	Value string
	// Literal reports a value without expansions or globs.
	Literal bool
	// Shown is the word as written, for messages.
	Shown string
}

// dataArgCommands take arguments that are text, not paths.
var dataArgCommands = map[string]bool{"echo": true, "printf": true, "alias": true, "export": true, "declare": true,
	"local": true, "readonly": true, "typeset": true, "test": true, "[": true, "true": true, "false": true, ":": true}

// PathArgs returns the arguments of sc that may name files, in order:
// first the values of its (and its wrappers') options that name files it
// reads (PathOptions with PathRead: git --git-dir=DIR; and the list files
// of PathList, whose own path is confined too: sort --files0-from=F),
// whatever they look like, then the arguments. Commands whose arguments
// are text (echo, printf, test, export, ...) and commands with a
// non-literal name have no path arguments, and sed's scripts are not
// paths. Directories named by options
// (PathChdir) are left to the caller, which resolves them first.
func PathArgs(sc SimpleCommand) []PathArg {
	var out []PathArg
	for _, o := range sc.PathOptions {
		if o.Access == PathRead || o.Access == PathList {
			out = append(out, optionPathArg(o.Word))
		}
	}
	if sc.NonLiteral || dataArgCommands[sc.Base()] {
		return out
	}
	scripts := sedScriptWords(sc)
	for i, w := range sc.Words[1:] {
		if !scripts[i+1] {
			out = append(out, pathCandidates(w)...)
		}
	}
	return out
}

// pathCandidates extracts path-like values from a word: the word itself,
// the value of --opt=VALUE / key=VALUE, and glued short options (-o/tmp/x).
func pathCandidates(w Word) []PathArg {
	v := w.Value
	if !w.Literal {
		v = w.Pattern
	}
	lit := w.Literal && !w.Glob
	mk := func(s string) PathArg { return PathArg{Value: s, Literal: lit, Shown: w.Value} }
	var out []PathArg
	if strings.HasPrefix(v, "-") {
		if i := strings.IndexByte(v, '='); i > 0 && pathy(v[i+1:]) {
			out = append(out, mk(v[i+1:]))
		} else if len(v) > 2 && v[1] != '-' && pathy(v[2:]) {
			out = append(out, mk(v[2:]))
		}
		return out
	}
	if i := strings.IndexByte(v, '='); i > 0 && isName(v[:i]) && pathy(v[i+1:]) {
		out = append(out, mk(v[i+1:]))
	}
	if v != "" && v != "-" {
		out = append(out, mk(v))
	}
	return out
}

// pathy reports values that clearly name a path: absolute, ~, or with
// "..", in POSIX or Windows form (\x, C:x, ..\x), since the programs
// Git for Windows' sh starts read both.
func pathy(s string) bool {
	if s == "" {
		return false
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, `\`) {
		return true
	}
	if len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') {
		return true
	}
	for _, c := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if c == ".." {
			return true
		}
	}
	return false
}

// optionPathArg is the path named by an option value.
func optionPathArg(w Word) PathArg {
	if w.Literal && !w.Glob {
		return PathArg{Value: w.Value, Literal: true, Shown: w.Value}
	}
	return PathArg{Value: w.Pattern, Shown: w.Value}
}
