package app

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/config"
)

// PermissionRule is one saved permission rule as `aidex permissions list`
// and /permissions show it: Kind is deny, ask or allow; Rule the rule as
// written ("run_command(go test *)"); Source where it comes from ("PATH:LINE",
// "env" or "flag").
type PermissionRule struct {
	Kind   string `json:"kind"`
	Rule   string `json:"rule"`
	Source string `json:"source"`
}

// PermissionRules lists cfg's permission rules, deny first, then ask,
// then allow (the order they are judged in: deny beats allow), each in
// the order its files gave them.
func PermissionRules(cfg *config.Config) []PermissionRule {
	var out []PermissionRule
	for _, k := range []struct {
		kind  string
		rules []config.Rule
	}{{"deny", cfg.Permissions.Deny}, {"ask", cfg.Permissions.Ask}, {"allow", cfg.Permissions.Allow}} {
		for _, r := range k.rules {
			out = append(out, PermissionRule{Kind: k.kind, Rule: r.Text, Source: r.Source})
		}
	}
	return out
}

// removablePermissionRules are the rules of cfg equal to rule (and of
// kind, unless kind is "") and the config file each is removed from. A
// rule from the environment, a flag or another tool's file (Claude Code's
// settings.json) cannot be removed here: the error says where to change it.
//
// Errors: no such rule; a rule of several kinds without kind; a rule that
// is not in one of aidex's config files.
func removablePermissionRules(cfg *config.Config, kind, rule string) ([]PermissionRule, []string, error) {
	var hits []PermissionRule
	kinds := map[string]bool{}
	for _, r := range PermissionRules(cfg) {
		if r.Rule == rule && (kind == "" || r.Kind == kind) {
			hits = append(hits, r)
			kinds[r.Kind] = true
		}
	}
	if len(hits) == 0 {
		return nil, nil, fmt.Errorf("no saved rule %q%s: `aidex permissions list` (or /permissions) shows them", rule, kindSuffix(kind))
	}
	if len(kinds) > 1 {
		return nil, nil, fmt.Errorf("%q is a rule of several kinds: name one, e.g. `aidex permissions remove --kind %s %q`", rule, hits[0].Kind, rule)
	}
	files := make([]string, 0, len(hits))
	for _, h := range hits {
		file := sourceFile(h.Source)
		own := file != "" && (file == filepath.Clean(cfg.Paths.ConfigFile) || cfg.ProjectFile != "" && file == filepath.Clean(cfg.ProjectFile))
		if !own {
			return nil, nil, fmt.Errorf("the %s rule %q comes from %s, not from an aidex config file: %s", h.Kind, rule, h.Source, whereToChange(h.Source))
		}
		files = append(files, file)
	}
	return hits, files, nil
}

// RemovePermissionRule removes rule (of kind, or of its only kind when
// kind is "") from every aidex config file that holds it (see
// removablePermissionRules) and returns what it removed. Reload the
// runtime afterwards for running sessions to see the change.
func RemovePermissionRule(cfg *config.Config, kind, rule string) ([]PermissionRule, error) {
	hits, files, err := removablePermissionRules(cfg, kind, rule)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for i, h := range hits {
		if done[files[i]+h.Kind] {
			continue
		}
		done[files[i]+h.Kind] = true
		if err := config.RemoveRule(files[i], h.Kind, rule); err != nil {
			return nil, err
		}
	}
	return hits, nil
}

func kindSuffix(kind string) string {
	if kind == "" {
		return ""
	}
	return " of kind " + kind
}

// sourceFile is the file of a "PATH:LINE" source, or "".
func sourceFile(src string) string {
	i := strings.LastIndexByte(src, ':')
	if i <= 0 {
		return ""
	}
	if _, err := strconv.Atoi(src[i+1:]); err != nil {
		return ""
	}
	return filepath.Clean(src[:i])
}

func whereToChange(src string) string {
	switch src {
	case config.SourceEnv:
		return "unset the AIDEX_PERMISSIONS_* variable"
	case config.SourceFlag:
		return "leave out the --allow/--deny/--ask flag"
	}
	return "edit that file"
}
