package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// Timing of the UI: the markdown debounce, the spinner frame, the window
// in which a second Ctrl+C quits.
const (
	renderDelay  = 50 * time.Millisecond
	spinInterval = 120 * time.Millisecond
	quitWindow   = 2 * time.Second
)

var spinFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// keysHelp is printed by /help after the commands.
const keysHelp = `keys: Enter send · Shift+Enter/Alt+Enter/Ctrl+J newline · Up/Down history · Tab complete
      Esc stop the model (keeps the partial answer) / deny an approval · Ctrl+C clear input, twice quit
      Shift+Tab cycle permission mode · Ctrl+L clear screen · Ctrl+O expand reasoning
      @path attach a file · !command run a shell command yourself (output goes to the conversation)
      /tasks opens the Ralph split view: ↑/↓ select · a add · e edit ($EDITOR) · r run the loop · s stop · Esc back to chat`

// Messages of the UI's own commands.
type (
	renderTickMsg struct{}
	spinTickMsg   struct{}
	printedMsg    struct{}
	// resumePrintsMsg ends holdPrints.
	resumePrintsMsg struct{}
	jobDoneMsg      struct {
		out     string
		outcome commands.Outcome
		err     error
		then    func(m *model) tea.Cmd
	}
	modelsMsg struct {
		items []pickItem
		note  string
		err   error
	}
	editedMsg struct {
		path string
		err  error
	}
)

// model is the TUI's state. Everything runs on Bubble Tea's goroutine
// except the engine run and jobs, which report back through messages.
type model struct {
	o     Options
	ctx   context.Context
	ctrl  *commands.Controller
	base  *app.Runtime
	q     *queue
	ap    agent.Approver
	st    styles
	md    mdRenderer
	table commands.Table

	width, height int
	mdStyle       string
	input         textarea.Model

	// streaming answer: raw markdown not yet committed and its rendering
	stream        string
	live          string
	renderPending bool
	reasoning     strings.Builder
	reasonStart   time.Time
	cards         []*card
	decisions     map[string]agent.Decision

	ask          *askReq
	typingReason bool
	reasonBuf    string

	running   bool
	busy      bool
	runStart  time.Time
	cancel    context.CancelFunc
	spin      int
	spinOn    bool
	stopped   bool
	lastCtrlC time.Time

	tokens     int
	cost       float64
	ctxPct     float64
	todosDone  int
	todosAll   int
	note       string
	verbose    bool
	expandRsn  bool
	pendingMod string

	hist     *commands.History
	histIdx  int
	histSave string
	menu     []menuItem
	menuSel  int
	files    []string
	pastes   []string

	picker *picker
	keyFor string
	keyBuf string
	onboot bool

	printQ     []string
	printing   bool
	transcript []string
	scroll     int
	quitting   bool
	sized      bool

	// Ralph: the split view (nil when closed), the plan awaiting review,
	// per-task transcripts and the loop started from here.
	tv      *tasksView
	planRes *ralph.PlanResult
	rl      ralphLoop
	// holdPrints keeps output back for a moment after the split view
	// closed, until the renderer has left the alternate screen (lines
	// printed before that would land on it and be lost).
	holdPrints bool
}

type menuItem struct {
	value, label string
	run          bool // Enter runs it at once (a command without arguments)
}

