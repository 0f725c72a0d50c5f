package memory

import (
	"context"
	"errors"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/tools"
)

type memoryArgs struct {
	Command    string `json:"command" jsonschema:"view, create, str_replace, insert, delete or rename"`
	Path       string `json:"path,omitempty" jsonschema:"Memory path, e.g. /memories/notes.md or /memories/shared/team.md" default:"\"/memories\""`
	FileText   string `json:"file_text,omitempty" jsonschema:"create: the whole file content"`
	OldStr     string `json:"old_str,omitempty" jsonschema:"str_replace: exact text to replace (must occur once)"`
	NewStr     string `json:"new_str,omitempty" jsonschema:"str_replace: replacement text"`
	InsertLine int    `json:"insert_line,omitempty" jsonschema:"insert: line number to insert after (0 = top)"`
	InsertText string `json:"insert_text,omitempty" jsonschema:"insert: text to insert"`
	NewPath    string `json:"new_path,omitempty" jsonschema:"rename: the new memory path"`
}

// memoryDef is memory: the model's own memory file tree, kept in the
// state directory (Options.Dir), in the standard profile (config memory =
// false hides it).
func (o Options) memoryDef() tools.Def {
	return tools.Define(tools.Spec{Name: "memory", Kind: kind.Write, Standard: true, Aliases: []string{"memory_tool"},
		Description: "Your persistent memory across sessions: a small file tree at /memories (yours) and /memories/shared (seen by every model). " +
			"Commands: view (file or directory), create (path, file_text), str_replace (path, old_str, new_str), insert (path, insert_line, insert_text), delete (path), rename (path, new_path). " +
			"View /memories at the start of a task; record progress and lessons learned as you go.", Bookkeeping: true},
		o.memory)
}

func (o Options) memory(ctx context.Context, env *tools.Env, a memoryArgs) tools.Result {
	if o.Dir == "" {
		return tools.Failf(tools.CategoryInternal, "internal error: no memory directory configured for the memory tool")
	}
	if err := ctx.Err(); err != nil {
		return tools.Failf(tools.CategoryExecution, "memory cancelled: %v", err)
	}
	out, virtual, err := memstore.Run(o.Dir, o.Family, memstore.Command{Name: a.Command, Path: a.Path, FileText: a.FileText,
		OldStr: a.OldStr, NewStr: a.NewStr, InsertLine: a.InsertLine, InsertText: a.InsertText, NewPath: a.NewPath})
	switch {
	case errors.Is(err, memstore.ErrRefused):
		return tools.Failf(tools.CategorySecurity, "%v", err)
	case errors.Is(err, memstore.ErrUsage):
		return tools.Failf(tools.CategoryValidation, "%v", err)
	case err != nil:
		return tools.Failf(category(err), "memory %s: %v", a.Command, err)
	}
	return tools.Success(out, &tools.Meta{Path: virtual})
}

// category classifies an error of a memory command.
func category(err error) tools.Category {
	switch {
	case memstore.IsNotFound(err):
		return tools.CategoryNotFound
	case memstore.IsRefusal(err):
		return tools.CategorySecurity
	}
	return tools.CategoryValidation
}
