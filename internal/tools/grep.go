package tools

import (
	"context"
)

// The grep backend contract lives here, not in the search family, because
// Env.Grep carries the session's backend; search.Ripgrep and
// search.GoGrep implement it.

// GrepRequest is one search for a GrepBackend.
type GrepRequest struct {
	// Root is the absolute directory (searched recursively, honouring
	// .gitignore files at and below it, skipping .git, hidden files
	// included) or file to search.
	Root string
	// Pattern is a regular expression in RE2 syntax, already validated.
	Pattern string
	// IgnoreCase searches case-insensitively.
	IgnoreCase bool
	// Include, when set, is a glob that file paths relative to Root must
	// match (doublestar syntax; without "/" it matches the base name;
	// a leading "!" excludes).
	Include string
	// Context is the number of context lines around each match.
	Context int
	// Limit stops the search once this many matching lines were found
	// (the result may hold a few more); 0 means no limit.
	Limit int
	// EnvPolicy scrubs the environment of a backend that starts a process
	// (ripgrep): the session's Env.EnvPolicy.
	EnvPolicy EnvPolicy
}

// GrepLine is one output line of a search: a match or a context line.
type GrepLine struct {
	Num   int    // 1-based line number
	Text  string // line without its terminator
	Match bool   // false for context lines
}

// GrepFile holds the lines found in one file, in line order.
type GrepFile struct {
	Path  string // absolute path
	Lines []GrepLine
}

// GrepResult is the outcome of a search: files sorted by path.
type GrepResult struct {
	Files     []GrepFile
	Matches   int  // matching lines found
	Truncated bool // the search stopped at Limit
}

// GrepBackend runs searches for the grep tool (search.Ripgrep and
// search.GoGrep implement it). Both implementations give
// the same results on the same tree (binary files, i.e. files with a NUL
// byte, and files over MaxReadBytes are skipped).
type GrepBackend interface {
	// Name identifies the backend ("ripgrep", "go").
	Name() string
	// Search runs req; the error is an infrastructure failure (the grep
	// tool then retries with the Go backend).
	Search(ctx context.Context, req GrepRequest) (GrepResult, error)
}
