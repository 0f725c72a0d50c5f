package commands

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/trust"
)

// pluginUsage is /plugin's usage line.
const pluginUsage = "usage: /plugin [list | add SRC | enable NAME | disable NAME | remove NAME | review NAME | approve NAME | marketplace [add SRC | list | remove NAME]]"

// cmdPlugin is /plugin: `aidex plugin`'s verbs inside a session (the
// user level of enablement). A change applies from the next turn (the
// runtime is reloaded); a plugin's items run only once approved: /plugin
// review NAME lists them, /plugin approve NAME approves them.
func cmdPlugin(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	rt := c.Runtime()
	switch verb {
	case "", "list":
		list, err := rt.Plugins().List()
		if err != nil {
			return Outcome{}, err
		}
		if len(list) == 0 {
			fmt.Fprintln(out, "no plugins installed: /plugin add PATH|GIT-URL|NAME@MARKETPLACE")
		}
		for _, p := range list {
			state := "disabled"
			if p.Enabled {
				state = "enabled"
			}
			fmt.Fprintf(out, "%-36s %-8s %-8s %s\n", p.ID(), p.Version, state, p.Description)
		}
		return Outcome{}, nil
	case "marketplace":
		return pluginMarketplace(ctx, c, rest, out)
	case "review":
		return Outcome{}, pluginReview(rt, rest, out)
	}
	if rest == "" {
		return Outcome{}, fmt.Errorf("/plugin %s needs a plugin: %s", verb, pluginUsage)
	}
	if err := pluginChange(ctx, rt, verb, rest, out); err != nil {
		return Outcome{}, err
	}
	before := serverNames(rt)
	if err := c.Reload(ctx); err != nil {
		return Outcome{}, err
	}
	if after := serverNames(c.Runtime()); after != before {
		c.live.RestartMCP(ctx)
		fmt.Fprintln(out, "MCP servers restarted")
	}
	return Outcome{}, nil
}

// serverNames are the runtime's MCP server names, sorted, in one string.
func serverNames(rt *app.Runtime) string {
	names := make([]string, 0, len(rt.Config.MCPServers))
	for n := range rt.Config.MCPServers {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, "\x00")
}

// pluginChange runs the verbs that change what is installed, enabled or
// approved.
func pluginChange(ctx context.Context, rt *app.Runtime, verb, ref string, out io.Writer) error {
	switch verb {
	case "add":
		res, err := rt.Plugins().AddPlugin(ctx, ref, "", "user")
		for _, w := range res.Warnings {
			fmt.Fprintf(out, "warning: %s\n", w)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "installed and enabled %s %s\n", res.ID(), res.Version)
		return pluginReview(rt, res.ID(), out)
	case "enable", "disable":
		p, file, err := rt.Plugins().SetPluginEnabled(ref, "user", verb == "enable")
		if err == nil {
			fmt.Fprintf(out, "%sd %s in %s\n", verb, p.ID(), file)
		}
		return err
	case "remove":
		p, err := rt.Plugins().RemovePlugin(ref)
		if err == nil {
			fmt.Fprintf(out, "removed %s\n", p.ID())
		}
		return err
	case "approve":
		items, err := rt.Plugins().PluginContent(ref)
		if err != nil {
			return err
		}
		var pending []trust.Item
		for _, it := range items {
			if it.Status != trust.StatusApproved {
				pending = append(pending, it.Item)
			}
		}
		fmt.Fprintf(out, "approved %d item(s) of %s\n", len(pending), ref)
		return rt.Plugins().ApprovePluginContent(ref, pending...)
	}
	return fmt.Errorf("unknown /plugin verb %q: %s", verb, pluginUsage)
}

// pluginReview lists a plugin's items that wait for approval.
func pluginReview(rt *app.Runtime, ref string, out io.Writer) error {
	if ref == "" {
		return fmt.Errorf("/plugin review needs a plugin: %s", pluginUsage)
	}
	items, err := rt.Plugins().PluginContent(ref)
	if err != nil {
		return err
	}
	n := 0
	for _, it := range items {
		if it.Status == trust.StatusApproved {
			continue
		}
		n++
		fmt.Fprintf(out, "  [%s] %s %s\n", it.Status, it.Kind, it.Name)
		if it.Detail != "" && !strings.HasSuffix(it.Name, it.Detail) {
			fmt.Fprintf(out, "      %s\n", it.Detail)
		}
	}
	if n == 0 {
		fmt.Fprintf(out, "%s: every item of its content is approved\n", ref)
		return nil
	}
	fmt.Fprintf(out, "%d item(s) of %s are left out until you approve them: /plugin approve %s\n", n, ref, ref)
	return nil
}

// pluginMarketplace is /plugin marketplace [add SRC | list | remove NAME].
func pluginMarketplace(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	verb, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	rt := c.Runtime()
	switch verb {
	case "", "list":
		ms, err := rt.Plugins().Marketplaces()
		if len(ms) == 0 && err == nil {
			fmt.Fprintln(out, "no marketplaces: /plugin marketplace add PATH|GIT-URL")
		}
		for _, m := range ms {
			fmt.Fprintf(out, "%s (%s)\n", m.Name, m.Source)
			for _, e := range m.Plugins {
				fmt.Fprintf(out, "  %-28s %s\n", e.Name+"@"+m.Name, e.Description)
			}
		}
		return Outcome{}, err
	case "add":
		k, m, warns, err := rt.Plugins().AddMarketplace(ctx, rest)
		for _, w := range warns {
			fmt.Fprintf(out, "warning: %s\n", w)
		}
		if err == nil {
			fmt.Fprintf(out, "added marketplace %s (%d plugins): /plugin add NAME@%s\n", k.Name, len(m.Plugins), k.Name)
		}
		return Outcome{}, err
	case "remove":
		k, err := rt.Plugins().RemoveMarketplace(rest)
		if err == nil {
			fmt.Fprintf(out, "removed marketplace %s\n", k.Name)
		}
		return Outcome{}, err
	}
	return Outcome{}, fmt.Errorf("unknown /plugin marketplace verb %q: %s", verb, pluginUsage)
}
