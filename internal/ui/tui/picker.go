package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// setupCtl is the model's provider side: the provider, model and API key
// pickers, onboarding's first session, a local server's URL and the image
// settings prompt. It works on the model it belongs to (model.setup).
type setupCtl struct{ *model }

// pickItem is one choice of a picker; Group is the heading it sits under.
type pickItem struct {
	Label, Value, Group string
}

// picker is a searchable list (models, providers): typing filters, Up and
// Down move, Enter chooses (pickedMsg), Esc closes (pickerClosedMsg).
type picker struct {
	outbox
	Title   string
	Kind    string // "model", "provider", "checkpoint" or "rewind-scope"
	Items   []pickItem
	Filter  string
	Sel     int
	Loading bool
	Note    string
	// Data is handed back with the choice (pickedMsg.data).
	Data string
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

// View draws the picker with at most rows items around the selection.
func (p *picker) View(s styles, width, rows int) string {
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

// Update handles a key; it returns nil once the picker closed (with a
// choice or without).
func (p *picker) Update(msg tea.Msg) (*picker, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return p, nil
	}
	vis := p.visible()
	switch k.String() {
	case "esc":
		p.request(pickerClosedMsg{})
		return nil, nil
	case "enter", "tab":
		if len(vis) == 0 || p.Loading {
			return p, nil
		}
		p.request(pickedMsg{kind: p.Kind, value: vis[p.Sel].Value, data: p.Data})
		return nil, nil
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
	default:
		p.filter(k)
	}
	return p, nil
}

// filter edits the search text; a change selects the first match.
func (p *picker) filter(k tea.KeyPressMsg) {
	if f := editLine(p.Filter, k); f != p.Filter {
		p.Filter, p.Sel = f, 0
	}
}

// loaded fills a model picker with the list that arrived, selecting cur.
func (p *picker) loaded(items []pickItem, note, cur string) {
	p.Loading, p.Items, p.Note = false, items, note
	for i, it := range items {
		if it.Value == cur {
			p.Sel = i
		}
	}
}

// keyPrompt reads an API key for a provider, masked: Enter stores it
// (keyEnteredMsg), Esc closes the prompt (keyCancelledMsg). With image
// set it reads a Cloudflare image setting instead (masked when secret):
// Enter hands over the answer, even an empty one (imageKeyEnteredMsg),
// Esc cancels (imageKeyCancelledMsg). With server set it reads a server's
// base URL, shown as typed (serverURLMsg; Esc: keyCancelledMsg).
type keyPrompt struct {
	outbox
	provider string
	image    *imageKeyAsk
	server   bool
	buf      string
}

// imageKeyAsk is the Cloudflare image settings being asked for: todo[0]
// is the one on screen, the rest follow; arg is the /image argument run
// again once all are stored.
type imageKeyAsk struct {
	todo []commands.ImageSetting
	arg  string
}

// Update handles a key; it returns nil once the prompt closed.
func (kp *keyPrompt) Update(msg tea.Msg) (*keyPrompt, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return kp, nil
	}
	switch k.String() {
	case "esc":
		if kp.image != nil {
			kp.request(imageKeyCancelledMsg{key: kp.image.todo[0].Key})
			return nil, nil
		}
		kp.request(keyCancelledMsg{})
		return nil, nil
	case "enter":
		key := strings.TrimSpace(kp.buf)
		if kp.image != nil {
			kp.request(imageKeyEnteredMsg{ask: kp.image, value: key})
			return nil, nil
		}
		if key == "" {
			return kp, nil
		}
		if kp.server {
			kp.request(serverURLMsg{url: key})
			return nil, nil
		}
		kp.request(keyEnteredMsg{provider: kp.provider, key: key})
		return nil, nil
	}
	kp.buf = editLine(kp.buf, k)
	return kp, nil
}

// View draws the prompt, a secret masked, wrapped to width columns (0:
// not wrapped).
func (kp *keyPrompt) View(width int) string {
	masked := strings.Repeat("•", len([]rune(kp.buf)))
	if kp.server {
		return fmt.Sprintf("Server base URL (e.g. http://127.0.0.1:8080/v1; Esc cancels): %s█", kp.buf)
	}
	if kp.image == nil {
		return fmt.Sprintf("API key for %s (stored in your global config file; Esc cancels): %s█", kp.provider, masked)
	}
	s, shown := kp.image.todo[0], kp.buf
	if s.Secret {
		shown = masked
	}
	line := fmt.Sprintf("%s (%s; stored in your global config file; Esc cancels): %s█", s.Label, s.Hint, shown)
	if width <= 0 {
		return line
	}
	return ansi.Wrap(line, width, "")
}

func (m setupCtl) chooseModel(id string) tea.Cmd {
	ctrl := m.ctrl
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		err := ctrl.SwitchModel(ctx, ctrl.Runtime().Provider.Name+"/"+id)
		out := ""
		if err == nil {
			out = fmt.Sprintf("model: %s/%s", ctrl.Runtime().Provider.Name, ctrl.Runtime().Model)
		}
		return jobDoneMsg{out: out, err: err}
	})
}