func newModel(ctx context.Context, o Options, ctrl *commands.Controller, base *app.Runtime, q *queue) *model {
	m := &model{o: o, ctx: ctx, ctrl: ctrl, base: base, q: q, ap: approver{q: q}, st: newStyles(o.Color),
		table: o.Table, width: 80, height: 24, mdStyle: "dark", decisions: map[string]agent.Decision{}}
	if !o.Color {
		m.mdStyle = "notty"
	}
	if m.table == nil {
		m.table = commands.Default()
	}
	in := textarea.New()
	in.Prompt = "› "
	in.ShowLineNumbers = false
	in.DynamicHeight = true
	in.MinHeight = 1
	in.MaxHeight = 10
	in.MaxContentHeight = 5000
	in.CharLimit = 0
	in.Placeholder = "Ask anything · / commands · @ attach a file · ! run a shell command"
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))
	in.SetVirtualCursor(false)
	s := in.Styles()
	s.Cursor.Blink = false
	s.Focused.CursorLine = lipgloss.NewStyle()
	s.Focused.Base = lipgloss.NewStyle()
	s.Blurred.Base = lipgloss.NewStyle()
	if !o.Color {
		s.Focused, s.Blurred = textarea.StyleState{}, textarea.StyleState{}
	}
	in.SetStyles(s)
	in.SetWidth(m.width - 1)
	_ = in.Focus()
	m.input = in
	m.histIdx = -1
	if ctrl != nil {
		m.hist = commands.LoadHistory(commands.HistoryPath(ctrl.Runtime().Config.Paths.StateDir, ctrl.Runtime().Workspace))
	} else {
		m.hist = &commands.History{}
	}
	return m
}

// Init starts listening to the engine and asks the terminal's background
// colour (for the markdown style).
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.q.wait()}
	if m.o.Color {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if m.ctrl == nil {
		m.onboot = true
		m.openProviderPicker("Welcome to aidex. Pick a model provider (no signup needed ones first):")
	} else {
		rt := m.ctrl.Runtime()
		m.commit(m.st.paint(m.st.faint, fmt.Sprintf("aidex %s · %s/%s · %s mode · /help for commands and keys",
			m.o.Version, rt.Provider.Name, rt.Model, m.ctrl.Mode())))
		if rt.Notice != "" {
			m.commit(m.st.paint(m.st.yellow, rt.Notice))
		}
		if n := len(m.ctrl.Session().Messages); n > 0 {
			m.commit(m.st.paint(m.st.faint, fmt.Sprintf("resumed session %s (%d messages)", m.ctrl.Session().ID, n)))
		}
		cmds = append(cmds, m.flushPrints())
	}
	return tea.Batch(cmds...)
}

// Update handles one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.sized = true
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 5)
		m.input.SetWidth(m.width - 1)
		m.live = m.md.render(m.stream, m.width, m.mdStyle)
	case tea.BackgroundColorMsg:
		if m.o.Color && !msg.IsDark() {
			m.mdStyle = "light"
		}
	case itemsMsg:
		for _, it := range msg {
			cmds = append(cmds, m.handleItem(it))
		}
		cmds = append(cmds, m.q.wait())
	case renderTickMsg:
		m.renderPending = false
		m.renderStream(false)
	case spinTickMsg:
		m.spin++
		if m.running || m.busy || m.rl.running {
			cmds = append(cmds, spinTick())
		} else {
			m.spinOn = false
		}
	case printedMsg:
		m.printing = false
	case resumePrintsMsg:
		m.holdPrints = false
	case jobDoneMsg:
		cmds = append(cmds, m.jobDone(msg))
	case modelsMsg:
		m.modelsLoaded(msg)
	case editedMsg:
		m.edited(msg)
	case taskEditedMsg:
		cmds = append(cmds, m.taskEdited(msg))
	case tea.PasteMsg:
		m.paste(msg.Content)
	case tea.KeyPressMsg:
		cmds = append(cmds, m.key(msg))
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		cmds = append(cmds, cmd)
	}
	if (m.running || m.busy || m.rl.running) && !m.spinOn {
		m.spinOn = true
		cmds = append(cmds, spinTick())
	}
	cmds = append(cmds, m.flushPrints())
	if m.quitting {
		return m, tea.Sequence(append(cmds, tea.Quit)...)
	}
	return m, tea.Batch(cmds...)
}

func spinTick() tea.Cmd {
	return tea.Tick(spinInterval, func(time.Time) tea.Msg { return spinTickMsg{} })
}

// commit queues finished output for the scrollback (inline) or the
// transcript (fullscreen).
func (m *model) commit(s string) {
	if m.o.Fullscreen {
		m.transcript = append(m.transcript, strings.Split(s, "\n")...)
		return
	}
	m.printQ = append(m.printQ, s)
}

