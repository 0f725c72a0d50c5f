package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// ctxPanelKey opens and closes the context panel.
const ctxPanelKey = "f2"

// ctxPanelKeysHelp is the context panel's key line.
const ctxPanelKeysHelp = "↑/↓ select · Enter/→ open a folder · ← close it · F2 or Esc back to chat"

// maxDirEntries caps the entries the file tree lists of one folder.
const maxDirEntries = 200

// ctxPanel is the context panel (ayder-cli's ContextPanel): the model,
// how full the context window is, the session's tokens and cost, and a
// collapsible file tree of the workspace, read from disk when a folder
// opens (hidden entries, node_modules and __pycache__ left out). F2
// toggles it; it takes the screen as the Ralph split view does.
type ctxPanel struct {
	root string
	// open holds the open folders, workspace-relative with slashes.
	open map[string]bool
	rows []treeRow
	sel  int
}

// treeRow is one line of the file tree: a file or folder at depth
// (0: the workspace's top level), or a "… N more" line (more > 0).
type treeRow struct {
	rel   string
	name  string
	depth int
	dir   bool
	more  int
}

// newCtxPanel opens the panel on workspace root, its top level listed.
func newCtxPanel(root string) *ctxPanel {
	p := &ctxPanel{root: root, open: map[string]bool{}}
	p.rebuild()
	return p
}

// rebuild lists the tree again from disk, the open folders expanded.
func (p *ctxPanel) rebuild() {
	p.rows = p.rows[:0]
	p.list("", 0)
	p.sel = max(0, min(p.sel, len(p.rows)-1))
}

// list appends folder rel's entries at depth, folders first, recursing
// into open folders.
func (p *ctxPanel) list(rel string, depth int) {
	entries, err := os.ReadDir(filepath.Join(p.root, filepath.FromSlash(rel)))
	if err != nil {
		return
	}
	var kept []os.DirEntry
	for _, e := range entries {
		if n := e.Name(); !strings.HasPrefix(n, ".") && n != "node_modules" && n != "__pycache__" {
			kept = append(kept, e)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].IsDir() && !kept[j].IsDir() })
	for i, e := range kept {
		if i == maxDirEntries {
			p.rows = append(p.rows, treeRow{depth: depth, more: len(kept) - i})
			return
		}
		r := treeRow{rel: pathJoin(rel, e.Name()), name: termsafe.Clean(e.Name()), depth: depth, dir: e.IsDir()}
		p.rows = append(p.rows, r)
		if r.dir && p.open[r.rel] {
			p.list(r.rel, depth+1)
		}
	}
}

func pathJoin(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// Update handles a key; it returns nil once the panel closed.
func (p *ctxPanel) Update(k tea.KeyPressMsg) *ctxPanel {
	switch k.String() {
	case ctxPanelKey, "esc", "q":
		return nil
	case "up", "k":
		p.sel = max(0, p.sel-1)
	case "down", "j":
		p.sel = min(len(p.rows)-1, p.sel+1)
	case "enter", "space", "right", "l":
		if r, ok := p.selected(); ok && r.dir {
			p.open[r.rel] = !p.open[r.rel] || k.String() == "right" || k.String() == "l"
			p.rebuild()
		}
	case "left", "h":
		p.closeSelected()
	}
	return p
}

// selected is the row under the cursor.
func (p *ctxPanel) selected() (treeRow, bool) {
	if p.sel < 0 || p.sel >= len(p.rows) {
		return treeRow{}, false
	}
	return p.rows[p.sel], true
}

// closeSelected closes the selected folder, or the folder the selected
// entry is in (the cursor moves to it).
func (p *ctxPanel) closeSelected() {
	r, ok := p.selected()
	if !ok {
		return
	}
	target := r.rel
	if !r.dir || !p.open[r.rel] {
		target = pathDir(r.rel)
	}
	if target == "" {
		return
	}
	delete(p.open, target)
	p.rebuild()
	for i, row := range p.rows {
		if row.rel == target {
			p.sel = i
		}
	}
}

func pathDir(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return ""
}

// ctxInfo is what the panel's head shows: the model, the session's
// usage as the status line knows it, and the workspace.
type ctxInfo struct {
	Provider, Model, Workspace string
	Tokens                     int
	CostUSD                    float64
	ContextPct                 float64
}

// View draws the panel at width×height: the head, then the tree's rows
// around the cursor, then the key line.
func (p *ctxPanel) View(s styles, info ctxInfo, width, height int) string {
	ctx := "-"
	if info.ContextPct > 0 {
		ctx = fmt.Sprintf("%.0f%% used", info.ContextPct)
	}
	tokens, cost := "-", "-"
	if info.Tokens > 0 {
		tokens, cost = compactNum(info.Tokens), format.FormatCost(info.CostUSD)
	}
	head := []string{
		s.paint(s.bold, "Context"),
		"model      " + termsafe.Clean(info.Provider+"/"+info.Model),
		"context    " + ctx,
		"tokens     " + tokens,
		"cost       " + cost,
		"workspace  " + termsafe.Clean(info.Workspace),
		"",
		s.paint(s.bold, "Files"),
	}
	room := max(1, height-len(head)-2)
	first := max(0, min(p.sel-room/2, len(p.rows)-room))
	var lines []string
	for i := first; i < len(p.rows) && i < first+room; i++ {
		lines = append(lines, p.rowLine(s, i))
	}
	if len(p.rows) == 0 {
		lines = append(lines, s.paint(s.faint, "(no files)"))
	}
	out := append(head, lines...)
	out = append(out, "", s.paint(s.faint, ctxPanelKeysHelp))
	for i, l := range out {
		out[i] = truncateLine(l, width)
	}
	return strings.Join(out, "\n")
}

// rowLine draws row i of the tree: ▸/▾ for a closed/open folder, the
// cursor's row marked.
func (p *ctxPanel) rowLine(s styles, i int) string {
	r := p.rows[i]
	indent := strings.Repeat("  ", r.depth)
	text := indent + "  " + r.name
	switch {
	case r.more > 0:
		text = indent + fmt.Sprintf("  … %d more", r.more)
	case r.dir && p.open[r.rel]:
		text = indent + "▾ " + r.name + "/"
	case r.dir:
		text = indent + "▸ " + r.name + "/"
	}
	if i == p.sel {
		return s.paint(s.cyan, "› "+text)
	}
	return "  " + text
}

// viewOpen reports whether a view that takes the screen is open (the
// Ralph split view, the context panel): the chat's output waits.
func (m *model) viewOpen() bool { return m.tasks.tv != nil || m.cp != nil }

// ctxInfo is the context panel's head: the model and the usage the
// status line shows.
func (m *model) ctxInfo() ctxInfo {
	info := ctxInfo{Tokens: m.status.tokens, CostUSD: m.status.cost, ContextPct: m.status.ctxPct}
	if m.ctrl != nil {
		rt := m.ctrl.Runtime()
		info.Provider, info.Model, info.Workspace = rt.Provider.Name, rt.Model, rt.Workspace
	}
	return info
}
