package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/plugin"
	"github.com/zelvior/aidex/internal/trust"
)

// This file is what `aidex plugin` and /plugin do: install, remove,
// enable and disable plugins, add and remove marketplaces, and list and
// approve a plugin's items of content. A change takes effect in the next
// runtime a service loads (Service.Reload).

// pluginStore is the runtime's plugin store (aidex's data directory).
func (rt Plugins) pluginStore() plugin.Store { return plugin.OpenStore(rt.Config.Paths.DataDir) }

// pluginAdded is an installed plugin, the settings file that enables it,
// and its items of content with their status.
type pluginAdded struct {
	plugin.Fetched
	SettingsFile string
	Items        []ContentItem
}

// AddPlugin installs a plugin (see plugin.Store.Install; ref "NAME@MARKETPLACE"
// picks a plugin of a known marketplace, as marketplace does) and enables
// it at scope ("user", "project" or "local"; "" is "user"). Its items
// are listed, not approved. Errors: the install's; an unknown scope; a
// settings file that cannot be written.
func (rt Plugins) AddPlugin(ctx context.Context, src, marketplace, scope string) (pluginAdded, error) {
	var out pluginAdded
	file, err := rt.scopeFile(scope)
	if err != nil {
		return out, err
	}
	if name, market, ok := strings.Cut(src, "@"); ok && marketplace == "" && !plugin.IsGitURL(src) {
		src, marketplace = name, market
	}
	if out.Fetched, err = rt.Plugins().pluginStore().Install(ctx, src, marketplace); err != nil {
		return out, err
	}
	if err := plugin.SetEnabled(file, out.ID(), true); err != nil {
		return out, err
	}
	out.SettingsFile = file
	out.Items, err = rt.PluginContent(out.ID())
	return out, err
}

// UpdatePlugin fetches the installed plugin ref again (plugin.Store.Update)
// and lists its items with their status: what changed waits for approval
// again. Errors: the update's.
func (rt Plugins) UpdatePlugin(ctx context.Context, ref string) (pluginAdded, error) {
	var out pluginAdded
	var err error
	if out.Fetched, err = rt.Plugins().pluginStore().Update(ctx, ref); err != nil {
		return out, err
	}
	out.Items, err = rt.PluginContent(out.ID())
	return out, err
}

// scopeFile is the settings file of an enablement scope.
func (rt Plugins) scopeFile(scope string) (string, error) {
	if scope == "" {
		scope = "user"
	}
	file := pluginScopes(rt.Config.Paths, rt.Workspace)[scope]
	if file == "" {
		return "", fmt.Errorf("plugin scope %q: use user, project (.claude/settings.json) or local (.claude/settings.local.json) of a project folder", scope)
	}
	return file, nil
}

// SetPluginEnabled enables or disables the installed plugin ref at scope
// and returns it with the settings file written. Errors: no such
// plugin; an unknown scope; the file cannot be written.
func (rt Plugins) SetPluginEnabled(ref, scope string, on bool) (plugin.Installed, string, error) {
	p, err := rt.Plugins().pluginStore().Find(ref)
	if err != nil {
		return p, "", err
	}
	file, err := rt.scopeFile(scope)
	if err != nil {
		return p, "", err
	}
	return p, file, plugin.SetEnabled(file, p.ID(), on)
}

// RemovePlugin uninstalls ref, drops it from the user's enabledPlugins
// and forgets the approvals of its content. Errors: no such plugin; the
// registry, settings or approvals cannot be written.
func (rt Plugins) RemovePlugin(ref string) (plugin.Installed, error) {
	p, err := rt.Plugins().pluginStore().Remove(ref)
	if err != nil {
		return p, err
	}
	errs := []error{plugin.ForgetEnabled(userSettingsFile(rt.Config.Paths), p.ID())}
	if p.Dir != "" {
		errs = append(errs, trust.OpenStore(rt.Config.Paths.StateDir).Forget(p.Dir))
	}
	return p, errors.Join(errs...)
}

