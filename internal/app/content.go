package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/skills"
	"github.com/zelvior/aidex/internal/slashcmd"
	"github.com/zelvior/aidex/internal/subagent"
	"github.com/zelvior/aidex/internal/trust"
)

// This file approves a trusted project's content (internal/trust): every
// producer's items are listed in one place (contentProducers), each
// consumer of project content keeps only approved items (config.Load for
// settings, rules and MCP servers; approveHooks, approvedCommands,
// approvedSkills, approvedAgents here), a headless session with an
// unapproved hook is refused (contentNotApprovedError) and an interactive
// one reviews what is pending before its first run (Session.reviewContent).

// notApprovedNote is hooks.Hook.Ignored for a trusted project's hook whose
// content is not approved.
const notApprovedNote = "ignored: new or changed since you approved this project (" + trust.ReviewCommand + ")"

// pluginNotApprovedNote is hooks.Hook.Ignored for a plugin's hook whose
// content is not approved.
const pluginNotApprovedNote = "ignored: this plugin's hook is new or changed since you approved it (aidex plugin review)"

// contentState is what a runtime knows of its project's content items:
// all of them (nil in an untrusted folder, whose content never counts),
// the approvals they were judged against, and those pending review.
type contentState struct {
	store     trust.Store
	approvals trust.Approvals
	items     []trust.Item
	pending   []trust.Change
	// owner is the folder each plugin item's approval is recorded
	// under (its plugin's), by digest; other items are the workspace's.
	owner map[string]string
}

// sessionApprovals are the items approved for the service's lifetime only
// (answered "yes" or "this session" in the review); shared by the
// runtimes a service loads.
type sessionApprovals struct {
	mu    sync.Mutex
	items []trust.Item
}

func (s *sessionApprovals) add(items ...trust.Item) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, items...)
}

func (s *sessionApprovals) list() []trust.Item {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.items)
}

// contentApprovals returns the approvals of workspace's items: the
// store's and this service's. A store that cannot be read approves
// nothing (fail closed) and its error is returned for a warning.
func contentApprovals(stateDir, workspace string, now *sessionApprovals) (trust.Store, trust.Approvals, error) {
	st := trust.OpenStore(stateDir)
	a, err := st.Approvals(workspace)
	return st, a.With(now.list()...), err
}

// loadContent judges the runtime's content against a: it marks
// unapproved hooks ignored and lists every producer's items and those
// pending. An untrusted folder has no items of its own; enabled plugins'
// items count in every folder (plugins.go). Called once by LoadBase,
// after the hooks are loaded.
func (rt ProjectContent) loadContent(st trust.Store, a trust.Approvals, pluginMCP []trust.Item) {
	rt.content = &contentState{store: st, approvals: a, owner: map[string]string{}}
	var ps []trust.Producer
	if rt.Config.ProjectTrusted && rt.Workspace != "" {
		ps = rt.contentProducers()
	}
	pluginItems, err := trust.Collect(rt.Plugins().pluginProducers(pluginMCP)...)
	for _, it := range pluginItems {
		for _, p := range rt.plugins {
			if strings.HasPrefix(strings.TrimPrefix(it.Name, "/"), p.Name+":") {
				rt.content.owner[it.Digest] = p.Root
			}
		}
	}
	if len(ps) == 0 && len(pluginItems) == 0 {
		return
	}
	rt.approveHooks()
	items, perr := trust.Collect(ps...)
	if err = errors.Join(err, perr); err != nil {
		rt.Warnings = append(rt.Warnings, config.Warning{Message: err.Error()})
	}
	items = append(items, pluginItems...)
	rt.content.items = items
	rt.content.pending = trust.Review(items, a)
	if line := trust.Summary(rt.content.pending); line != "" {
		rt.Warnings = append(rt.Warnings, config.Warning{Message: line})
	}
}

// warnContentProblems adds a warning for each problem of the custom
// commands, skills and agents the runtime reads (a file left out, an
// unknown key, two commands of one name), each naming its file and line:
// every front end shows the runtime's warnings, headless included.
func (rt ProjectContent) warnContentProblems() {
	_, cmdErrs := rt.allCustomCommands()
	_, skillErrs := rt.allSkills()
	for _, err := range cmdErrs {
		rt.Warnings = append(rt.Warnings, config.Warning{Message: "custom command " + err.Error()})
	}
	for _, err := range skillErrs {
		rt.Warnings = append(rt.Warnings, config.Warning{Message: "skill " + err.Error()})
	}
	for _, w := range subagent.Load(rt.subagentDirs()).Warnings {
		rt.Warnings = append(rt.Warnings, config.Warning{Message: w})
	}
	rt.Plugins().warnPluginClashes()
}

