// Package tools is the core of aidex's tools: definitions ([Spec], [Def],
// [Define]), the [Registry], argument normalisation, results and the
// session environment [Env] the tools work through. The tools themselves
// live in family subpackages (file, search, exec, git, info, memory,
// notes, webfetch, models, image); internal/tools/builtin assembles the
// built-in set. This package imports no family.
//
// A tool is a Go function with a typed parameter struct. [Define] turns it
// into a [Def]: the JSON Schema the model sees is generated from the struct
// (github.com/google/jsonschema-go, descriptions from `jsonschema` tags,
// defaults from `default` tags, path parameters from `tool:"path"` tags), and
// the model's arguments are normalised (tool-name and parameter aliases,
// "5" → 5, "true" → true) and validated against that schema before the call.
//
// The engine uses a [Registry] in two steps so the permission policy sees
// clean arguments and the paths a call touches before anything runs:
//
//	p, err := reg.Prepare(name, rawArgs) // normalise + validate, no side effects
//	if err != nil { return tools.ErrorResult(err) }
//	// ask the permission policy about p.Def.Kind and p.Paths ...
//	res := p.Run(ctx, env)
//
// [Registry.Call] does both at once (for `aidex tool` and tests).
//
// Everything a model can get wrong comes back as a [Result] with OK false,
// a [Category] and a message saying what to do next; tools never panic on bad
// input and never return Go errors to the engine.
//
// [Env] gives the families what they share: path confinement
// ([Env.Resolve]), read tracking ([Env.MarkRead], [Env.CheckFresh]; a
// file is never changed on the strength of a stale or missing read),
// checkpoints of the old content so /undo can restore it
// ([Env.Checkpoint]) and atomic writes with a unified diff in [Meta].Diff
// ([Env.Commit], which only computes the diff in a dry run).
//
// Paths given by the model are confined by a [Resolver] (satisfied by
// *permission.Workspace); a refusal is a Result with [CategorySecurity].
// The file operations on a resolved path ([Env.Stat], [Env.ReadRegular],
// [Env.WriteAtomic], [Env.Rename], [Env.Remove], ...) go through os.Root
// at the workspace root or granted directory that holds it, so a symlink
// swapped into the path after Resolve cannot make the open escape.
package tools
