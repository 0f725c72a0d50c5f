package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ui/commands"
)

// pickItem is one choice of a picker; Group is the heading it sits under.
type pickItem struct {
	Label, Value, Group string
}

// picker is a searchable list (models, providers): typing filters, Up and
// Down move, Enter chooses, Esc closes.
type picker struct {
	Title   string
	Kind    string // "model" or "provider"
	Items   []pickItem
	Filter  string
	Sel     int
	Loading bool
	Note    string
}

func (p *picker) visible() []pickItem {
	if p.Filter == "" {
		return p.Items
	}
	q := strings.ToLower(p.Filter)
	var out []pickItem
	for _, it := range p.Items {
		if strings.Contains(strings.ToLower(it.Label+" "+it.Group), q) {
			out = append(out, it)
		}
	}
	return out
}

// render draws the picker with at most rows items around the selection.
func (p *picker) render(s styles, width, rows int) string {
	var b strings.Builder
	b.WriteString(s.paint(s.bold, p.Title))
	fmt.Fprintf(&b, "\n%s %s█", s.paint(s.faint, "search:"), p.Filter)
	if p.Loading {
		b.WriteString("\n  loading…")
		return b.String()
	}
	vis := p.visible()
	if len(vis) == 0 {
		b.WriteString("\n  " + s.paint(s.faint, "nothing matches"))
	}
	start := 0
	if p.Sel >= rows {
		start = p.Sel - rows + 1
	}
	group := ""
	if start > 0 {
		group = vis[start-1].Group
	}
	for i := start; i < len(vis) && i < start+rows; i++ {
		it := vis[i]
		if it.Group != "" && it.Group != group {
			group = it.Group
			b.WriteString("\n" + s.paint(s.faint, "── "+group))
		}
		line := "  " + it.Label
		if i == p.Sel {
			line = s.paint(s.cyan, "› "+it.Label)
		}
		b.WriteString("\n" + truncateLine(line, width))
	}
	fmt.Fprintf(&b, "\n%s", s.paint(s.faint, fmt.Sprintf("%d/%d · type to search · ↑↓ move · Enter choose · Esc close", min(p.Sel+1, len(vis)), len(vis))))
	if p.Note != "" {
		b.WriteString("\n" + s.paint(s.faint, p.Note))
	}
	return b.String()
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	vis := p.visible()
	switch k.String() {
	case "esc":
		m.picker = nil
		if m.onboot {
			return m.quit()
		}
	case "up":
		if p.Sel > 0 {
			p.Sel--
		}
	case "down":
		if p.Sel < len(vis)-1 {
			p.Sel++
		}
	case "pgup":
		p.Sel = max(0, p.Sel-10)
	case "pgdown":
		p.Sel = max(0, min(len(vis)-1, p.Sel+10))
	case "backspace":
		if r := []rune(p.Filter); len(r) > 0 {
			p.Filter, p.Sel = string(r[:len(r)-1]), 0
		}
	case "enter", "tab":
		if len(vis) == 0 || p.Loading {
			return nil
		}
		choice := vis[p.Sel]
		m.picker = nil
		if p.Kind == "provider" {
			return m.chooseProvider(choice.Value)
		}
		return m.chooseModel(choice.Value)
	default:
		if k.Text != "" {
			p.Filter += k.Text
			p.Sel = 0
		}
	}
	return nil
}

func (m *model) chooseModel(id string) tea.Cmd {
	ctrl := m.ctrl
	return m.runJob(func(ctx context.Context) jobDoneMsg {
		err := ctrl.SwitchModel(ctx, ctrl.Runtime().Provider.Name+"/"+id)
		out := ""
		if err == nil {
			out = fmt.Sprintf("model: %s/%s", ctrl.Runtime().Provider.Name, ctrl.Runtime().Model)
		}
		return jobDoneMsg{out: out, err: err}
	})
}

// openModelPicker shows the current provider's live model list.
func (m *model) openModelPicker() tea.Cmd {
	rt := m.ctrl.Runtime()
	m.picker = &picker{Title: "Model of " + rt.Provider.Name + " (current: " + rt.Model + ")", Kind: "model", Loading: true}
	ctrl, ctx := m.ctrl, m.ctx
	return func() tea.Msg {
		ml, err := ctrl.Models(ctx, "", false)
		if err != nil {
			return modelsMsg{err: err}
		}
		var items []pickItem
		for _, md := range ml.Models {
			label := commands.ModelLine(md)
			if md.ID == rt.Model {
				label += "  (current)"
			}
			items = append(items, pickItem{Label: label, Value: md.ID})
		}
		return modelsMsg{items: items, note: ml.Note}
	}
}

func (m *model) modelsLoaded(msg modelsMsg) {
	if m.picker == nil || m.picker.Kind != "model" {
		return
	}
	if msg.err != nil {
		m.picker = nil
		m.commit(m.st.paint(m.st.red, "error: "+msg.err.Error()))
		return
	}
	m.picker.Loading, m.picker.Items, m.picker.Note = false, msg.items, msg.note
	cur := m.ctrl.Runtime().Model
	for i, it := range msg.items {
		if it.Value == cur {
			m.picker.Sel = i
		}
	}
}

// openProviderPicker lists the providers grouped "no signup needed", "free
// tier", "paid or custom" (key-free ones first).
func (m *model) openProviderPicker(title string) {
	rt := m.runtime()
	if rt == nil {
		return
	}
	p := &picker{Title: title, Kind: "provider"}
	for _, g := range rt.Catalog.Groups() {
		for _, pr := range g.Providers {
			label := pr.Name
			if pr.DisplayName != "" && pr.DisplayName != pr.Name {
				label += " — " + pr.DisplayName
			}
			if pr.RequiresKey && pr.APIKey(rt.Env) == "" {
				label += "  (needs a key)"
			} else if pr.RequiresKey {
				label += "  (key set)"
			}
			if pr.Notes != "" {
				label += "  · " + pr.Notes
			}
			p.Items = append(p.Items, pickItem{Label: label, Value: pr.Name, Group: g.Group})
		}
	}
	if m.ctrl != nil {
		cur := m.ctrl.Runtime().Provider.Name
		for i, it := range p.Items {
			if it.Value == cur {
				p.Sel = i
			}
		}
	}
	m.picker = p
}
