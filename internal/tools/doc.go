// Package tools is aidex's tool registry and its built-in tools.
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
// Every file change checks that the file was read in this session and has
// not changed on disk since ([ReadTracker]), saves a checkpoint of the old
// content ([Checkpointer]) so /undo can restore it, keeps CRLF line endings,
// a UTF-8 BOM and a missing final newline, is written atomically
// (github.com/google/renameio/v2, file mode preserved) and reports a unified
// diff in [Meta].Diff.
//
// Paths given by the model are confined by a [Resolver] (satisfied by
// *permission.Workspace); a refusal is a Result with [CategorySecurity].
package tools