// flushPrints prints queued output above the UI, one batch at a time so
// the order is kept. While the Ralph split view is open (on the alternate
// screen) the output waits for it to close.
func (m *model) flushPrints() tea.Cmd {
	if m.printing || len(m.printQ) == 0 || m.tv != nil || m.holdPrints {
		return nil
	}
	text := strings.Join(m.printQ, "\n")
	m.printQ = nil
	m.printing = true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// handleItem applies one engine item.
func (m *model) handleItem(it item) tea.Cmd {
	switch {
	case it.ask != nil:
		m.ask, m.typingReason, m.reasonBuf = it.ask, false, ""
		m.flushStream()
		return nil
	case it.end != nil:
		return m.runEnded(it.end)
	case it.ev != nil:
		return m.event(*it.ev)
	case it.ralph != nil:
		return m.ralphEvent(*it.ralph)
	case it.ralphEnd != nil:
		return m.ralphEnded(it.ralphEnd)
	}
	return nil
}

func (m *model) event(e agent.Event) tea.Cmd {
	switch e.Type {
	case agent.EventText:
		m.flushReasoning()
		m.stream += e.Text
		if !m.renderPending {
			m.renderPending = true
			return tea.Tick(renderDelay, func(time.Time) tea.Msg { return renderTickMsg{} })
		}
	case agent.EventReasoning:
		if m.reasoning.Len() == 0 {
			m.reasonStart = time.Now()
		}
		m.reasoning.WriteString(e.Text)
	case agent.EventToolCall:
		m.flushReasoning()
		m.flushStream()
		tc := e.ToolCall
		m.cards = append(m.cards, &card{ID: tc.ID, Name: tc.Name, Args: tc.Arguments, Started: time.Now()})
	case agent.EventApproval:
		if a := e.Approval; a != nil && a.Decision != "" {
			m.decisions[a.CallID] = a.Decision
		}
	case agent.EventToolResult:
		m.toolResult(e.ToolResult)
	case agent.EventUsage:
		u := e.Usage
		m.tokens = u.Session.InputTokens + u.Session.OutputTokens
		m.cost, m.ctxPct = u.CostUSD, u.ContextPercent
	case agent.EventTodos:
		m.todosDone, m.todosAll = 0, len(e.Todos)
		for _, t := range e.Todos {
			if t.Status == "completed" {
				m.todosDone++
			}
		}
		m.flushStream()
		m.commit(renderTodos(m.st, e.Todos))
	case agent.EventError:
		if e.Error != nil && e.Error.Kind != "cancelled" {
			m.flushStream()
			m.commit(m.st.paint(m.st.red, "error: "+e.Error.Message))
		}
	case agent.EventDone:
		m.flushReasoning()
		m.flushStream()
	}
	return nil
}

func (m *model) toolResult(r *agent.ToolResultInfo) {
	var c *card
	for i, x := range m.cards {
		if x.ID == r.ID {
			c = x
			m.cards = append(m.cards[:i], m.cards[i+1:]...)
			break
		}
	}
	if c == nil {
		c = &card{ID: r.ID, Name: r.Name}
	}
	c.Done, c.Result, c.Decision = true, r, m.decisions[r.ID]
	m.commit(renderCard(m.st, c, "", m.width, m.verbose))
}

// renderStream commits the complete blocks of the streaming answer and
// re-renders the rest (all of it when final).
func (m *model) renderStream(final bool) {
	cut := len(m.stream)
	if !final {
		cut = stableSplit(m.stream)
	}
	if cut > 0 {
		if out := m.md.render(m.stream[:cut], m.width, m.mdStyle); out != "" {
			m.commit(out)
		}
		m.stream = m.stream[cut:]
	}
	m.live = m.md.render(m.stream, m.width, m.mdStyle)
}

func (m *model) flushStream() {
	if strings.TrimSpace(m.stream) != "" {
		m.renderStream(true)
	}
	m.stream, m.live = "", ""
}

func (m *model) flushReasoning() {
	if m.reasoning.Len() == 0 {
		return
	}
	text := m.reasoning.String()
	m.reasoning.Reset()
	if m.verbose || m.expandRsn {
		m.commit(renderReasoning(m.st, text, true, m.width, 0))
		return
	}
	m.commit(m.st.paint(m.st.faint, fmt.Sprintf("✻ thought for %s (%d words)", formatDuration(time.Since(m.reasonStart)), len(strings.Fields(text)))))
}

func (m *model) runEnded(e *runEnd) tea.Cmd {
	m.flushReasoning()
	m.flushStream()
	for _, c := range m.cards {
		c.Done = true
		c.Result = &agent.ToolResultInfo{ID: c.ID, Name: c.Name, Error: "not finished", Category: "cancelled"}
		m.commit(renderCard(m.st, c, "", m.width, m.verbose))
	}
	m.cards = nil
	m.running, m.ask = false, nil
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	switch {
	case m.stopped || errors.Is(e.err, context.Canceled):
		m.commit(m.st.paint(m.st.yellow, "■ stopped; the partial answer is kept in the session"))
	case e.err != nil && e.done == nil:
		m.commit(m.st.paint(m.st.red, "error: "+e.err.Error()))
	case e.done != nil && e.done.StopReason == agent.StopMaxTurns:
		m.commit(m.st.paint(m.st.yellow, fmt.Sprintf("stopped after %d model responses (max_tool_turns); send \"continue\" to go on", e.done.Turns)))
	}
	m.stopped = false
	var cmds []tea.Cmd
	if e.then != nil {
		cmds = append(cmds, e.then(m))
	}
	if m.pendingMod != "" {
		mode := m.pendingMod
		m.pendingMod = ""
		cmds = append(cmds, m.setMode(mode))
	}
	return tea.Batch(cmds...)
}

// startRun sends parts to the model in a goroutine.
func (m *model) startRun(parts []llm.Part) { m.startRunWith(parts, nil, nil) }

// startRunWith sends parts with extra tools for this run; after (when not
// nil) is called when the run ends and its line is shown.
func (m *model) startRunWith(parts []llm.Part, extra []agent.EngineTool, after func(context.Context, *agent.DoneInfo, error) string) {
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel, m.running, m.runStart, m.stopped, m.note = cancel, true, time.Now(), false, ""
	ctrl, q := m.ctrl, m.q
	go func() {
		done, err := ctrl.RunWith(ctx, parts, extra, q.emit)
		end := &runEnd{done: done, err: err}
		if after != nil {
			line := after(ctx, done, err)
			end.then = func(m *model) tea.Cmd {
				m.commit(m.st.paint(m.st.cyan, line))
				m.refreshTasks()
				return nil
			}
		}
		q.push(item{end: end})
	}()
}

// runJob runs fn off the UI goroutine; the UI is busy until it ends.
func (m *model) runJob(fn func(ctx context.Context) jobDoneMsg) tea.Cmd {
	m.busy = true
	ctx := m.ctx
	return func() tea.Msg { return fn(ctx) }
}

func (m *model) jobDone(msg jobDoneMsg) tea.Cmd {
	m.busy = false
	if s := strings.TrimRight(msg.out, "\n"); s != "" {
		m.commit(s)
	}
	if msg.err != nil {
		m.commit(m.st.paint(m.st.red, "error: "+msg.err.Error()))
	}
	var cmds []tea.Cmd
	if msg.then != nil {
		cmds = append(cmds, msg.then(m))
	}
	if msg.err == nil {
		cmds = append(cmds, m.outcome(msg.outcome))
	}
	return tea.Batch(cmds...)
}

// outcome does what a command asked of the front end.
func (m *model) outcome(o commands.Outcome) tea.Cmd {
	switch {
	case o.Quit:
		return m.quit()
	case o.Prompt != "":
		m.startRunWith(commands.BuildPrompt(m.ctrl.Runtime().Workspace, o.Prompt).Parts, o.Tools, o.After)
		return nil
	}
	switch o.Action {
	case commands.ActPickModel:
		return m.openModelPicker()
	case commands.ActPickProvider:
		m.openProviderPicker("Pick a provider:")
	case commands.ActAskKey:
		m.keyFor, m.keyBuf = o.Arg, ""
	case commands.ActEdit:
		return m.openEditor()
	case commands.ActCopy:
		ans := m.ctrl.LastAnswer()
		if ans == "" {
			m.note = "nothing to copy yet"
			return nil
		}
		m.note = fmt.Sprintf("copied %d characters (OSC 52)", len(ans))
		return tea.SetClipboard(ans)
	case commands.ActVerbose:
		m.verbose = !m.verbose
		m.note = map[bool]string{true: "verbose on: full tool output and reasoning", false: "verbose off"}[m.verbose]
	case commands.ActClearScreen:
		m.transcript, m.tokens, m.cost, m.ctxPct, m.todosAll, m.todosDone = nil, 0, 0, 0, 0, 0
		return tea.ClearScreen
	case commands.ActPlan:
		m.startPlan(o.Arg)
	case commands.ActEditTask:
		return m.openTaskEditor(o.Arg)
	case commands.ActRalphRun:
		m.openTasks()
		return m.startRalph()
	}
	return nil
}

func (m *model) quit() tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	m.quitting = true
	return nil
}

