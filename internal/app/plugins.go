package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/plugin"
	"github.com/zelvior/aidex/internal/skills"
	"github.com/zelvior/aidex/internal/slashcmd"
	"github.com/zelvior/aidex/internal/subagent"
	"github.com/zelvior/aidex/internal/trust"
)

// This file makes enabled plugins (internal/plugin) one more source root
// of each loader: their command, agent and skill folders join the
// folders slashcmd, subagent and skills read (named "PLUGIN:ITEM"),
// their hooks files join hooks.Load's sources, and their MCP servers are
// parsed by config.ParseMCPJSON. Every item a plugin brings is an item of
// the content review (internal/trust), whatever the folder's trust: its
// digest covers the item and the plugin's whole folder
// (plugin.TreeDigest), and its approval is recorded under the plugin's
// folder, so an approved plugin counts in every project and an update
// that changes any of its files is reviewed again.

// loadedPlugin is an enabled plugin of the runtime: ID
// ("NAME@MARKETPLACE"), the plugin, and the digest of its folder ("" when
// it could not be hashed: then nothing of it is approved).
type loadedPlugin struct {
	ID   string
	Tree string
	plugin.Plugin
}

// userSettingsFile is aidex's user settings file, the user level of
// enabledPlugins: <config dir>/settings.json (Claude Code's shape).
func userSettingsFile(p config.Paths) string {
	if p.ConfigDir == "" {
		return ""
	}
	return filepath.Join(p.ConfigDir, "settings.json")
}

// pluginScopes are the settings files of plugin enablement, lowest
// precedence first: "user" (userSettingsFile), "project"
// (.claude/settings.json) and "local" (.claude/settings.local.json).
// The project's count only in a trusted folder.
func pluginScopes(p config.Paths, workspace string) map[string]string {
	out := map[string]string{"user": userSettingsFile(p)}
	if workspace != "" {
		files := claudeSettingsFiles(workspace)
		out["project"], out["local"] = files[0], files[1]
	}
	return out
}

// PluginState is an installed plugin and whether it is enabled here
// (Enabled), by which settings file (EnabledBy: "" when no file names it).
type PluginState struct {
	plugin.Installed
	Enabled   bool
	EnabledBy string
}

// List lists the installed plugins with their enablement in this
// runtime's folder. Errors: the registry or a settings file cannot be
// read.
func (rt Plugins) List() ([]PluginState, error) {
	list, err := plugin.OpenStore(rt.Config.Paths.DataDir).Installed()
	if err != nil {
		return nil, err
	}
	layers, files, err := rt.enablementLayers()
	out := make([]PluginState, 0, len(list))
	for _, p := range list {
		st := PluginState{Installed: p}
		for i, l := range layers {
			if on, ok := l[p.ID()]; ok {
				st.Enabled, st.EnabledBy = on, files[i]
			}
		}
		out = append(out, st)
	}
	return out, err
}