// contentProducers are every source of the project's content items: the
// config files (settings, allow rules, MCP servers: config.Load listed
// them), hooks, custom commands, skills and agents. A new source (a
// plugin) is one more producer here.
func (rt ProjectContent) contentProducers() []trust.Producer {
	ws := rt.Workspace
	return []trust.Producer{
		trust.ProducerFunc(func() ([]trust.Item, error) { return rt.Config.ContentItems, nil }),
		trust.ProducerFunc(func() ([]trust.Item, error) {
			var out []trust.Item
			for _, h := range rt.Hooks() {
				if it, ok := hookItem(h, ws); ok {
					out = append(out, it)
				}
			}
			return out, nil
		}),
		trust.ProducerFunc(func() ([]trust.Item, error) {
			cmds, _ := rt.allCustomCommands()
			var out []trust.Item
			for _, c := range cmds {
				if it, ok := commandItem(c, ws); ok {
					out = append(out, it)
				}
			}
			return out, nil
		}),
		trust.ProducerFunc(func() ([]trust.Item, error) {
			list, _ := rt.allSkills()
			var out []trust.Item
			for _, s := range list {
				if it, ok := skillItem(s, ws); ok {
					out = append(out, it)
				}
			}
			return out, nil
		}),
		trust.ProducerFunc(func() ([]trust.Item, error) {
			var out []trust.Item
			for _, d := range subagent.Load(rt.subagentDirs()).Defs {
				if it, ok := agentItem(d, ws); ok {
					out = append(out, it)
				}
			}
			return out, nil
		}),
	}
}

// approved reports whether a project item counts.
func (rt ProjectContent) approved(it trust.Item) bool {
	return rt.content != nil && rt.content.approvals.Approved(it)
}

// projectHookFiles are the files whose hooks are the project's.
func projectHookFiles(ws string) []string {
	s := hooks.ProjectSources("", "", ws, true)
	return append([]string{s.ProjectTOML}, s.ClaudeProject...)
}

// hookItem is a trusted project's hook as an item (ok false for the
// user's own hooks): its event, matcher, command and time limit, and the
// workspace files the command names (the script it runs).
func hookItem(h hooks.Hook, ws string) (trust.Item, bool) {
	if h.Plugin != "" || !slices.Contains(projectHookFiles(ws), h.Source) {
		return trust.Item{}, false
	}
	return hookContentItem(h, ws, trust.CommandWords(h.Command, ws)), true
}

// hookContentItem is a hook as an item whose digest covers the files of
// ws that words name.
func hookContentItem(h hooks.Hook, ws string, words []string) trust.Item {
	matcher := h.Matcher
	if matcher == "" {
		matcher = "*"
	}
	content := struct {
		Event, Matcher, Command string
		TimeoutMS               int64
		// Unsandboxed ("sandbox": false) is part of what is approved;
		// left out when false, so approvals of sandboxed hooks stay.
		Unsandboxed bool `json:",omitempty"`
	}{string(h.Event), matcher, h.Command, h.Timeout.Milliseconds(), h.Unsandboxed}
	name := fmt.Sprintf("%s[%s]: %s", h.Event, matcher, h.Command)
	detail := h.Command
	if h.Unsandboxed {
		detail += " (runs outside the sandbox)"
	}
	return trust.NewItem(trust.KindHook, name, h.Source, detail, content, ws, words...)
}

// approveHooks marks the project's hooks whose items are not approved
// ignored: they never run.
func (rt ProjectContent) approveHooks() {
	if rt.hooks == nil {
		return
	}
	for i, h := range rt.hooks.Hooks {
		it, ok := hookItem(h, rt.Workspace)
		note := notApprovedNote
		if !ok {
			it, ok = rt.Plugins().pluginHookItem(h)
			note = pluginNotApprovedNote
		}
		if ok && h.Ignored == "" && !rt.approved(it) {
			rt.hooks.Hooks[i].Ignored = note
		}
	}
}