// key handles a key press by what is on screen: an approval, the API key
// prompt, a picker, the completion menu, then the editor.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return m.ctrlC()
	}
	switch {
	case m.ask != nil:
		return m.approvalKey(k)
	case m.keyFor != "":
		return m.apiKeyKey(k)
	case m.picker != nil:
		return m.pickerKey(k)
	case m.planRes != nil:
		return m.planKey(k)
	case m.tv != nil:
		return m.tasksKey(k)
	}
	if len(m.menu) > 0 {
		switch s {
		case "up":
			m.menuSel = (m.menuSel + len(m.menu) - 1) % len(m.menu)
			return nil
		case "down":
			m.menuSel = (m.menuSel + 1) % len(m.menu)
			return nil
		case "tab":
			m.acceptMenu()
			return nil
		case "enter":
			it := m.menu[m.menuSel]
			if strings.TrimSpace(m.input.Value()) == strings.TrimSpace(it.value) && strings.HasPrefix(it.value, "/") {
				return m.send()
			}
			m.acceptMenu()
			if it.run {
				return m.send()
			}
			return nil
		case "esc":
			m.menu = nil
			return nil
		}
	}
	switch s {
	case "esc":
		if m.cancel != nil {
			m.stopped = m.running
			m.note = "stopping…"
			m.cancel()
		}
		return nil
	case "enter":
		return m.send()
	case "shift+tab":
		return m.cycleMode()
	case "ctrl+l":
		return tea.ClearScreen
	case "ctrl+o":
		m.expandRsn = !m.expandRsn
		return nil
	case "pgup":
		m.scroll += m.height / 2
		return nil
	case "pgdown":
		m.scroll = max(0, m.scroll-m.height/2)
		return nil
	case "up":
		if m.input.Line() == 0 && m.historyMove(-1) {
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 && m.historyMove(1) {
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.updateMenu()
	return cmd
}

func (m *model) ctrlC() tea.Cmd {
	if m.ask != nil {
		m.answer(agent.DecideDeny, "")
	}
	m.picker, m.keyFor, m.menu = nil, "", nil
	if m.tv != nil {
		m.tv.adding, m.tv.buf = false, ""
	}
	if m.input.Value() != "" {
		m.input.Reset()
		m.pastes = nil
		m.note = "input cleared · Ctrl+C again to quit"
		m.lastCtrlC = time.Now()
		return nil
	}
	if time.Since(m.lastCtrlC) < quitWindow {
		return m.quit()
	}
	m.lastCtrlC = time.Now()
	m.note = "Ctrl+C again to quit"
	return nil
}

func (m *model) approvalKey(k tea.KeyPressMsg) tea.Cmd {
	if m.typingReason {
		switch k.String() {
		case "enter":
			m.answer(agent.DecideDeny, strings.TrimSpace(m.reasonBuf))
		case "esc":
			m.answer(agent.DecideDeny, "")
		case "backspace":
			if r := []rune(m.reasonBuf); len(r) > 0 {
				m.reasonBuf = string(r[:len(r)-1])
			}
		default:
			m.reasonBuf += k.Text
		}
		return nil
	}
	switch strings.ToLower(k.String()) {
	case "y", "enter":
		m.answer(agent.DecideOnce, "")
	case "s":
		m.answer(agent.DecideSession, "")
	case "a":
		m.answer(agent.DecideAlways, "")
	case "n":
		m.typingReason = true
	case "esc":
		m.answer(agent.DecideDeny, "")
	}
	return nil
}

func (m *model) answer(d agent.Decision, reason string) {
	if m.ask == nil {
		return
	}
	m.ask.reply <- answer{d: d, reason: reason}
	m.ask, m.typingReason, m.reasonBuf = nil, false, ""
}

// send handles Enter: a slash command, a !command, or a prompt.
func (m *model) send() tea.Cmd {
	text := m.expandPastes(m.input.Value())
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if m.running || m.busy {
		m.note = "busy: wait for the answer, or press Esc to stop it"
		return nil
	}
	if m.ctrl == nil {
		return nil
	}
	m.input.Reset()
	m.menu, m.pastes, m.histIdx, m.note = nil, nil, -1, ""
	if err := m.hist.Add(text); err != nil {
		m.note = err.Error()
	}
	trimmed := strings.TrimSpace(text)
	m.commit(renderUser(m.st, trimmed, m.width))
	switch {
	case strings.HasPrefix(trimmed, "/"):
		return m.slash(trimmed)
	case strings.HasPrefix(trimmed, "!"):
		return m.shell(strings.TrimSpace(trimmed[1:]))
	}
	p := commands.BuildPrompt(m.ctrl.Runtime().Workspace, text)
	if len(p.Attached) > 0 {
		m.commit(m.st.paint(m.st.faint, "  attached: "+strings.Join(p.Attached, ", ")))
	}
	m.startRun(p.Parts)
	return nil
}

func (m *model) slash(line string) tea.Cmd {
	name, _, _ := strings.Cut(line, " ")
	if name == "/help" || name == "/?" {
		var b bytes.Buffer
		m.table.Help(&b)
		m.commit(strings.TrimRight(b.String(), "\n") + "\n" + keysHelp)
		return nil
	}
	if name == "/exit" || name == "/quit" || name == "/q" {
		return m.quit()
	}
	if line == "/tasks" {
		m.openTasks()
		return nil
	}
	ctrl, table := m.ctrl, m.table
	return m.runJob(func(ctx context.Context) jobDoneMsg {
		var b bytes.Buffer
		o, err := table.Exec(ctx, ctrl, line, &b)
		return jobDoneMsg{out: b.String(), outcome: o, err: err}
	})
}

func (m *model) shell(command string) tea.Cmd {
	if command == "" {
		m.note = "!COMMAND runs a shell command, e.g. !git status"
		return nil
	}
	ctrl := m.ctrl
	ws := ctrl.Runtime().Workspace
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	m.running, m.runStart = false, time.Now()
	return m.runJob(func(context.Context) jobDoneMsg {
		r := commands.RunShell(ctx, ws, command)
		cancel()
		return jobDoneMsg{then: func(m *model) tea.Cmd {
			m.cancel = nil
			exit := r.ExitCode
			res := &agent.ToolResultInfo{Name: "shell", OK: r.Err == nil && exit == 0, Output: r.Output,
				DurationMS: r.Duration.Milliseconds(), Meta: []byte(fmt.Sprintf(`{"exit_code":%d}`, exit))}
			if r.Err != nil {
				res.Error = r.Err.Error()
			} else if exit != 0 {
				res.Error = fmt.Sprintf("exit %d", exit)
			}
			args := []byte(fmt.Sprintf(`{"command":%q}`, command))
			m.commit(renderCard(m.st, &card{Name: "shell", Args: args, Done: true, Result: res}, "", m.width, true))
			m.ctrl.AddContext(r.ContextText())
			m.commit(m.st.paint(m.st.faint, "  you ran this yourself (no permission check); its output goes to the model with your next message"))
			return nil
		}}
	})
}

func (m *model) cycleMode() tea.Cmd {
	if m.ctrl == nil {
		return nil
	}
	cur := m.ctrl.Mode()
	if m.pendingMod != "" {
		cur = m.pendingMod
	}
	next := commands.NextMode(cur)
	if m.running || m.busy {
		m.pendingMod = next
		m.note = "permission mode → " + next + " after this run"
		return nil
	}
	return m.setMode(next)
}

func (m *model) setMode(mode string) tea.Cmd {
	ctrl := m.ctrl
	return m.runJob(func(ctx context.Context) jobDoneMsg {
		err := ctrl.SetMode(ctx, mode)
		return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
			if err == nil {
				m.note = "permission mode: " + mode
				if mode == "yolo" {
					m.commit(m.st.paint(m.st.red, "⚠ yolo: every tool call runs without asking (deny rules and safe_mode still apply). Shift+Tab leaves it."))
				}
			}
			return nil
		}}
	})
}

