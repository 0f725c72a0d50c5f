// Package memstore (the memory store; the tools are internal/tools/memory) gives the model memory across sessions, in two forms that
// share one directory per scope:
//
//   - a small file tree the model manages itself through the `memory` tool
//     (Run: view, create, str_replace, insert, delete, rename; modelled on
//     Anthropic's memory tool,
//     https://docs.claude.com/en/docs/agents-and-tools/tool-use/memory-tool).
//     It lives outside the workspace, under Dir(stateDir, workspace)
//     (<state dir>/memory/<hash of the workspace path>/<family>/), with a
//     shared/ directory beside the families visible to every model
//     family; Migrate moves the tree aidex used to keep in
//     <workspace>/.aidex/memory/ there, once. The model addresses it as /memories/...; /memories/shared/...
//     is the shared directory. Paths are confined to the memory root:
//     absolute paths, "..", backslashes, control characters and symlinks
//     leading out are refused (os.Root enforces the last at every call).
//   - entries saved with `save_memory` and searched with `load_memory`:
//     JSON Lines files (one Entry per line) at
//     <workspace>/.aidex/memory/entries.jsonl (project scope) and
//     <config dir>/memory/entries.jsonl (global scope). Only the user pins
//     entries (Store.SetPinned, `aidex memory pin`); pinned entries go into
//     the system prompt through PinnedNotes.
//
// The model reaches both through the memory tool family
// (internal/tools/memory), which wraps Run and Store; this package does
// not know about tools. None of the tools takes a workspace path
// parameter: they reach only the memory directories.
package memstore