// commandItem is a project's custom command as an item when it runs
// commands (!`command` lines) or widens permissions (allowed-tools);
// ok false otherwise (plain prompt text needs no approval).
func commandItem(c slashcmd.Command, ws string) (trust.Item, bool) {
	if c.Scope != slashcmd.ScopeProject {
		return trust.Item{}, false
	}
	return commandContentItem(c, ws)
}

// commandContentItem is a command as an item when it runs commands or
// has allowed-tools, the files of ws its commands name hashed too.
func commandContentItem(c slashcmd.Command, ws string) (trust.Item, bool) {
	bangs := slashcmd.BangCommands(c.Body)
	if len(bangs) == 0 && len(c.AllowedTools) == 0 {
		return trust.Item{}, false
	}
	var files []string
	for _, b := range bangs {
		files = append(files, trust.CommandWords(b, ws)...)
	}
	var detail []string
	if len(c.AllowedTools) > 0 {
		detail = append(detail, "allowed-tools: "+strings.Join(c.AllowedTools, ", "))
	}
	for _, b := range bangs {
		detail = append(detail, "runs: "+b)
	}
	content := struct{ AllowedTools, Commands []string }{c.AllowedTools, bangs}
	return trust.NewItem(trust.KindCommand, "/"+c.PathName(), c.Path, strings.Join(detail, "; "), content, ws, files...), true
}

// skillItem is a project's skill as an item when it has allowed-tools.
func skillItem(s skills.Skill, ws string) (trust.Item, bool) {
	if s.Scope != slashcmd.ScopeProject || len(s.AllowedTools) == 0 {
		return trust.Item{}, false
	}
	return skillContentItem(s, ws), true
}

// skillContentItem is a skill's allowed-tools as an item.
func skillContentItem(s skills.Skill, ws string) trust.Item {
	return trust.NewItem(trust.KindSkill, s.Name, filepath.Join(s.Dir, skills.FileName),
		"allowed-tools: "+strings.Join(s.AllowedTools, ", "), s.AllowedTools, ws)
}

// agentItem is a project's agent file as an item when it names its tools.
func agentItem(d subagent.Definition, ws string) (trust.Item, bool) {
	if len(d.Tools) == 0 || !inside(d.Source, ws) {
		return trust.Item{}, false
	}
	return agentContentItem(d, ws), true
}

// agentContentItem is an agent's tools as an item.
func agentContentItem(d subagent.Definition, ws string) trust.Item {
	content := struct {
		Tools    []string
		ReadOnly bool
		Model    string
	}{d.Tools, d.ReadOnly, d.Model}
	return trust.NewItem(trust.KindAgent, d.Name, d.Source, "tools: "+strings.Join(d.Tools, ", "), content, ws)
}

// inside reports whether path is in dir.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// approvedCommands leaves out the trusted project's and the plugins'
// commands whose items are not approved.
func (rt ProjectContent) approvedCommands(cmds []slashcmd.Command, errs []error) ([]slashcmd.Command, []error) {
	return slices.DeleteFunc(cmds, func(c slashcmd.Command) bool {
		it, ok := commandItem(c, rt.Workspace)
		if !ok || !rt.Config.ProjectTrusted {
			it, ok = rt.Plugins().pluginCommandItem(c)
		}
		return ok && !rt.approved(it)
	}), errs
}

// approvedSkills leaves out the trusted project's and the plugins'
// skills whose items are not approved.
func (rt ProjectContent) approvedSkills(list []skills.Skill, errs []error) ([]skills.Skill, []error) {
	return slices.DeleteFunc(list, func(s skills.Skill) bool {
		it, ok := skillItem(s, rt.Workspace)
		if !ok || !rt.Config.ProjectTrusted {
			it, ok = rt.Plugins().pluginSkillItem(s)
		}
		return ok && !rt.approved(it)
	}), errs
}

// approvedAgents leaves out the project's and the plugins' agents whose
// items are not approved.
func (rt ProjectContent) approvedAgents(set subagent.Set) subagent.Set {
	set.Defs = slices.DeleteFunc(set.Defs, func(d subagent.Definition) bool {
		it, ok := agentItem(d, rt.Workspace)
		if !ok {
			it, ok = rt.Plugins().pluginAgentItem(d)
		}
		return ok && !rt.approved(it)
	})
	return set
}

// allCustomCommands and allSkills are the folders' commands and skills,
// the enabled plugins' last, approved or not (for the producers).
func (rt ProjectContent) allCustomCommands() ([]slashcmd.Command, []error) {
	dirs := slashcmd.Dirs(rt.Workspace, rt.Config.Paths.ConfigDir, rt.Config.Paths.Home)
	return slashcmd.Discover(append(dirs, rt.Plugins().pluginCommandDirs()...))
}