// enablementLayers reads the enabledPlugins of the user's settings and
// (in a trusted folder) the project's, lowest precedence first, with
// their files.
func (rt Plugins) enablementLayers() ([]map[string]bool, []string, error) {
	scopes := pluginScopes(rt.Config.Paths, rt.Workspace)
	order := []string{"user"}
	if rt.Config.ProjectTrusted && rt.Workspace != "" {
		order = append(order, "project", "local")
	}
	var layers []map[string]bool
	var files []string
	var errs []string
	for _, s := range order {
		if scopes[s] == "" {
			continue
		}
		m, err := plugin.ReadEnabled(scopes[s])
		if err != nil {
			errs = append(errs, err.Error())
		}
		layers, files = append(layers, m), append(files, scopes[s])
	}
	if len(errs) > 0 {
		return layers, files, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return layers, files, nil
}

// loadPlugins reads the enabled plugins (warnings for those that cannot
// be read) and returns a with the approvals recorded under each plugin's
// folder added.
func (rt Plugins) loadPlugins(st trust.Store, a trust.Approvals) trust.Approvals {
	states, err := rt.List()
	if err != nil {
		rt.Warnings = append(rt.Warnings, config.Warning{Message: err.Error() + "; plugins named there are not enabled"})
	}
	for _, s := range states {
		if !s.Enabled {
			continue
		}
		p, err := plugin.Load(s.Dir, s.Name)
		if err != nil {
			rt.Warnings = append(rt.Warnings, config.Warning{Message: fmt.Sprintf("plugin %s is left out: %v (reinstall it with `aidex plugin add`)", s.ID(), err)})
			continue
		}
		p.Name = s.Name
		for _, w := range p.Warnings {
			rt.Warnings = append(rt.Warnings, config.Warning{Message: "plugin " + s.ID() + ": " + w})
		}
		lp := loadedPlugin{ID: s.ID(), Plugin: p}
		if lp.Tree, err = plugin.TreeDigest(p.Root); err != nil {
			rt.Warnings = append(rt.Warnings, config.Warning{Message: fmt.Sprintf("plugin %s: %v; none of its content is approved", s.ID(), err)})
		}
		pa, err := st.Approvals(p.Root)
		if err != nil {
			rt.Warnings = append(rt.Warnings, config.Warning{Message: fmt.Sprintf("%v; plugin %s's content counts as not approved", err, s.ID())})
		}
		a = a.Merge(pa)
		rt.plugins = append(rt.plugins, lp)
	}
	return a
}

// pluginByName returns the enabled plugin called name.
func (rt Plugins) pluginByName(name string) (loadedPlugin, bool) {
	for _, p := range rt.plugins {
		if p.Name == name {
			return p, true
		}
	}
	return loadedPlugin{}, false
}

// pluginOf returns the enabled plugin whose folder holds path.
func (rt Plugins) pluginOf(path string) (loadedPlugin, bool) {
	for _, p := range rt.plugins {
		if inside(path, p.Root) {
			return p, true
		}
	}
	return loadedPlugin{}, false
}

// pluginItem is an item of plugin p: it (built with p's folder as the
// workspace, so the files its commands name are hashed) named
// "PLUGIN:NAME", its digest covering it and p's whole folder.
func pluginItem(it trust.Item, p loadedPlugin) trust.Item {
	content := struct{ Item, Tree string }{it.Digest, p.Tree}
	if p.Tree == "" { // not hashed: never matches an approval
		content.Tree = "unhashed"
	}
	name := it.Name
	if !strings.HasPrefix(name, p.Name+":") && !strings.HasPrefix(name, "/"+p.Name+":") {
		name = p.Name + ":" + name
	}
	return trust.NewItem(it.Kind, name, it.Source, it.Detail, content, p.Root)
}

// pluginCommandDirs, pluginSkillDirs and pluginAgentDirs are the enabled
// plugins' folders for each loader.
func (rt Plugins) pluginCommandDirs() []slashcmd.Dir {
	var out []slashcmd.Dir
	for _, p := range rt.plugins {
		for _, d := range p.CommandDirs {
			out = append(out, slashcmd.Dir{Path: d, Scope: slashcmd.ScopePlugin, Namespace: p.Name})
		}
	}
	return out
}

func (rt Plugins) pluginSkillDirs() []skills.Dir {
	var out []skills.Dir
	for _, p := range rt.plugins {
		for _, d := range p.SkillDirs {
			out = append(out, skills.Dir{Path: d, Scope: slashcmd.ScopePlugin, Namespace: p.Name})
		}
	}
	return out
}

func (rt Plugins) pluginAgentDirs() []subagent.PluginDir {
	var out []subagent.PluginDir
	for _, p := range rt.plugins {
		for _, d := range p.AgentDirs {
			out = append(out, subagent.PluginDir{Plugin: p.Name, Path: d})
		}
	}
	return out
}

// pluginHookSources are the enabled plugins' hooks for hooks.Load.
func (rt Plugins) pluginHookSources() []hooks.PluginHooks {
	var out []hooks.PluginHooks
	for _, p := range rt.plugins {
		out = append(out, hooks.PluginHooks{Plugin: p.Name, Root: p.Root, Files: p.HookFiles, Inline: p.InlineHooks,
			Manifest: plugin.ManifestPath(p.Root)})
	}
	return out
}

// pluginMCPServers parses the enabled plugins' MCP servers (named
// "plugin_PLUGIN_SERVER", ${CLAUDE_PLUGIN_ROOT} replaced by the plugin's
// folder), adds the approved ones to the config and returns every
// server's item.
func (rt Plugins) pluginMCPServers() []trust.Item {
	var items []trust.Item
	for _, p := range rt.plugins {
		getenv := func(name string) string {
			if name == plugin.RootVar {
				return p.Root
			}
			return rt.Getenv(name)
		}
		type doc struct {
			file string
			data []byte
		}
		var docs []doc
		for _, f := range p.MCPFiles {
			data, err := readLimited(f, maxClaudeSettingsBytes)
			if err != nil {
				rt.Warnings = append(rt.Warnings, config.Warning{File: f, Message: fmt.Sprintf("plugin %s: %v; its MCP servers are left out", p.ID, err)})
				continue
			}
			docs = append(docs, doc{f, data})
		}
		if p.InlineMCP != nil {
			docs = append(docs, doc{plugin.ManifestPath(p.Root), p.InlineMCP})
		}
		for _, d := range docs {
			items = append(items, rt.addPluginServers(p, d.file, d.data, getenv)...)
		}
	}
	return items
}

// addPluginServers adds the approved servers of one plugin MCP document.
func (rt Plugins) addPluginServers(p loadedPlugin, file string, data []byte, getenv func(string) string) []trust.Item {
	servers, warns, err := config.ParseMCPJSON(file, data, getenv)
	rt.Warnings = append(rt.Warnings, warns...)
	if err != nil {
		rt.Warnings = append(rt.Warnings, config.Warning{File: file, Message: fmt.Sprintf("plugin %s: %v; its MCP servers are left out", p.ID, err)})
		return nil
	}
	var raw struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	_ = json.Unmarshal(data, &raw)
	var items []trust.Item
	for _, name := range sortedNames(servers) {
		s := servers[name]
		s.Name = "plugin_" + strings.NewReplacer(".", "_", ":", "_").Replace(p.Name) + "_" + name
		it := pluginItem(trust.NewItem(trust.KindMCPServer, "mcp "+name, s.Source, s.Command+" "+strings.Join(s.Args, " "),
			raw.MCPServers[name], p.Root), p)
		items = append(items, it)
		if _, taken := rt.Config.MCPServers[s.Name]; taken || !rt.ProjectContent().approved(it) {
			continue
		}
		rt.Config.MCPServers[s.Name] = s
	}
	return items
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// pluginProducers are the enabled plugins' items: hooks, commands that
// run commands or widen permissions, skills and agents with tool lists,
// and MCP servers (mcp, from pluginMCPServers).
func (rt Plugins) pluginProducers(mcp []trust.Item) []trust.Producer {
	if len(rt.plugins) == 0 {
		return nil
	}
	return []trust.Producer{
		trust.ProducerFunc(func() ([]trust.Item, error) { return mcp, nil }),
		trust.ProducerFunc(func() ([]trust.Item, error) {
			var out []trust.Item
			for _, h := range rt.Hooks() {
				if it, ok := rt.pluginHookItem(h); ok {
					out = append(out, it)
				}
			}
			cmds, _ := rt.ProjectContent().allCustomCommands()
			for _, c := range cmds {
				if it, ok := rt.pluginCommandItem(c); ok {
					out = append(out, it)
				}
			}
			list, _ := rt.ProjectContent().allSkills()
			for _, s := range list {
				if it, ok := rt.pluginSkillItem(s); ok {
					out = append(out, it)
				}
			}
			for _, d := range subagent.Load(rt.ProjectContent().subagentDirs()).Defs {
				if it, ok := rt.pluginAgentItem(d); ok {
					out = append(out, it)
				}
			}
			return out, nil
		}),
	}
}

// pluginHookItem is a plugin's hook as an item (ok false for others').
func (rt Plugins) pluginHookItem(h hooks.Hook) (trust.Item, bool) {
	p, ok := rt.pluginByName(h.Plugin)
	if h.Plugin == "" || !ok {
		return trust.Item{}, false
	}
	words := trust.CommandWords(strings.NewReplacer("${"+plugin.RootVar+"}", p.Root, "$"+plugin.RootVar, p.Root).Replace(h.Command), p.Root)
	return pluginItem(hookContentItem(h, p.Root, words), p), true
}

// pluginCommandItem is a plugin's command as an item when it runs
// commands or has allowed-tools.
func (rt Plugins) pluginCommandItem(c slashcmd.Command) (trust.Item, bool) {
	p, ok := rt.pluginOf(c.Path)
	if c.Scope != slashcmd.ScopePlugin || !ok {
		return trust.Item{}, false
	}
	it, ok := commandContentItem(c, p.Root)
	if !ok {
		return trust.Item{}, false
	}
	return pluginItem(it, p), true
}

// pluginSkillItem is a plugin's skill as an item when it has
// allowed-tools.
func (rt Plugins) pluginSkillItem(s skills.Skill) (trust.Item, bool) {
	p, ok := rt.pluginOf(s.Dir)
	if s.Scope != slashcmd.ScopePlugin || !ok || len(s.AllowedTools) == 0 {
		return trust.Item{}, false
	}
	return pluginItem(skillContentItem(s, p.Root), p), true
}

// pluginAgentItem is a plugin's agent as an item when it names its tools.
func (rt Plugins) pluginAgentItem(d subagent.Definition) (trust.Item, bool) {
	p, ok := rt.pluginOf(d.Source)
	if !ok || len(d.Tools) == 0 {
		return trust.Item{}, false
	}
	return pluginItem(agentContentItem(d, p.Root), p), true
}

// itemOwner is the folder an item's approval is recorded under: its
// plugin's, else the workspace.
func (rt Plugins) itemOwner(it trust.Item) string {
	if rt.content != nil {
		if dir, ok := rt.content.owner[it.Digest]; ok {
			return dir
		}
	}
	return rt.Workspace
}

// readLimited reads a file of at most max bytes.
func readLimited(file string, max int64) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%d bytes is over the %d-byte limit", st.Size(), max)
	}
	return os.ReadFile(file)
}

