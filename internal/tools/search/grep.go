package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// Limits of the search tools.
const (
	defaultMaxResults = 100  // grep matches shown by default
	maxMaxResults     = 1000 // grep max_results ceiling
	grepCollectLimit  = 5000 // matching lines a backend collects before stopping
	maxContextLines   = 10   // grep context_lines ceiling
	grepLineChars     = 500  // grep output cuts lines longer than this (bytes)
	grepOutputBytes   = 64 << 10
	grepFileMatches   = 200 // grep_file matches shown
)

type grepArgs struct {
	Pattern      string `json:"pattern" jsonschema:"Regular expression (RE2)"`
	Path         string `json:"path,omitempty" jsonschema:"Directory or file" tool:"path" default:"\".\""`
	Include      string `json:"include,omitempty" jsonschema:"File glob, e.g. *.go"`
	IgnoreCase   bool   `json:"ignore_case,omitempty"`
	ContextLines int    `json:"context_lines,omitempty" jsonschema:"Lines around each match"`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"Max matching lines" default:"100"`

	single bool // grep_file: path must be a text file
}

// grepDef is grep: search file contents by regular expression.
func grepDef() tools.Def {
	return tools.Define(tools.Spec{Name: "grep", Kind: kind.Read, Standard: true,
		Description: "Search file contents by regex (honours .gitignore). Output: path:line: text."}, grep)
}

func grep(ctx context.Context, env *tools.Env, a grepArgs) tools.Result {
	if a.Pattern == "" {
		return tools.Failf(tools.CategoryValidation, "grep: pattern is empty; give a regular expression")
	}
	if _, err := compilePattern(a.Pattern, a.IgnoreCase); err != nil {
		return tools.Failf(tools.CategoryValidation, "invalid regular expression (RE2 syntax): %v. Escape special characters "+
			"such as ( [ { . * + ? | with a backslash to search for them literally", err)
	}
	if a.Include != "" {
		if _, ok := walk.NewGlob(a.Include); !ok {
			return tools.Failf(tools.CategoryValidation, "invalid include glob %q: use e.g. *.go, **/*.ts or src/**", a.Include)
		}
	}
	abs, res := env.Resolve("path", a.Path)
	if res != nil {
		return *res
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Failf(tools.CategoryNotFound, "%s does not exist", env.Rel(abs))
	case err != nil:
		return tools.Failf(tools.CategoryExecution, "cannot stat %s: %v", env.Rel(abs), err)
	case a.single && fi.IsDir():
		return tools.Failf(tools.CategoryValidation, "%s is a directory: use grep to search a directory", env.Rel(abs))
	case a.single && !fi.Mode().IsRegular():
		return tools.Failf(tools.CategoryValidation, "%s is not a regular file", env.Rel(abs))
	}
	if a.single {
		if _, res := tools.LoadText(env, abs, ""); res != nil {
			return *res
		}
	}
	req := tools.GrepRequest{Root: abs, Pattern: a.Pattern, IgnoreCase: a.IgnoreCase, Include: a.Include,
		Context: min(max(a.ContextLines, 0), maxContextLines), Limit: grepCollectLimit, EnvPolicy: env.EnvPolicy}
	out, err := backend(env, fi.IsDir()).Search(ctx, req)
	if err != nil && !errors.Is(err, context.Canceled) {
		out, err = GoGrep{}.Search(ctx, req)
	}
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "grep failed: %v", err)
	}
	limit := a.MaxResults
	if limit <= 0 {
		limit = defaultMaxResults
	}
	return formatGrep(env, out, min(limit, maxMaxResults), a.Pattern, env.Rel(abs), req.Context > 0)
}

func backend(env *tools.Env, dir bool) tools.GrepBackend {
	switch {
	case !dir:
		return GoGrep{} // one file: no process to start
	case env.Grep != nil:
		return env.Grep
	}
	return DefaultBackend()
}

// formatGrep renders results as `path:line: text` (context lines
// `path-line- text`, "--" between separated groups), at most limit
// matching lines and grepOutputBytes.
func formatGrep(env *tools.Env, r tools.GrepResult, limit int, pattern, where string, groups bool) tools.Result {
	meta := &tools.Meta{Path: where, Matches: r.Matches}
	if r.Matches == 0 {
		return tools.Success(fmt.Sprintf("No matches for %q in %s", pattern, where), meta)
	}
	var b strings.Builder
	shown := 0
	cut := false
outer:
	for _, f := range r.Files {
		rel := env.Rel(f.Path)
		prev := -1
		for _, l := range f.Lines {
			if l.Match && shown == limit || b.Len() > grepOutputBytes {
				cut = true
				break outer
			}
			if groups && (prev >= 0 && l.Num > prev+1 || prev < 0 && b.Len() > 0) {
				b.WriteString("--\n")
			}
			text := l.Text
			if len(text) > grepLineChars {
				text = tools.CutUTF8(text, grepLineChars) + " [...]"
			}
			sep := "-"
			if l.Match {
				sep = ":"
				shown++
			}
			fmt.Fprintf(&b, "%s%s%d%s %s\n", rel, sep, l.Num, sep, text)
			prev = l.Num
		}
	}
	total := fmt.Sprint(r.Matches)
	if r.Truncated {
		total = "at least " + total
	}
	if cut || r.Truncated {
		meta.Truncated = true
		fmt.Fprintf(&b, "... showing %d of %s matching lines; narrow the pattern, path or include, "+
			"or raise max_results (at most %d)\n", shown, total, maxMaxResults)
	} else {
		fmt.Fprintf(&b, "(%d matching lines in %d files)\n", r.Matches, len(r.Files))
	}
	return tools.Success(b.String(), meta)
}
