package tools

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/kind"
)

// Defaults of the read tools.
const (
	defaultReadLimit = 2000 // lines read_file returns by default
	defaultHeadLines = 10   // lines head_file / tail_file return by default
)

type readFileArgs struct {
	Path   string `json:"path" jsonschema:"File to read" tool:"path"`
	Offset int    `json:"offset,omitempty" jsonschema:"First line (1-based)" default:"1"`
	Limit  int    `json:"limit,omitempty" jsonschema:"Max lines" default:"2000"`
}

type readLinesArgs struct {
	Path      string `json:"path" jsonschema:"File to read" tool:"path"`
	StartLine int    `json:"start_line" jsonschema:"First line (1-based)"`
	EndLine   int    `json:"end_line" jsonschema:"Last line (inclusive)"`
}

type headTailArgs struct {
	Path  string `json:"path" jsonschema:"File to read" tool:"path"`
	Lines int    `json:"lines,omitempty" jsonschema:"Number of lines" default:"10"`
}

func readTools() []Def {
	return []Def{
		Define(Spec{Name: "read_file", Kind: kind.Read, Standard: true,
			Description: "Read a text file; lines are numbered like cat -n. Use offset/limit for long files."},
			func(ctx context.Context, env *Env, a readFileArgs) Result {
				if a.Offset < 0 || a.Limit < 0 {
					return Failf(CategoryValidation, "read_file: offset and limit must be positive (offset is 1-based)")
				}
				limit := a.Limit
				if limit == 0 {
					limit = defaultReadLimit
				}
				return showLines(ctx, env, a.Path, func(total int) (int, int, string) {
					start := max(a.Offset, 1)
					if start > total {
						return 0, 0, fmt.Sprintf("offset %d is past the end of the file (%d lines)", start, total)
					}
					return start, min(total, start+limit-1), ""
				})
			}),
		Define(Spec{Name: "read_file_lines", Kind: kind.Read,
			Description: "Read lines start_line..end_line (inclusive, 1-based) of a text file."},
			func(ctx context.Context, env *Env, a readLinesArgs) Result {
				return showLines(ctx, env, a.Path, func(total int) (int, int, string) {
					switch {
					case a.StartLine < 1 || a.EndLine < a.StartLine:
						return 0, 0, fmt.Sprintf("need 1 <= start_line <= end_line, got %d..%d", a.StartLine, a.EndLine)
					case a.StartLine > total:
						return 0, 0, fmt.Sprintf("start_line %d is past the end of the file (%d lines)", a.StartLine, total)
					}
					return a.StartLine, min(a.EndLine, total), ""
				})
			}),
		Define(Spec{Name: "head_file", Kind: kind.Read, Description: "Show the first lines of a text file."},
			func(ctx context.Context, env *Env, a headTailArgs) Result {
				n := headTailCount(a.Lines)
				return showLines(ctx, env, a.Path, func(total int) (int, int, string) {
					return 1, min(n, total), ""
				})
			}),
		Define(Spec{Name: "tail_file", Kind: kind.Read, Description: "Show the last lines of a text file."},
			func(ctx context.Context, env *Env, a headTailArgs) Result {
				n := headTailCount(a.Lines)
				return showLines(ctx, env, a.Path, func(total int) (int, int, string) {
					return max(1, total-n+1), total, ""
				})
			}),
	}
}

func headTailCount(n int) int {
	if n <= 0 {
		return defaultHeadLines
	}
	return n
}

// showLines reads the text file at path, marks it read and returns the
// lines chosen by pick (1-based, inclusive; a non-empty problem string
// refuses the call) in cat -n format with a note when more lines remain.
func showLines(ctx context.Context, env *Env, path string, pick func(total int) (int, int, string)) Result {
	abs, res := env.resolve("path", path)
	if res != nil {
		return *res
	}
	tf, res := loadText(env, abs, ": use list_directory or search_files to find the right path")
	if res != nil {
		return *res
	}
	if err := env.markRead(ctx, abs, tf.content, tf.info.ModTime()); err != nil {
		return Failf(CategoryExecution, "%v", err)
	}
	meta := &Meta{Path: tf.rel}
	lines := splitLinesKeep(string(tf.content))
	total := len(lines)
	if total == 0 {
		return Success(fmt.Sprintf("(%s is empty)", tf.rel), meta)
	}
	start, end, problem := pick(total)
	if problem != "" {
		return Failf(CategoryValidation, "%s: %s", tf.rel, problem)
	}
	text, n := numbered(lines[start-1:end], start)
	meta.Lines = n
	last := start + n - 1
	switch {
	case last < end:
		meta.Truncated = true
		text += fmt.Sprintf("... output capped at %d KiB; %d more lines; call read_file with offset=%d\n",
			MaxOutputBytes>>10, total-last, last+1)
	case last < total:
		text += fmt.Sprintf("... %d more lines; call read_file with offset=%d\n", total-last, last+1)
	}
	return Success(text, meta)
}
