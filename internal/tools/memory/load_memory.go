package memory

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/tools"
)

type loadArgs struct {
	Query    string `json:"query,omitempty" jsonschema:"Words that must all appear (content, category or tags)"`
	Category string `json:"category,omitempty" jsonschema:"Only this category"`
	Limit    int    `json:"limit,omitempty" jsonschema:"Most entries to return" default:"20"`
}

// loadMemoryDef is load_memory: saved entries, most recent first.
func (o Options) loadMemoryDef() tools.Def {
	return tools.Define(tools.Spec{Name: "load_memory", Kind: kind.Read, Standard: true, Aliases: []string{"recall", "search_memory"},
		Description: "Find saved memories, most recent first, by text query and/or category.", Bookkeeping: true},
		o.loadMemory)
}

func (o Options) loadMemory(ctx context.Context, env *tools.Env, a loadArgs) tools.Result {
	s, fail := o.store(env)
	if fail != nil {
		return *fail
	}
	limit := min(max(a.Limit, 1), memstore.MaxLimit)
	es, err := s.List(ctx, memstore.Query{Text: a.Query, Category: a.Category, Limit: limit})
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "load_memory: %v", err)
	}
	if len(es) == 0 {
		return tools.Success("no memories match", &tools.Meta{Matches: 0})
	}
	var b strings.Builder
	for _, e := range es {
		b.WriteString(memstore.FormatEntry(e))
		b.WriteByte('\n')
	}
	return tools.Success(b.String(), &tools.Meta{Matches: len(es)})
}