func (rt ProjectContent) allSkills() ([]skills.Skill, []error) {
	dirs := skills.Dirs(rt.Workspace, rt.Config.Paths.ConfigDir, rt.Config.Paths.Home)
	return skills.Discover(append(dirs, rt.Plugins().pluginSkillDirs()...))
}

// ContentItem is one item of the project's content with its status, for
// `aidex trust` and the review.
type ContentItem struct {
	trust.Item
	Status trust.Status
}

// Items returns the trusted project's items of content with their
// status against the approvals (none in an untrusted folder), sorted by
// kind and name.
func (rt ProjectContent) Items() []ContentItem {
	if rt.content == nil {
		return nil
	}
	items := slices.Clone(rt.content.items)
	trust.SortItems(items)
	out := make([]ContentItem, 0, len(items))
	for _, it := range items {
		out = append(out, ContentItem{Item: it, Status: trust.StatusOf(it, rt.content.approvals)})
	}
	return out
}

// Pending returns the items that are new or changed since the
// last approval, in review order.
func (rt ProjectContent) Pending() []trust.Change {
	if rt.content == nil {
		return nil
	}
	return slices.Clone(rt.content.pending)
}

// Approve records items as approved for the runtime's workspace.
// Errors: the store cannot be written.
// A plugin's item is recorded under the plugin's folder (it then counts
// in every project).
func (rt ProjectContent) Approve(items ...trust.Item) error {
	byOwner := map[string][]trust.Item{}
	for _, it := range items {
		byOwner[rt.Plugins().itemOwner(it)] = append(byOwner[rt.Plugins().itemOwner(it)], it)
	}
	for _, dir := range sortedNames(byOwner) {
		if err := rt.content.store.Approve(dir, byOwner[dir]...); err != nil {
			return err
		}
	}
	return nil
}

// ApproveAll records exactly the current project items as the
// workspace's approvals (`aidex trust DIR`; earlier approvals of content
// no longer there are dropped) and approves the enabled plugins' items.
// Errors: the store cannot be written.
func (rt ProjectContent) ApproveAll() error {
	var own, plugins []trust.Item
	for _, it := range rt.content.items {
		if rt.Plugins().itemOwner(it) == rt.Workspace {
			own = append(own, it)
		} else {
			plugins = append(plugins, it)
		}
	}
	if err := rt.content.store.Replace(rt.Workspace, own); err != nil {
		return err
	}
	return rt.ProjectContent().Approve(plugins...)
}

// Forget drops the workspace's approvals (`aidex trust --remove`).
func (rt ProjectContent) Forget() error {
	return trust.OpenStore(rt.Config.Paths.StateDir).Forget(rt.Workspace)
}

// contentNotApprovedError is [Service.Session]'s error for a session that
// cannot ask (no Approver: a headless run) when the trusted project has a
// hook that is new or changed since the user approved it: running without
// a guard hook the user configured is weaker than what they asked for, so
// the run stops before its first model request.
type contentNotApprovedError struct {
	Hooks []trust.Change
}

// Error implements error.
func (e *contentNotApprovedError) Error() string {
	names := make([]string, 0, len(e.Hooks))
	for _, h := range e.Hooks {
		names = append(names, fmt.Sprintf("%s (%s, %s)", h.Name, h.Source, h.Status))
	}
	return fmt.Sprintf("the hook %s is not approved, and a run without a hook you configured is weaker than you asked for: review it with `%s` (a plugin's: `aidex plugin review`)",
		strings.Join(names, "; "), trust.ReviewCommand)
}

// contentGate refuses a session that cannot ask when a hook is pending.
func (rt ProjectContent) contentGate(o SessionOptions) error {
	if o.Approver != nil || rt.content == nil {
		return nil
	}
	var hs []trust.Change
	for _, c := range rt.content.pending {
		if c.Kind == trust.KindHook {
			hs = append(hs, c)
		}
	}
	if len(hs) > 0 {
		return &contentNotApprovedError{Hooks: hs}
	}
	return nil
}

// ready waits for the conversation's messages (waitLoaded), then reviews
// the project's pending content (reviewContent): what a run does before
// it builds its engine.
func (ls *Session) ready(ctx context.Context, emit func(agent.Event)) error {
	if err := ls.waitLoaded(ctx); err != nil {
		return err
	}
	return ls.reviewContent(ctx, emit)
}

