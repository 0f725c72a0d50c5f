package memory

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/tools"
)

type saveArgs struct {
	Content  string   `json:"content" jsonschema:"The fact or preference, one or two sentences"`
	Category string   `json:"category,omitempty" jsonschema:"e.g. preference, project, decision, person" default:"\"general\""`
	Tags     []string `json:"tags,omitempty" jsonschema:"Keywords for finding it later"`
	Scope    string   `json:"scope,omitempty" jsonschema:"project (this workspace) or global (every project)" default:"\"project\""`
}

// saveMemoryDef is save_memory: one entry in the project's or the global
// memory.
func (o Options) saveMemoryDef() tools.Def {
	return tools.Define(tools.Spec{Name: "save_memory", Kind: kind.Write, Standard: true, Aliases: []string{"remember", "add_memory"},
		Description: "Save a short fact or preference to remember in later sessions (project scope by default; global for every project).", Bookkeeping: true},
		o.saveMemory)
}

func (o Options) saveMemory(ctx context.Context, env *tools.Env, a saveArgs) tools.Result {
	s, fail := o.store(env)
	if fail != nil {
		return *fail
	}
	scope, err := memstore.ParseScope(a.Scope)
	if err != nil {
		return tools.Failf(tools.CategoryValidation, "%v", err)
	}
	if scope == memstore.ScopeGlobal && o.NoGlobalSave {
		return tools.Failf(tools.CategoryPermission, "save_memory: global memories cannot be saved from a workspace the user has not trusted "+
			"(what its files say must not reach other projects); save it with scope project, or the user runs `aidex trust` here first")
	}
	e, err := s.Save(ctx, scope, memstore.Entry{Content: a.Content, Category: a.Category, Tags: a.Tags})
	if err != nil {
		cat := tools.CategoryValidation
		if memstore.IsEscape(err) {
			cat = tools.CategorySecurity
		}
		return tools.Failf(cat, "save_memory: %v", err)
	}
	return tools.Success(fmt.Sprintf("saved %s memory %s", scope, e.ID), nil)
}