// hiddenData is what the sandbox masks of aidex's data folder: all of
// it, except the enabled plugins' folders, which their hooks and servers
// read (never write: they are not writable, and a change to one is
// reviewed again). With plugins enabled, the folder's other entries are
// masked one by one, as they exist when the sandbox is made.
func (rt Plugins) hiddenData() []string {
	d := rt.Config.Paths.DataDir
	if d == "" || len(rt.plugins) == 0 {
		return []string{d}
	}
	var keep []string
	for _, p := range rt.plugins {
		keep = append(keep, p.Root)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return []string{d}
	}
	return maskAllBut(real, keep, 8)
}

// maskAllBut returns the entries of dir to mask so that only the folders
// of keep (and what is below them) stay visible: every entry that is not
// one of keep and holds none of them, and, for one that holds some, its
// own entries the same way (depth bounds the descent).
func maskAllBut(dir string, keep []string, depth int) []string {
	entries, err := os.ReadDir(dir)
	if err != nil || depth == 0 {
		return []string{dir}
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		holds := false
		for _, k := range keep {
			if k == p {
				holds = true
				break
			}
			if inside(k, p) {
				holds = true
				if e.IsDir() {
					out = append(out, maskAllBut(p, keep, depth-1)...)
				}
				break
			}
		}
		if !holds {
			out = append(out, p)
		}
	}
	return out
}

