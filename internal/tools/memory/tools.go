package memory

import (
	"time"

	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/tools"
)

// Options configure Tools.
type Options struct {
	// Family is the model family directory of the memory tool; use
	// memstore.Family(provider, model). Empty (or memstore.SharedDir) means
	// "other".
	Family string
	// Dir is the memory tool's directory of the workspace
	// (memstore.Dir(stateDir, workspace)), outside the workspace; "" makes
	// the memory tool fail with a message saying so.
	Dir string
	// GlobalDir is the global memory directory (memstore.GlobalDir(configDir));
	// "" disables global memories (save_memory with scope "global" fails).
	GlobalDir string
	// NoGlobalSave refuses save_memory with scope "global": set it in a
	// workspace the user has not trusted, so what its files talk the
	// model into remembering never reaches another project (memory
	// poisoning).
	NoGlobalSave bool
	// Now is the clock of saved entries (nil = time.Now).
	Now func() time.Time
}

// Tools returns the memory tools, in this order: memory, save_memory and
// load_memory. Register them with tools.Registry.Register.
func Tools(o Options) []tools.Def {
	if o.Family == "" || o.Family == memstore.SharedDir {
		o.Family = "other"
	}
	return []tools.Def{o.memoryDef(), o.saveMemoryDef(), o.loadMemoryDef()}
}

// workspaceOf returns the session workspace root, or a ready Result when
// the env has none.
func workspaceOf(env *tools.Env) (string, *tools.Result) {
	if env == nil || env.Workspace == nil {
		r := tools.Failf(tools.CategoryInternal, "internal error: no workspace configured for memory tools")
		return "", &r
	}
	return env.Workspace.Root(), nil
}

// store returns the entry store of the session workspace.
func (o Options) store(env *tools.Env) (*memstore.Store, *tools.Result) {
	ws, fail := workspaceOf(env)
	if fail != nil {
		return nil, fail
	}
	return memstore.NewStore(ws, o.GlobalDir, o.Now), nil
}
