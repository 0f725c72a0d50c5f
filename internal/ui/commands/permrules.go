package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/format"
)

// cmdPermissions is /permissions: the saved rules with their sources, or
// /permissions remove [allow|ask|deny] RULE removes one from its aidex
// config file and reloads the session's policy.
func cmdPermissions(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	switch verb {
	case "", "list":
		return Outcome{}, format.WritePermissionRules(out, app.PermissionRules(c.Runtime().Config))
	case "remove", "rm":
	default:
		return Outcome{}, fmt.Errorf("unknown /permissions %s: use /permissions, or /permissions remove [allow|ask|deny] RULE", verb)
	}
	kind, rule := "", strings.TrimSpace(rest)
	if k, r, ok := strings.Cut(rule, " "); ok && (k == "allow" || k == "ask" || k == "deny") {
		kind, rule = k, strings.TrimSpace(r)
	}
	if rule == "" {
		return Outcome{}, fmt.Errorf("name the rule: /permissions remove [allow|ask|deny] RULE (/permissions lists them)")
	}
	removed, err := app.RemovePermissionRule(c.Runtime().Config, kind, rule)
	if err != nil {
		return Outcome{}, err
	}
	if _, err := c.svc.Reload(ctx, nil); err != nil {
		return Outcome{}, fmt.Errorf("removed, but the settings did not reload: %w", err)
	}
	if err := c.live.Refresh(ctx); err != nil {
		return Outcome{}, err
	}
	for _, r := range removed {
		fmt.Fprintf(out, "removed %s rule %s (%s)\n", r.Kind, r.Rule, r.Source)
	}
	return Outcome{}, nil
}
