package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zelvior/aidex/internal/claudecompat"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/trust"
)

// This file honours the permissions of a project's Claude Code settings
// (.claude/settings.json, .claude/settings.local.json): their
// permissions.allow, ask and deny rules, in Claude's syntax, become
// aidex's own rules (claudecompat translates them). Deny and ask rules
// only tighten, so they always apply; an allow rule widens, so it counts
// only in a trusted folder and only once approved: it is an item of the
// content review (trust.KindRule), like an allow rule of
// .aidex/config.toml. A rule aidex cannot translate exactly is a warning
// naming it; such a deny or ask rule covers every use of its tool
// instead, an allow rule allows nothing.

// maxClaudeSettingsBytes caps a Claude settings file read for its
// permissions.
const maxClaudeSettingsBytes = 1 << 20

// claudeSettingsFiles are the project's Claude Code settings files whose
// permissions aidex honours, in the order Claude Code reads them.
func claudeSettingsFiles(workspace string) []string {
	return []string{filepath.Join(workspace, ".claude", "settings.json"), filepath.Join(workspace, ".claude", "settings.local.json")}
}

// claudePermissions is the permissions object of a Claude settings file:
// its rules, and the names of its other keys (not read).
type claudePermissions struct {
	Allow, Ask, Deny []string
	Other            []string
}

// loadClaudePermissions adds the rules of the project's Claude settings
// files to rt.Config.Permissions (see the top of this file), and the
// trusted project's allow rules to rt.Config.ContentItems; approved
// reports whether an item is approved. Problems are warnings.
func (rt ProjectContent) loadClaudePermissions(approved func(trust.Item) bool) {
	if rt.Workspace == "" {
		return
	}
	for _, file := range claudeSettingsFiles(rt.Workspace) {
		perms, data, err := readClaudePermissions(file)
		if err != nil {
			rt.Warnings = append(rt.Warnings, config.Warning{File: file, Message: err.Error() + "; its permissions are ignored"})
			continue
		}
		if perms == nil {
			continue
		}
		for _, key := range perms.Other {
			rt.Warnings = append(rt.Warnings, config.Warning{File: file, Line: lineOf(data, key), Message: fmt.Sprintf(
				"permissions.%s of Claude Code is not read by aidex (only allow, ask and deny are)", key)})
		}
		ignored := 0
		for _, list := range []struct {
			action permission.Decision
			rules  []string
		}{{permission.Deny, perms.Deny}, {permission.Ask, perms.Ask}, {permission.Allow, perms.Allow}} {
			for _, rule := range list.rules {
				source := fmt.Sprintf("%s:%d", file, lineOf(data, rule))
				if list.action == permission.Allow && !rt.Config.ProjectTrusted {
					ignored++
					continue
				}
				rt.addClaudeRule(list.action, rule, source, approved)
			}
		}
		if ignored > 0 {
			rt.Warnings = append(rt.Warnings, config.Warning{File: file, Message: fmt.Sprintf(
				"ignored %d permissions.allow rule(s): this folder is not trusted (run `aidex trust` in %s to allow them)", ignored, rt.Workspace)})
		}
	}
}

// addClaudeRule adds one Claude rule of action from source.
func (rt ProjectContent) addClaudeRule(action permission.Decision, rule, source string, approved func(trust.Item) bool) {
	tr := claudecompat.Rule(rule, rt.claudeOptions())
	for _, r := range tr.Rules {
		if _, err := permission.ParseRule(r); err != nil {
			tr = claudecompat.Translation{Reason: err.Error(), Whole: tr.Whole}
			break
		}
	}
	file, line := splitSourceLine(source)
	rules := tr.Rules
	if !tr.Exact {
		msg := fmt.Sprintf("Claude permission rule %q (%s) cannot be translated exactly (%s): ", rule, action, tr.Reason)
		switch {
		case action == permission.Allow:
			msg += "it allows nothing"
		case len(tr.Whole) > 0:
			msg += "it covers every use of " + strings.Join(tr.Whole, ", ") + " instead"
			rules = tr.Whole
		default:
			msg += "aidex has no such tool, so it covers nothing"
		}
		rt.Warnings = append(rt.Warnings, config.Warning{File: file, Line: line, Message: msg})
	}
	if len(rules) == 0 {
		return
	}
	if action == permission.Allow {
		it := claudeRuleItem(rule, source, rules, rt.Workspace)
		rt.Config.ContentItems = append(rt.Config.ContentItems, it)
		if approved == nil || !approved(it) {
			return
		}
	}
	p := &rt.Config.Permissions
	for _, r := range rules {
		cr := config.Rule{Text: r, Source: source}
		switch action {
		case permission.Allow:
			p.Allow = append(p.Allow, cr)
		case permission.Ask:
			p.Ask = append(p.Ask, cr)
		default:
			p.Deny = append(p.Deny, cr)
		}
	}
}

// claudeRuleItem is an allow rule of a project's Claude settings as a
// trust item: named by the rule and its file (an aidex allow rule of the
// same text is another item), its digest over the aidex rules it becomes.
func claudeRuleItem(rule, source string, rules []string, workspace string) trust.Item {
	file, _ := splitSourceLine(source)
	rel, err := filepath.Rel(workspace, file)
	if err != nil {
		rel = file
	}
	content := struct {
		Claude string
		Rules  []string
	}{rule, rules}
	return trust.NewItem(trust.KindRule, rule+" ("+filepath.ToSlash(rel)+")", source,
		"allow "+rule+" → "+strings.Join(rules, ", "), content, workspace)
}

// readClaudePermissions reads file's permissions object: nil, nil when
// the file or the object is missing. Errors: unreadable, too large, not
// JSON, a permissions object of the wrong shape.
func readClaudePermissions(file string) (*claudePermissions, []byte, error) {
	st, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if st.Size() > maxClaudeSettingsBytes {
		return nil, nil, fmt.Errorf("%d bytes is over the %d-byte limit", st.Size(), maxClaudeSettingsBytes)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	var doc struct {
		Permissions map[string]json.RawMessage `json:"permissions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("not valid JSON (%v)", err)
	}
	if doc.Permissions == nil {
		return nil, nil, nil
	}
	p := &claudePermissions{}
	for key, raw := range doc.Permissions {
		var list *[]string
		switch key {
		case "allow":
			list = &p.Allow
		case "ask":
			list = &p.Ask
		case "deny":
			list = &p.Deny
		default:
			p.Other = append(p.Other, key)
			continue
		}
		if err := json.Unmarshal(raw, list); err != nil {
			return nil, nil, fmt.Errorf("permissions.%s must be a list of rules (strings)", key)
		}
	}
	sort.Strings(p.Other)
	return p, data, nil
}

// lineOf is the 1-based line of the first occurrence of s, as a JSON
// string, after "permissions" in data (1 when not found).
func lineOf(data []byte, s string) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	quoted := bytes.TrimSpace(buf.Bytes())
	start := bytes.Index(data, []byte(`"permissions"`))
	if start < 0 {
		start = 0
	}
	i := bytes.Index(data[start:], quoted)
	if i < 0 {
		return 1
	}
	return bytes.Count(data[:start+i], []byte("\n")) + 1
}

// splitSourceLine splits "FILE:LINE".
func splitSourceLine(source string) (string, int) {
	i := strings.LastIndexByte(source, ':')
	var n int
	if i < 0 {
		return source, 0
	}
	if _, err := fmt.Sscanf(source[i+1:], "%d", &n); err != nil {
		return source, 0
	}
	return source[:i], n
}
