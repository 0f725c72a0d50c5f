package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/trust"
)

// This file is the config files' producer of trust items: in a trusted
// folder, every setting of the project file that an untrusted folder may
// not set, every allow rule and every MCP server of the project file and
// of .mcp.json is an item (trust.Item), and is applied only when its
// digest is approved (LoadOptions.Approved). Config.ContentItems lists
// them all, approved or not, for the review.

// approved reports whether the trusted project's item counts, and records
// it in the config's items.
func (l *loader) approved(it trust.Item) bool {
	l.cfg.ContentItems = append(l.cfg.ContentItems, it)
	return l.approvedFn(it)
}

// approvedFn is LoadOptions.Approved, or the store of the state directory
// when it is nil (fail closed: a store that cannot be read approves
// nothing, with a warning).
func (l *loader) approvedFn(it trust.Item) bool {
	if l.opts.Approved != nil {
		return l.opts.Approved(it)
	}
	if l.approvals == nil {
		a, err := trust.OpenStore(l.paths.StateDir).Approvals(l.opts.Workspace)
		if err != nil {
			l.warnings = append(l.warnings, Warning{Message: fmt.Sprintf("%v; this project's content counts as not approved", err)})
		}
		l.approvals = &a
	}
	return l.approvals.Approved(it)
}

// settingItem is a trusted project file's setting as an item.
func (l *loader) settingItem(s setting) trust.Item {
	shown := formatValue(s.value)
	if s.spec.secret() {
		if v, ok := s.value.(string); ok {
			shown = Mask(v)
		}
	}
	return trust.NewItem(trust.KindSetting, s.key(), s.source(), s.key()+" = "+shown, s.value, l.opts.Workspace)
}

// ruleItem is one allow rule of a trusted project file as an item.
func (l *loader) ruleItem(s setting, rule string) trust.Item {
	return trust.NewItem(trust.KindRule, rule, s.source(), "allow "+rule, rule, l.opts.Workspace)
}

// mcpServerItem is a project's MCP server as a trust item: its command,
// arguments, environment, working folder, URL, headers and transport (as
// written: template, when not nil, is the .mcp.json entry before ${VAR}
// expansion, so the user's own variables changing needs no new
// approval), and the workspace files its command and arguments name once
// expanded (the script or program it runs). workspace is the project
// folder.
func mcpServerItem(s MCPServer, template any, workspace string) trust.Item {
	var content any = template
	if content == nil {
		content = struct {
			Command, Cwd, URL, Transport, BearerTokenEnvVar string
			Args, EnvVars                                   []string
			Env, Headers                                    map[string]string
			// EnvHeaders send aidex's variables to URL (left out when
			// empty: approvals of servers without it stay valid).
			EnvHeaders map[string]string `json:",omitempty"`
		}{s.Command, s.Cwd, s.URL, s.TransportName(), s.BearerTokenEnvVar, s.Args, s.EnvVars, s.Env, s.HTTPHeaders, s.EnvHTTPHeaders}
	}
	detail := s.URL
	if s.Command != "" {
		detail = strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	if len(s.Env) > 0 {
		detail += fmt.Sprintf(" (env: %s)", strings.Join(sortedKeys(s.Env), ", "))
	}
	if len(s.HTTPHeaders) > 0 {
		detail += fmt.Sprintf(" (headers: %s)", strings.Join(sortedKeys(s.HTTPHeaders), ", "))
	}
	files := append([]string{s.Command}, s.Args...)
	if s.Cwd != "" {
		n := len(files)
		for _, f := range files[:n] {
			if f != "" && !filepath.IsAbs(f) {
				files = append(files, filepath.Join(s.Cwd, f))
			}
		}
	}
	return trust.NewItem(trust.KindMCPServer, s.Name, s.Source, detail, content, workspace, files...)
}

// approvedRules keeps the allow rules of a trusted project file that are
// approved: in the store, or by the user's "always allow in this project"
// (Paths.ApprovedRules). The setting returned holds those.
func (l *loader) approvedRules(s setting) setting {
	rules, _ := s.value.([]string)
	user, _ := l.paths.ApprovedRules(l.opts.Workspace)
	var ok []string
	for _, r := range rules {
		if slices.Contains(user, r) || l.approved(l.ruleItem(s, r)) {
			ok = append(ok, r)
		}
	}
	s.value = ok
	return s
}
