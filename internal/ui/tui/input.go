package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// inputModel is the prompt editor under the live output: the text area,
// the input history (Up and Down at the first and last line), the
// completion menu (slash commands, @files) and long pastes folded into
// placeholders. Enter asks the top-level model to send the input
// (submitMsg); everything else it handles itself.
type inputModel struct {
	outbox
	ta    textarea.Model
	st    styles
	width int
	table commands.Table
	// workspace is the session's workspace, "" before there is a session
	// (no @file completion then).
	workspace string

	hist     *commands.History
	histIdx  int    // the history entry shown, -1 for the user's own text
	histSave string // the user's text while browsing the history
	menu     []menuItem
	menuSel  int
	menuMove bool     // the user moved the menu's selection (Up, Down)
	files    []string // the workspace's files, listed on the first @
	pastes   []string // folded pastes, numbered from 1
	chips    []string // the files the input's @mentions attach (attachChips)
}

// menuItem is one completion: value replaces the word being completed.
type menuItem struct {
	value, label string
	run          bool // Enter runs it at once (a command without arguments)
}

// newInput returns an empty, focused input width cells wide.
func newInput(st styles, table commands.Table, color bool, width int) inputModel {
	ta := textarea.New()
	ta.Prompt = "› "
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 10
	ta.MaxContentHeight = 5000
	ta.CharLimit = 0
	ta.Placeholder = "Ask anything · / commands · @ attach a file · ! run a shell command"
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))
	ta.SetVirtualCursor(false)
	s := ta.Styles()
	s.Cursor.Blink = false
	s.Focused.CursorLine = lipgloss.NewStyle()
	s.Focused.Base = lipgloss.NewStyle()
	s.Blurred.Base = lipgloss.NewStyle()
	if !color {
		s.Focused, s.Blurred = textarea.StyleState{}, textarea.StyleState{}
	}
	ta.SetStyles(s)
	ta.SetWidth(width - 1)
	_ = ta.Focus()
	return inputModel{ta: ta, st: st, width: width, table: table, hist: &commands.History{}, histIdx: -1}
}

// setSession loads the workspace's input history and enables @file
// completion in it.
func (in *inputModel) setSession(rt *app.Runtime) {
	in.workspace = rt.Workspace
	in.hist = commands.LoadHistory(commands.HistoryPath(rt.Config.Paths.StateDir, rt.Workspace))
}

// Update handles a key, a paste, a new size or the text area's own
// messages.
func (in inputModel) Update(msg tea.Msg) (inputModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		in.width = msg.Width
		in.ta.SetWidth(in.width - 1)
		return in, nil
	case tea.PasteMsg:
		in.paste(msg.Content)
		return in, nil
	case tea.KeyPressMsg:
		return in.key(msg)
	}
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return in, cmd
}

// key handles a key: the completion menu's keys while it is open, Enter,
// the history, then the text area (after which the menu is recomputed).
func (in inputModel) key(k tea.KeyPressMsg) (inputModel, tea.Cmd) {
	if len(in.menu) > 0 && in.menuKey(k) {
		return in, nil
	}
	switch k.String() {
	case "enter":
		in.request(submitMsg{})
		return in, nil
	case "up":
		if in.ta.Line() == 0 && in.historyMove(-1) {
			return in, nil
		}
	case "down":
		if in.ta.Line() == in.ta.LineCount()-1 && in.historyMove(1) {
			return in, nil
		}
	}
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(k)
	in.updateMenu()
	in.updateChips()
	return in, cmd
}

// menuKey handles the open menu's keys (Up, Down, Tab, Enter, Esc); it
// reports whether k was one of them.
func (in *inputModel) menuKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "up":
		in.menuSel = (in.menuSel + len(in.menu) - 1) % len(in.menu)
		in.menuMove = true
	case "down":
		in.menuSel = (in.menuSel + 1) % len(in.menu)
		in.menuMove = true
	case "tab":
		in.acceptMenu()
	case "enter":
		it := in.menu[in.menuSel]
		typed := strings.TrimSpace(in.ta.Value())
		_, exact := in.table.Find(typed)
		if (typed == strings.TrimSpace(it.value) && strings.HasPrefix(it.value, "/")) || (exact && !in.menuMove) {
			// What was typed is a command (or alias): it runs as typed
			// unless the user chose another completion.
			in.request(submitMsg{})
			return true
		}
		in.acceptMenu()
		if it.run {
			in.request(submitMsg{})
		}
	case "esc":
		in.menu = nil
	default:
		return false
	}
	return true
}

// View draws a rule, the text area and the completion menu, each line
// ending in a newline. The text area's first line is the View's second
// (see inputRow).
func (in inputModel) View() string {
	var b strings.Builder
	if line := in.chipLine(); line != "" {
		b.WriteString(line + "\n")
	}
	b.WriteString(in.st.paint(in.st.faint, strings.Repeat("─", max(in.width, 1))) + "\n")
	b.WriteString(in.ta.View())
	b.WriteByte('\n')
	first := max(0, min(in.menuSel-menuRows/2, len(in.menu)-menuRows))
	for i := first; i < len(in.menu) && i < first+menuRows; i++ {
		line := "  " + in.menu[i].label
		if i == in.menuSel {
			line = in.st.paint(in.st.cyan, "› ") + in.menu[i].label
		}
		b.WriteString(truncateLine(line, in.width) + "\n")
	}
	return b.String()
}