// PluginContent returns the items of content of the installed plugin ref
// (enabled or not) with their status against its approvals, sorted.
// Errors: no such plugin; it cannot be read or hashed.
func (rt Plugins) PluginContent(ref string) ([]ContentItem, error) {
	inst, err := rt.Plugins().pluginStore().Find(ref)
	if err != nil {
		return nil, err
	}
	items, err := rt.pluginItemsOf(inst)
	if err != nil {
		return nil, err
	}
	a, err := trust.OpenStore(rt.Config.Paths.StateDir).Approvals(inst.Dir)
	trust.SortItems(items)
	out := make([]ContentItem, 0, len(items))
	for _, it := range items {
		out = append(out, ContentItem{Item: it, Status: trust.StatusOf(it, a)})
	}
	return out, err
}

// ApprovePluginContent records items of the installed plugin ref as
// approved (under its folder: they count in every project). Errors: no
// such plugin; the store cannot be written.
func (rt Plugins) ApprovePluginContent(ref string, items ...trust.Item) error {
	inst, err := rt.Plugins().pluginStore().Find(ref)
	if err != nil || len(items) == 0 {
		return err
	}
	return trust.OpenStore(rt.Config.Paths.StateDir).Approve(inst.Dir, items...)
}

// pluginItemsOf computes an installed plugin's items as a runtime that
// has only it enabled would: the same producers, so the digests match.
func (rt Plugins) pluginItemsOf(inst plugin.Installed) ([]trust.Item, error) {
	p, err := plugin.Load(inst.Dir, inst.Name)
	if err != nil {
		return nil, err
	}
	p.Name = inst.Name
	lp := loadedPlugin{ID: inst.ID(), Plugin: p}
	if lp.Tree, err = plugin.TreeDigest(p.Root); err != nil {
		return nil, err
	}
	cfg := *rt.Config
	cfg.MCPServers = map[string]config.MCPServer{}
	cfg.Paths.ConfigDir, cfg.Paths.Home, cfg.ProjectTrusted = "", "", false
	tmp := &Runtime{Config: &cfg, Getenv: rt.Getenv, plugins: []loadedPlugin{lp}, content: &contentState{}}
	if tmp.Getenv == nil {
		tmp.Getenv = func(string) string { return "" }
	}
	mcp := tmp.Plugins().pluginMCPServers()
	list, _, err := hooks.Load(hooks.Sources{Plugins: tmp.Plugins().pluginHookSources()})
	if err != nil {
		return nil, err
	}
	tmp.hooks = &hooks.Runner{Hooks: list}
	return trust.Collect(tmp.Plugins().pluginProducers(mcp)...)
}

// AddMarketplace fetches and records a marketplace (plugin.Store.AddMarketplace).
func (rt Plugins) AddMarketplace(ctx context.Context, src string) (plugin.KnownMarketplace, plugin.Marketplace, []string, error) {
	return rt.Plugins().pluginStore().AddMarketplace(ctx, src)
}

// MarketplaceListing is a known marketplace and what it lists (Err: its
// copy could not be read).
type MarketplaceListing struct {
	plugin.KnownMarketplace
	Plugins []plugin.Entry
	Err     error
}

// Marketplaces lists the known marketplaces with their plugins.
// Errors: the registry cannot be read.
func (rt Plugins) Marketplaces() ([]MarketplaceListing, error) {
	known, err := rt.Plugins().pluginStore().Marketplaces()
	out := make([]MarketplaceListing, 0, len(known))
	for _, k := range known {
		m, _, lerr := plugin.LoadMarketplace(k.Dir)
		out = append(out, MarketplaceListing{KnownMarketplace: k, Plugins: slices.Clone(m.Plugins), Err: lerr})
	}
	return out, err
}

// RemoveMarketplace forgets a marketplace (plugin.Store.RemoveMarketplace).
func (rt Plugins) RemoveMarketplace(name string) (plugin.KnownMarketplace, error) {
	return rt.Plugins().pluginStore().RemoveMarketplace(name)
}

// RestartMCP restarts the service's MCP servers with the current
// runtime's (after /plugin approved, enabled or disabled a plugin's
// servers) and gives the session the new manager.
func (ls *Session) RestartMCP(ctx context.Context) { ls.restartMCP(ctx) }
