package notes

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/notestore"
	"github.com/zelvior/aidex/internal/tools"
)

type createArgs struct {
	Title   string   `json:"title" jsonschema:"Short title; also names the file"`
	Content string   `json:"content" jsonschema:"The note in Markdown"`
	Tags    []string `json:"tags,omitempty" jsonschema:"Keywords"`
}

// createNoteDef is create_note: a new note in .aidex/notes.
func (o Options) createNoteDef() tools.Def {
	return tools.Define(tools.Spec{Name: "create_note", Kind: kind.Write, Standard: true, Aliases: []string{"add_note", "write_note"},
		Description: "Write a Markdown note (title, content, tags) to .aidex/notes/ for the user to read later: findings, plans, summaries.", Bookkeeping: true},
		o.createNote)
}

func (o Options) createNote(ctx context.Context, env *tools.Env, a createArgs) tools.Result {
	if env == nil || env.Workspace == nil {
		return tools.Failf(tools.CategoryInternal, "internal error: no workspace configured for create_note")
	}
	n, err := notestore.Create(ctx, env.Workspace.Root(), a.Title, a.Content, a.Tags, o.Now())
	if err != nil {
		cat := tools.CategoryValidation
		if strings.Contains(err.Error(), "path escapes from parent") {
			cat = tools.CategorySecurity
		} else if errors.Is(err, fs.ErrPermission) {
			cat = tools.CategoryExecution
		}
		return tools.Failf(cat, "create_note: %v", err)
	}
	return tools.Success("created note "+n.Path, &tools.Meta{Path: n.Path, Files: []string{n.Path}})
}