// historyMove steps through the input history (dir -1 older, +1 newer);
// it reports whether it changed the input.
func (m *model) historyMove(dir int) bool {
	n := len(m.hist.Entries)
	if n == 0 {
		return false
	}
	switch {
	case m.histIdx == -1 && dir < 0:
		m.histSave = m.input.Value()
		m.histIdx = n - 1
	case m.histIdx == -1:
		return false
	default:
		m.histIdx += dir
	}
	if m.histIdx >= n {
		m.histIdx = -1
		m.input.SetValue(m.histSave)
		return true
	}
	m.histIdx = max(m.histIdx, 0)
	m.input.SetValue(m.hist.Entries[m.histIdx])
	return true
}

// updateMenu shows slash-command or @file completions for the input.
func (m *model) updateMenu() {
	m.menu, m.menuSel = nil, 0
	v := m.input.Value()
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") {
		for _, s := range m.table.Complete(v) {
			m.menu = append(m.menu, menuItem{value: s.Name, label: strings.TrimSpace(s.Name+" "+s.Args) + "  " + m.st.paint(m.st.faint, s.Help), run: s.Args == ""})
		}
		return
	}
	if v == "" || strings.HasSuffix(v, " ") || strings.HasSuffix(v, "\n") || m.ctrl == nil {
		return
	}
	fields := strings.Fields(v)
	last := fields[len(fields)-1]
	if !strings.HasPrefix(last, "@") {
		return
	}
	if m.files == nil {
		m.files = commands.ListFiles(m.ctrl.Runtime().Workspace, 20000)
	}
	for _, f := range commands.MatchFiles(m.files, last[1:], 8) {
		m.menu = append(m.menu, menuItem{value: "@" + f, label: "@" + f})
	}
}

