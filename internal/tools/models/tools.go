package models

import (
	"github.com/zelvior/aidex/internal/listmodels"
	"github.com/zelvior/aidex/internal/tools"
)

// Tools returns the model-list tools: list_models, listing with o (a nil
// o.Catalog makes every call fail with a configuration error). Register
// them with tools.Registry.Register.
func Tools(o listmodels.Options) []tools.Def {
	return []tools.Def{listModelsDef(o)}
}