// modelPicker is a picker of the current provider's models and the
// command that loads the live list (modelsMsg).
func modelPicker(ctx context.Context, ctrl *commands.Controller) (*picker, tea.Cmd) {
	rt := ctrl.Runtime()
	p := &picker{Title: "Model of " + rt.Provider.Name + " (current: " + rt.Model + ")", Kind: "model", Loading: true}
	return p, func() tea.Msg {
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

func (m setupCtl) modelsLoaded(msg modelsMsg) {
	if m.picker == nil || m.picker.Kind != "model" {
		return
	}
	if msg.err != nil {
		m.picker = nil
		m.commit(m.st.paint(m.st.red, "error: "+msg.err.Error()))
		return
	}
	m.picker.loaded(msg.items, msg.note, m.ctrl.Runtime().Model)
}

// openProviderPicker lists the providers grouped "no signup needed", "free
// tier", "paid or custom" (key-free ones first).
// pickMode is the kind of the permission mode picker.
const pickMode = "mode"

// modePicker offers the permission modes, the current one chosen.
func modePicker(cur string) *picker {
	p := &picker{Title: "Permission mode (current: " + cur + "):", Kind: pickMode}
	for i, c := range commands.ModeChoices() {
		p.Items = append(p.Items, pickItem{Label: fmt.Sprintf("%-9s  %s", c.Name, c.Help), Value: c.Name})
		if c.Name == cur {
			p.Sel = i
		}
	}
	return p
}

func (m setupCtl) openProviderPicker(title string) {
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
			if pr.RequiresKey && pr.APIKey(rt.Getenv) == "" {
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

// storeKey saves key as the provider's API key in the global config
// file, then switches to the provider (the switch reloads the
// configuration, so the new key is used). A key that could not be saved
// reopens the prompt.
func (m setupCtl) storeKey(provider, key string) tea.Cmd {
	rt := m.runtime()
	warning, err := commands.KeyWarning(commands.StoreKey(rt, provider, key))
	if err != nil {
		m.commit(m.st.paint(m.st.red, "error: "+err.Error()))
		m.keys = &keyPrompt{provider: provider}
		return nil
	}
	m.commit(m.st.paint(m.st.faint, fmt.Sprintf("key for %s stored in %s", provider, rt.Config.Paths.ConfigFile)))
	if warning != "" {
		m.commit(m.st.paint(m.st.yellow, "warning: "+warning))
	}
	m.note("")
	return m.setup.switchProvider(provider)
}

// chooseProvider switches to provider (or, during onboarding, starts the
// session with it and saves it as the default); a provider without its
// key asks for it first.
func (m setupCtl) chooseProvider(name string) tea.Cmd {
	if m.runtime() != nil && commands.NeedsServer(m.runtime(), name) {
		m.setup.askServerURL("")
		return nil
	}
	if m.runtime() != nil && commands.NeedsKey(m.runtime(), name) {
		p, _ := m.runtime().Catalog.Provider(name)
		m.keys = &keyPrompt{provider: name}
		note := name + " needs an API key"
		if p.SignupURL != "" {
			note += " (get one at " + p.SignupURL + ")"
		}
		m.note(note)
		return nil
	}
	return m.setup.switchProvider(name)
}

// switchProvider switches the session to provider with its default model,
// or, during onboarding, starts the session with it.
func (m setupCtl) switchProvider(name string) tea.Cmd {
	if m.ctrl == nil {
		return m.setup.startSession(name)
	}
	ctrl := m.ctrl
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		err := ctrl.SwitchProvider(ctx, name, "")
		out := ""
		var then func(m *model) tea.Cmd
		if err == nil {
			rt := ctrl.Runtime()
			out = fmt.Sprintf("provider: %s · model %s", rt.Provider.Name, rt.Model)
			if rt.Provider.Custom && len(rt.Provider.Models) == 0 {
				// A server of the user's without a models list: it took the
				// server's first model; offer the others.
				out += " (the server's first; pick another below or Esc)"
				then = func(m *model) tea.Cmd {
					p, cmd := modelPicker(m.ctx, m.ctrl)
					m.picker = p
					return cmd
				}
			}
		}
		return jobDoneMsg{out: out, err: err, then: then}
	})
}

// startSession ends the onboarding: it saves provider as the default and
// builds the session controller with it.
func (m setupCtl) startSession(provider string) tea.Cmd {
	build, ap, base := m.o.Build, m.ap, m.base
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		if err := config.Set(base.Config.Paths.ConfigFile, "provider", provider); err != nil {
			return jobDoneMsg{err: err}
		}
		ctrl, err := build(ctx, ap, ap, provider)
		return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
			if err != nil {
				m.setup.openProviderPicker("Pick a model provider:")
				return nil
			}
			m.ctrl, m.onboot = ctrl, false
			m.table = m.table.WithCustom(m.ctx, ctrl)
			m.input.table = m.table
			rt := ctrl.Runtime()
			m.input.setSession(rt)
			m.commit(fmt.Sprintf("ready: %s/%s (saved as your default provider in %s) · /help for commands", rt.Provider.Name, rt.Model, rt.Config.Paths.ConfigFile))
			return nil
		}}
	})
}