func (m *model) acceptMenu() {
	it := m.menu[m.menuSel]
	v := m.input.Value()
	if strings.HasPrefix(it.value, "/") {
		m.input.SetValue(it.value + " ")
		if it.run {
			m.input.SetValue(it.value)
		}
	} else {
		i := strings.LastIndex(v, "@")
		m.input.SetValue(v[:i] + it.value + " ")
	}
	m.input.CursorEnd()
	m.menu = nil
}

// paste folds long pasted text into a placeholder, expanded on send.
func (m *model) paste(text string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Count(text, "\n") + 1
	if lines <= 8 && len(text) <= 800 {
		m.input.InsertString(text)
		return
	}
	m.pastes = append(m.pastes, text)
	m.input.InsertString(pastePlaceholder(len(m.pastes), lines))
}

func pastePlaceholder(n, lines int) string {
	return fmt.Sprintf("[pasted text #%d: %d lines]", n, lines)
}

func (m *model) expandPastes(v string) string {
	for i, p := range m.pastes {
		v = strings.Replace(v, pastePlaceholder(i+1, strings.Count(p, "\n")+1), p, 1)
	}
	return v
}

func (m *model) openEditor() tea.Cmd {
	editor := m.o.Getenv("VISUAL")
	if editor == "" {
		editor = m.o.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	f, err := os.CreateTemp("", "aidex-prompt-*.md")
	if err != nil {
		m.note = err.Error()
		return nil
	}
	_, _ = f.WriteString(m.input.Value())
	_ = f.Close()
	parts := strings.Fields(editor)
	c := exec.Command(parts[0], append(parts[1:], f.Name())...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return editedMsg{path: f.Name(), err: err} })
}

