// Package models is the model-list tool family: list_models (kind.Read,
// full profile) lists a provider's models with context window, price and
// tool support through internal/listmodels (the current provider by
// default).
package models
