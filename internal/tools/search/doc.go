// Package search is the search tool family: grep (kind.Read, standard
// profile) searches file contents by regular expression under a directory
// honouring .gitignore, and grep_file (kind.Read) searches one file.
//
// The search runs on a tools.GrepBackend: Ripgrep (`rg --json`) when rg
// is on PATH, else GoGrep, a parallel Go walker with a literal
// prefilter and, for patterns without a usable literal, a lazy-DFA line
// filter (dfa.go); both give the same results, and a failing ripgrep falls back
// to GoGrep. Env.Grep picks the backend (nil: DefaultBackend).
package search
