package file

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type appendArgs struct {
	Path    string `json:"path" jsonschema:"File to append to" tool:"path"`
	Content string `json:"content" jsonschema:"Text to append"`
}

// appendFileDef is append_file: append text on a new line.
func appendFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "append_file", Kind: kind.Write,
		Description: "Append text to a file (created if missing), starting on a new line.", DryRun: true}, appendFile)
}

func appendFile(ctx context.Context, env *tools.Env, a appendArgs) tools.Result {
	if a.Content == "" {
		return tools.Failf(tools.CategoryValidation, "append_file: content is empty; nothing to append")
	}
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
		eol := eolOf(old)
		add := withEOL(a.Content, eol)
		if old != "" && !strings.HasSuffix(old, "\n") {
			add = eol + add
		}
		c = tools.Change{Abs: abs, Old: tf.Content, Existed: true, New: []byte(old + add), Perm: tf.Info.Mode().Perm()}
	}
	diff, res := env.Commit(ctx, c)
	if res != nil {
		return *res
	}
	rel := env.Rel(abs)
	added := len(c.New) - len(c.Old)
	return tools.Success(fmt.Sprintf("Appended %d bytes to %s (now %d bytes)", added, rel, len(c.New)),
		&tools.Meta{Path: rel, Diff: diff, Lines: len(tools.SplitLinesKeep(a.Content))})
}
