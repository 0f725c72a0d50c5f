package file

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type writeArgs struct {
	Path    string `json:"path" jsonschema:"File to write" tool:"path"`
	Content string `json:"content" jsonschema:"Full new content"`
}

// writeFileDef is write_file: create or overwrite a file.
func writeFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "write_file", Kind: kind.Write, Standard: true,
		Description: "Create or overwrite a file with content (parent dirs created). Read an existing file first.", DryRun: true},
		writeFile)
}

func writeFile(ctx context.Context, env *tools.Env, a writeArgs) tools.Result {
	abs, res := env.Resolve("path", a.Path)
	if res != nil {
		return *res
	}
	tf, res := existing(ctx, env, abs)
	if res != nil {
		return *res
	}
	c := tools.Change{Abs: abs, New: []byte(a.Content)}
	if tf != nil {
		old := string(tf.Content)
		content := a.Content
		if eolOf(old) == "\r\n" && !strings.Contains(content, "\r\n") {
			content = withEOL(content, "\r\n")
		}
		if strings.HasPrefix(old, utf8BOM) && !strings.HasPrefix(content, utf8BOM) {
			content = utf8BOM + content
		}
		if content == old {
			return tools.Failf(tools.CategoryValidation, "write_file: the content is identical to %s already; nothing to change", tf.Rel)
		}
		c = tools.Change{Abs: abs, Old: tf.Content, Existed: true, New: []byte(content), Perm: tf.Info.Mode().Perm()}
	}
	diff, res := env.Commit(ctx, c)
	if res != nil {
		return *res
	}
	rel := env.Rel(abs)
	n := len(tools.SplitLinesKeep(string(c.New)))
	verb := "Created"
	if c.Existed {
		verb = "Overwrote"
	}
	return tools.Success(fmt.Sprintf("%s %s (%d lines, %d bytes)", verb, rel, n, len(c.New)),
		&tools.Meta{Path: rel, Diff: diff, Lines: n})
}
