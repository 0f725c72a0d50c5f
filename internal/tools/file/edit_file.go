package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type editArgs struct {
	Path       string `json:"path" jsonschema:"File to edit" tool:"path"`
	OldString  string `json:"old_string" jsonschema:"Exact text to replace (unique unless replace_all)"`
	NewString  string `json:"new_string" jsonschema:"Replacement text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence"`
}

// editFileDef is edit_file: replace exact text.
func editFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "edit_file", Kind: kind.Write, Standard: true,
		Description: "Replace exact text in a file. old_string must match once (add context) unless replace_all. Read the file first.", DryRun: true},
		editFile)
}

func editFile(ctx context.Context, env *tools.Env, a editArgs) tools.Result {
	if a.OldString == a.NewString {
		return tools.Failf(tools.CategoryValidation, "old_string and new_string are identical; nothing to change")
	}
	abs, res := env.Resolve("path", a.Path)
	if res != nil {
		return *res
	}
	if _, err := env.Stat(abs); errors.Is(err, fs.ErrNotExist) && a.OldString == "" {
		return writeFile(ctx, env, writeArgs{Path: a.Path, Content: a.NewString})
	}
	tf, res := loadForEdit(ctx, env, a.Path)
	if res != nil {
		return *res
	}
	content := string(tf.Content)
	if a.OldString == "" {
		if strings.TrimPrefix(content, utf8BOM) != "" {
			return tools.Failf(tools.CategoryValidation, "old_string is empty: give the exact text to replace "+
				"(or use write_file to replace the whole file)")
		}
		return save(ctx, env, tf, content+a.NewString, "Wrote "+tf.Rel, 1, countLines(a.NewString))
	}
	eol := eolOf(content)
	old, repl := a.OldString, withEOL(a.NewString, eol)
	if !strings.Contains(content, old) {
		old = withEOL(a.OldString, eol)
	}
	switch n := strings.Count(content, old); {
	case n == 1 || (n > 1 && a.ReplaceAll):
		first := lineOf(content, strings.Index(content, old))
		count := 1
		if a.ReplaceAll {
			count = -1
		}
		updated := strings.Replace(content, old, repl, count)
		summary := fmt.Sprintf("Edited %s: replaced %d occurrence(s).", tf.Rel, n)
		if n > 1 {
			return save(ctx, env, tf, updated, summary, 0, 0)
		}
		return save(ctx, env, tf, updated, summary, first, countLines(repl))
	case n > 1:
		return tools.Failf(tools.CategoryValidation, "old_string matches %d times in %s (at lines %s): include more surrounding "+
			"lines to make it unique, or set replace_all=true", n, tf.Rel, matchLines(content, old, 10))
	}
	return fuzzyEdit(ctx, env, tf, a, eol)
}
