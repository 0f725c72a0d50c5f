// Package memory is the memory tool family: the model's memory across
// sessions, kept by internal/memory.
//
//   - memory (kind.Write, full profile): the model's own file tree at
//     /memories (its model family's directory) and /memories/shared (seen
//     by every family), with the commands view, create, str_replace,
//     insert, delete and rename;
//   - save_memory (kind.Write, standard profile): save a short fact in
//     the project's or the global entries;
//   - load_memory (kind.Read, standard profile): find saved entries by
//     text and category, most recent first.
//
// All three are aidex's own bookkeeping (Spec.Bookkeeping) and take no
// workspace path parameter: they reach only the memory directories of the
// session workspace (tools.Env.Workspace.Root()) and Options.GlobalDir.
package memory
