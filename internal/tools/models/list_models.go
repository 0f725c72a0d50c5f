package models

import (
	"context"
	"errors"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/listmodels"
	"github.com/zelvior/aidex/internal/tools"
)

type listArgs struct {
	Provider string `json:"provider,omitempty" jsonschema:"Provider name (default: the current provider)"`
	FreeOnly bool   `json:"free_only,omitempty" jsonschema:"Only models usable for free"`
	Query    string `json:"query,omitempty" jsonschema:"Only model ids containing this text"`
}

// listModelsDef is list_models: a provider's models.
func listModelsDef(o listmodels.Options) tools.Def {
	return tools.Define(tools.Spec{Name: "list_models", Kind: kind.Read, Aliases: []string{"models", "available_models"},
		Description: "List a provider's models with context window, price and tool support (default: the current provider)."},
		func(ctx context.Context, _ *tools.Env, a listArgs) tools.Result { return listModels(ctx, o, a) })
}

func listModels(ctx context.Context, o listmodels.Options, a listArgs) tools.Result {
	l, err := o.List(ctx, listmodels.Query{Provider: a.Provider, FreeOnly: a.FreeOnly, Text: a.Query})
	switch {
	case errors.Is(err, listmodels.ErrNoCatalog):
		return tools.Failf(tools.CategoryInternal, "list_models is not configured (internal error: no catalog)")
	case errors.Is(err, listmodels.ErrUnknownProvider):
		return tools.Failf(tools.CategoryNotFound, "%v", err)
	case err != nil:
		return tools.Failf(tools.CategoryExecution, "list_models: %v", err)
	}
	return tools.Success(l.Text, &tools.Meta{Matches: l.Models})
}