// menuRows is how many completions the menu shows at a time (a window
// around the selection).
const menuRows = 8

// inputRow is the row of the text area's first line in the input's View:
// under the rule, and the chip line when files are attached.
func (in inputModel) inputRow() int {
	if len(in.chips) > 0 {
		return 2
	}
	return 1
}

// Cursor is the text area's cursor (nil when hidden), relative to the
// text area's first line.
func (in inputModel) Cursor() *tea.Cursor { return in.ta.Cursor() }

// Value is the text typed so far (pastes still folded).
func (in inputModel) Value() string { return in.ta.Value() }

// Reset empties the text area and drops the folded pastes.
func (in *inputModel) Reset() {
	in.ta.Reset()
	in.pastes, in.chips = nil, nil
}

// sent clears the input after it was sent: the text, the pastes, the
// menu and the position in the history.
func (in *inputModel) sent() {
	in.Reset()
	in.menu, in.histIdx = nil, -1
}

// setValue replaces the text and puts the cursor at its end.
func (in *inputModel) setValue(s string) {
	in.ta.SetValue(s)
	in.ta.CursorEnd()
	in.updateChips()
}

// menuOpen reports whether the completion menu is shown.
func (in inputModel) menuOpen() bool { return len(in.menu) > 0 }

// closeMenu hides the completion menu.
func (in *inputModel) closeMenu() { in.menu = nil }

// historyMove steps through the input history (dir -1 older, +1 newer);
// it reports whether it changed the input.
func (in *inputModel) historyMove(dir int) bool {
	n := len(in.hist.Entries)
	if n == 0 {
		return false
	}
	switch {
	case in.histIdx == -1 && dir < 0:
		in.histSave = in.ta.Value()
		in.histIdx = n - 1
	case in.histIdx == -1:
		return false
	default:
		in.histIdx += dir
	}
	if in.histIdx >= n {
		in.histIdx = -1
		in.ta.SetValue(in.histSave)
		return true
	}
	in.histIdx = max(in.histIdx, 0)
	in.ta.SetValue(in.hist.Entries[in.histIdx])
	return true
}

// updateMenu shows slash-command or @file completions for the input.
func (in *inputModel) updateMenu() {
	in.menu, in.menuSel, in.menuMove = nil, 0, false
	v := in.ta.Value()
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") {
		for _, s := range in.table.Complete(v) {
			in.menu = append(in.menu, menuItem{value: s.Name, label: strings.TrimSpace(s.Name+" "+s.Args) + "  " + in.st.paint(in.st.faint, s.Help), run: s.Args == ""})
		}
		return
	}
	if v == "" || strings.HasSuffix(v, " ") || strings.HasSuffix(v, "\n") || in.workspace == "" {
		return
	}
	fields := strings.Fields(v)
	last := fields[len(fields)-1]
	if !strings.HasPrefix(last, "@") {
		return
	}
	if in.files == nil {
		in.files = commands.ListFiles(in.workspace, 20000)
	}
	for _, f := range commands.MatchFiles(in.files, last[1:], 8) {
		in.menu = append(in.menu, menuItem{value: "@" + f, label: "@" + f})
	}
}

// acceptMenu puts the selected completion into the input.
func (in *inputModel) acceptMenu() {
	it := in.menu[in.menuSel]
	v := in.ta.Value()
	if strings.HasPrefix(it.value, "/") {
		in.ta.SetValue(it.value + " ")
		if it.run {
			in.ta.SetValue(it.value)
		}
	} else {
		i := strings.LastIndex(v, "@")
		in.ta.SetValue(v[:i] + it.value + " ")
	}
	in.ta.CursorEnd()
	in.menu = nil
	in.updateChips()
}

// paste folds long pasted text into a placeholder, expanded on send.
func (in *inputModel) paste(text string) {
	defer in.updateChips()
	if path, ok := commands.PastedPath(text); ok && !strings.ContainsAny(path, " \t") {
		in.ta.InsertString("@" + path + " ") // a file dropped on the terminal attaches
		return
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Count(text, "\n") + 1
	if lines <= 8 && len(text) <= 800 {
		in.ta.InsertString(text)
		return
	}
	in.pastes = append(in.pastes, text)
	in.ta.InsertString(pastePlaceholder(len(in.pastes), lines))
}

func pastePlaceholder(n, lines int) string {
	return fmt.Sprintf("[pasted text #%d: %d lines]", n, lines)
}

// expandPastes puts the folded pastes back into v.
func (in inputModel) expandPastes(v string) string {
	for i, p := range in.pastes {
		v = strings.Replace(v, pastePlaceholder(i+1, strings.Count(p, "\n")+1), p, 1)
	}
	return v
}