// contentReview is a service's review of pending content: done once, at
// the first run of a session that can ask.
type contentReview struct {
	mu   sync.Mutex
	done bool
}

// reviewContent asks the user about each pending item of the trusted
// project, through the session's Approver, before the session's first
// run: [a]lways approves and records it, [y]es or [s]ession approve it for
// this service, [n]o skips it (it stays left out). The approval events go
// to emit as the engine's do. When anything was approved the runtime is
// reloaded (sessions rebuild their engines) and the MCP servers restart.
// Errors: ctx ended while asking; the store or the reload failed.
func (ls *Session) reviewContent(ctx context.Context, emit func(agent.Event)) error {
	s := ls.svc
	ap := ls.opts.Approver
	s.review.mu.Lock()
	defer s.review.mu.Unlock()
	if s.review.done || ap == nil {
		return nil
	}
	rt := s.Runtime()
	pending := rt.ProjectContent().Pending()
	if len(pending) == 0 {
		s.review.done = true
		return nil
	}
	var record, now []trust.Item
	mcpApproved := false
	for i, c := range pending {
		info := rt.ProjectContent().reviewInfo(c, i, len(pending))
		emit(agent.Event{Type: agent.EventApproval, SessionID: ls.ID(), Approval: &info})
		ans, why, err := ap.Approve(ctx, info)
		if err != nil || ctx.Err() != nil {
			return fmt.Errorf("review of the project's content: %w", context.Cause(ctx))
		}
		answered := info
		answered.Answer, answered.Reason = ans, why
		emit(agent.Event{Type: agent.EventApproval, SessionID: ls.ID(), Approval: &answered})
		switch ans {
		case agent.AnswerAlways:
			record = append(record, c.Item)
		case agent.AnswerOnce, agent.AnswerSession:
			now = append(now, c.Item)
		default:
			continue
		}
		mcpApproved = mcpApproved || c.Kind == trust.KindMCPServer
	}
	s.review.done = true
	if err := rt.ProjectContent().Approve(record...); err != nil {
		return err
	}
	s.approvedNow.add(append(record, now...)...)
	if len(record)+len(now) == 0 {
		return nil
	}
	if _, err := s.Reload(ctx, nil); err != nil {
		return err
	}
	if mcpApproved {
		ls.restartMCP(ctx)
	}
	return nil
}

// reviewInfo is the approval request of pending item i of n.
func (rt ProjectContent) reviewInfo(c trust.Change, i, n int) agent.ApprovalInfo {
	id := fmt.Sprintf("trust_%d_%s", i, strings.TrimPrefix(c.Digest, "sha256:")[:12])
	label := c.Name
	if c.Detail != "" { // a hook's name ends with its command, the detail
		label = strings.TrimSuffix(strings.TrimSuffix(label, strings.TrimSuffix(c.Detail, " (runs outside the sandbox)")), ": ")
	}
	whose, owner := "project ", rt.Plugins().itemOwner(c.Item)
	if owner != rt.Workspace {
		whose = "plugin "
	}
	return agent.ApprovalInfo{ID: id, CallID: id,
		Tool: whose + string(c.Kind) + " " + label, Command: c.Detail, Rule: agent.RuleTrust,
		Reason:    reviewReason(c, i, n, owner != rt.Workspace),
		Suggested: "this item: always records the approval, yes/session approve it for this session only, no leaves it out"}
}

func reviewReason(c trust.Change, i, n int, fromPlugin bool) string {
	what := "new in this trusted project"
	if fromPlugin {
		what = "new in an enabled plugin"
	}
	if c.Status == trust.StatusChanged {
		what = "changed since you approved it"
	}
	return fmt.Sprintf("%d of %d: %s (%s); it does not run until you approve it", i+1, n, what, c.Source)
}

// restartMCP restarts the service's MCP servers with the current runtime's
// (newly approved ones included) and gives the session the new manager.
func (ls *Session) restartMCP(ctx context.Context) {
	s := ls.svc
	_ = s.closeMCP()
	s.mcp.mu.Lock()
	s.mcp.started = false
	s.mcp.mu.Unlock()
	m := s.MCP(ctx)
	ls.mu.Lock()
	ls.mcp = m
	ls.gen = -1 // rebuild the engine with the new manager
	ls.mu.Unlock()
}