func (m *model) edited(msg editedMsg) {
	defer os.Remove(msg.path)
	if msg.err != nil {
		m.note = "editor: " + msg.err.Error()
		return
	}
	data, err := os.ReadFile(msg.path)
	if err != nil {
		m.note = err.Error()
		return
	}
	m.input.SetValue(strings.TrimRight(string(data), "\n"))
	m.input.CursorEnd()
	m.note = "prompt from the editor: Enter sends it"
}

// apiKeyKey handles typing an API key (masked) for m.keyFor.
func (m *model) apiKeyKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.keyFor, m.keyBuf = "", ""
		if m.onboot {
			m.openProviderPicker("Pick a model provider:")
		}
	case "backspace":
		if r := []rune(m.keyBuf); len(r) > 0 {
			m.keyBuf = string(r[:len(r)-1])
		}
	case "enter":
		return m.storeKey()
	default:
		m.keyBuf += k.Text
	}
	return nil
}

func (m *model) storeKey() tea.Cmd {
	provider, key := m.keyFor, strings.TrimSpace(m.keyBuf)
	if key == "" {
		return nil
	}
	m.keyFor, m.keyBuf = "", ""
	rt := m.runtime()
	if err := commands.StoreKey(rt, provider, key); err != nil {
		m.commit(m.st.paint(m.st.red, "error: "+err.Error()))
		return nil
	}
	m.commit(m.st.paint(m.st.faint, fmt.Sprintf("key for %s stored in %s", provider, rt.Config.Paths.ConfigFile)))
	return m.chooseProvider(provider)
}

