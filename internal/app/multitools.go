package app

import (
	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/tools"
	memtools "github.com/zelvior/aidex/internal/tools/memory"
)

// forModel returns the session's tool set as the active model of rt
// sees it: the same tools, environment, policy hooks and checkpoints,
// but the memory tools keep that model's family folder (memory stays
// model-scoped; the shared folder is shared), and tools' images reach
// it only when it sees images.
func (t *toolSet) forModel(rt *Runtime) *toolSet {
	cp := *t
	cp.vision, cp.imageNote = rt.modelRoom().imageInput()
	mem := tools.NewRegistry()
	o := memtools.Options{Family: memstore.Family(rt.Provider.Name, rt.Model), Dir: memstore.Dir(rt.Config.Paths.StateDir, rt.Workspace),
		GlobalDir: memstore.GlobalDir(rt.Config.Paths.ConfigDir), NoGlobalSave: !rt.Config.ProjectTrusted}
	if err := mem.Register(memtools.Tools(o)...); err == nil {
		cp.memory = mem
	}
	return &cp
}

// registryFor returns the registry that prepares a call of name: the
// model's memory registry for the memory tools (when set), else the
// session's.
func (t *toolSet) registryFor(name string) *tools.Registry {
	if t.memory == nil {
		return t.reg
	}
	if _, ok := t.memory.Lookup(t.reg.Canonical(t.offered, name)); ok {
		return t.memory
	}
	return t.reg
}