// warnPluginClashes warns, once per item, about a plugin's skill or
// agent whose short name another skill or agent (the user's, the
// project's, a built-in, another plugin's) has: it answers only to
// PLUGIN:NAME. (Commands' clashes are slashcmd.Discover's warnings.)
func (rt Plugins) warnPluginClashes() {
	if len(rt.plugins) == 0 {
		return
	}
	var skillNames, agentNames []string
	list, _ := rt.ProjectContent().allSkills()
	for _, s := range list {
		skillNames = append(skillNames, s.Name)
	}
	for _, d := range subagent.Load(rt.ProjectContent().subagentDirs()).Defs {
		agentNames = append(agentNames, d.Name)
	}
	for _, c := range []struct {
		kind  string
		names []string
	}{{"skill", skillNames}, {"agent", agentNames}} {
		for _, n := range c.names {
			plug, short, ok := strings.Cut(n, ":")
			if _, isPlugin := rt.pluginByName(plug); !ok || !isPlugin {
				continue
			}
			if others := shortNameUsers(c.names, n, short); len(others) > 0 {
				rt.Warnings = append(rt.Warnings, config.Warning{Message: fmt.Sprintf(
					"plugin %s %s: %q is also %s; call it %s", c.kind, n, short, strings.Join(others, ", "), n)})
			}
		}
	}
}

// shortNameUsers are the names of names other than self that are short
// or end in ":"+short.
func shortNameUsers(names []string, self, short string) []string {
	var out []string
	for _, o := range names {
		if o != self && (o == short || strings.HasSuffix(o, ":"+short)) {
			out = append(out, o)
		}
	}
	return out
}