// runtime is the current runtime, or the base one during onboarding.
func (m *model) runtime() *app.Runtime {
	if m.ctrl != nil {
		return m.ctrl.Runtime()
	}
	return m.base
}

// chooseProvider switches to provider (or, during onboarding, starts the
// session with it and saves it as the default).
func (m *model) chooseProvider(name string) tea.Cmd {
	if m.runtime() != nil && commands.NeedsKey(m.runtime(), name) {
		p, _ := m.runtime().Catalog.Provider(name)
		m.keyFor, m.keyBuf = name, ""
		m.note = fmt.Sprintf("%s needs an API key (get one at %s)", name, p.SignupURL)
		return nil
	}
	if m.ctrl == nil {
		build, ap, base := m.o.Build, m.ap, m.base
		return m.runJob(func(ctx context.Context) jobDoneMsg {
			if err := config.Set(base.Config.Paths.ConfigFile, "provider", name); err != nil {
				return jobDoneMsg{err: err}
			}
			ctrl, err := build(ctx, ap, name)
			return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
				if err != nil {
					return nil
				}
				m.ctrl, m.onboot = ctrl, false
				rt := ctrl.Runtime()
				m.hist = commands.LoadHistory(commands.HistoryPath(rt.Config.Paths.StateDir, rt.Workspace))
				m.commit(fmt.Sprintf("ready: %s/%s (saved as your default provider in %s) · /help for commands", rt.Provider.Name, rt.Model, rt.Config.Paths.ConfigFile))
				return nil
			}}
		})
	}
	ctrl := m.ctrl
	return m.runJob(func(ctx context.Context) jobDoneMsg {
		err := ctrl.SwitchProvider(ctx, name, "")
		out := ""
		if err == nil {
			out = fmt.Sprintf("provider: %s · model %s", ctrl.Runtime().Provider.Name, ctrl.Runtime().Model)
		}
		return jobDoneMsg{out: out, err: err}
	})
}
