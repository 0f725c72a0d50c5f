package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/commands"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/notify"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// Timing of the UI: the markdown debounce, the spinner frame, the window
// in which a second Ctrl+C quits.
const (
	renderDelay  = 50 * time.Millisecond
	spinInterval = 120 * time.Millisecond
	quitWindow   = 2 * time.Second
)

// Messages of the UI's own commands.
type (
	renderTickMsg struct{}
	spinTickMsg   struct{}
	printedMsg    struct{}
	// resumePrintsMsg ends the stream's hold on prints.
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

// Requests: what sub-models ask of the top-level model through their
// outbox, and what the top level routes to a sub-model (noteMsg).
type (
	// submitMsg sends the input (Enter).
	submitMsg struct{}
	// noteMsg sets the status line's note ("" clears it).
	noteMsg string
	// closeTasksMsg closes the Ralph split view.
	closeTasksMsg struct{}
	// addTaskMsg adds a task with this title.
	addTaskMsg struct{ title string }
	// editTaskMsg opens the task in $EDITOR.
	editTaskMsg struct{ id string }
	// runLoopMsg starts the Ralph loop; stopLoopMsg stops it after the
	// current task.
	runLoopMsg  struct{}
	stopLoopMsg struct{}
	// pickedMsg is a picker's choice: kind "provider", "model",
	// "checkpoint" or "rewind-scope".
	pickedMsg struct{ kind, value, data string }
	// pickerClosedMsg: the picker was closed without a choice.
	pickerClosedMsg struct{}
	// keyEnteredMsg stores key as the provider's API key.
	keyEnteredMsg struct{ provider, key string }
	// keyCancelledMsg: the API key prompt was closed.
	keyCancelledMsg struct{}
	// imageKeyEnteredMsg stores value as the image setting ask.todo[0]
	// ("" is refused, naming the key to set by hand).
	imageKeyEnteredMsg struct {
		ask   *imageKeyAsk
		value string
	}
	// imageKeyCancelledMsg: the image setting prompt for key was closed.
	imageKeyCancelledMsg struct{ key string }
)

// outbox holds the requests a sub-model makes during one Update. The
// top-level model takes them right after that Update returns and handles
// each like any other message, in the same step, so a key and what it
// asks for are never split by other messages.
type outbox struct{ reqs []tea.Msg }

// request queues msg for the top-level model.
func (o *outbox) request(msg tea.Msg) { o.reqs = append(o.reqs, msg) }

// take returns the queued requests and empties the outbox.
func (o *outbox) take() []tea.Msg {
	r := o.reqs
	o.reqs = nil
	return r
}

// model is the TUI's top-level state: the session (controller, runs and
// jobs), the sub-models it routes messages to, and the overlays. Everything
// runs on Bubble Tea's goroutine except the engine run and jobs, which
// report back through messages.
type model struct {
	o     Options
	ctx   context.Context
	ctrl  *commands.Controller
	base  *app.Runtime
	q     *queue
	ap    approver
	st    styles
	table commands.Table

	width, height int
	sized         bool // a window size arrived (the terminal works)
	quitting      bool
	onboot        bool // no session yet: onboarding picks a provider

	// The sub-models (see the package doc).
	input    inputModel
	stream   streamModel
	approval approvalModel
	status   statusModel
	// The overlays, nil while closed: a picker and the API key prompt
	// (the Ralph split view and the plan under review are tasks's).
	// cp is the context panel while open (F2, ctxpanel.go).
	cp     *ctxPanel
	picker *picker
	keys   *keyPrompt

	// The run or job in progress is turn's (turnCtl).
	lastCtrlC time.Time
	// quitHint counts the "Ctrl+C again to quit" hints shown; the hint's
	// expiry (quitHintMsg) clears only the latest.
	quitHint int
	// lastTyping is when the last typing key (not a card key) came, for
	// the approval card's guard (see approvalGuard).
	lastTyping time.Time
	spin       int  // the spinner's frame counter
	spinOn     bool // a spinTickMsg is on its way
	hold       frameHold
	// planned is the frame holdFrame drew at the end of the last Update,
	// which View (called right after it) shows instead of drawing it again;
	// frames counts the frames drawn (frame calls).
	planned *plannedFrame
	frames  int

	// The model's sides, each a type of its own over this model: the Ralph
	// tasks, the provider setup, the turn and the screen.
	tasks  tasksCtl
	setup  setupCtl
	turn   turnCtl
	screen screenCtl
}

func newModel(ctx context.Context, o Options, ctrl *commands.Controller, base *app.Runtime, q *queue) *model {
	m := &model{o: o, ctx: ctx, ctrl: ctrl, base: base, q: q, ap: approver{q: q}, st: newStyles(o.Color),
		table: o.Table, width: 80, height: 24}
	m.tasks, m.setup, m.turn, m.screen = tasksCtl{model: m}, setupCtl{m}, turnCtl{model: m}, screenCtl{m}
	if m.table == nil {
		m.table = commands.Default()
	}
	if ctrl != nil {
		m.table = m.table.WithCustom(ctx, ctrl)
	}
	m.input = newInput(m.st, m.table, o.Color, m.width)
	m.stream = newStream(m.st, o.Color, o.Fullscreen, m.width)
	m.approval = approvalModel{st: m.st, width: m.width}
	m.status = statusModel{st: m.st, width: m.width}
	if ctrl != nil {
		m.input.setSession(ctrl.Runtime())
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
		m.commit(m.st.paint(m.st.bold, fmt.Sprintf("Welcome to aidex %s. No model provider is set up yet.", m.o.Version)))
		m.setup.openProviderPicker("Pick a model provider (no signup needed ones first):")
	} else {
		rt := m.ctrl.Runtime()
		m.commit(m.st.paint(m.st.faint, fmt.Sprintf("aidex %s · %s/%s · %s mode · /help for commands and keys",
			m.o.Version, rt.Provider.Name, rt.Model, m.ctrl.Mode())))
		home := ""
		if m.o.Getenv != nil {
			home = m.o.Getenv("HOME")
		}
		m.commit(m.st.paint(m.st.faint, termsafe.Clean(bannerTip(rt.Workspace, home, time.Now().YearDay()))))
		if rt.Notice != "" {
			m.commit(m.st.paint(m.st.yellow, rt.Notice))
		}
	}
	cmds = append(cmds, m.stream.flushPrints(m.viewOpen() || !m.sized))
	return tea.Batch(cmds...)
}

// Update handles one message (route), then keeps the spinner going while
// something works and prints the output committed meanwhile.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmds := []tea.Cmd{m.route(msg), m.turn.sendQueued()}
	if m.working() && !m.spinOn {
		m.spinOn = true
		cmds = append(cmds, spinTick())
	}
	cmds = append(cmds, m.stream.flushPrints(m.viewOpen() || !m.sized), m.screen.holdFrame())
	if m.quitting {
		return m, tea.Sequence(append(cmds, tea.Quit)...)
	}
	return m, tea.Batch(cmds...)
}

// sendFirst sends Options.Prompt once, or leaves it in the input while
// there is no session yet (onboarding). It waits until the start-up lines
// are printed: a prompt sent in the frame that prints them lost some of
// them under the redrawn frame.
func (m *model) sendFirst() tea.Cmd {
	p := m.o.Prompt
	if p == "" {
		return nil
	}
	m.o.Prompt = ""
	m.input.setValue(p)
	if m.ctrl == nil {
		return nil
	}
	return m.turn.send()
}

// route hands a message to the part of the UI it is for.
func (m *model) route(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		first := !m.sized
		m.resize(msg)
		if first && (m.ctrl == nil || len(m.stream.printQ) == 0) {
			return m.sendFirst()
		}
	case printedMsg:
		var cmd tea.Cmd
		m.stream, cmd = m.stream.Update(msg)
		if len(m.stream.printQ) == 0 {
			return tea.Batch(cmd, m.sendFirst())
		}
		return cmd
	case renderTickMsg, resumePrintsMsg, tea.BackgroundColorMsg:
		var cmd tea.Cmd
		m.stream, cmd = m.stream.Update(msg)
		return cmd
	case itemsMsg:
		return m.items(msg)
	case settleMsg:
		m.hold.settled(msg)
	case quitHintMsg:
		m.quitHintEnded(msg)
	case spinTickMsg:
		m.spin++
		if m.working() {
			return spinTick()
		}
		m.spinOn = false
	case jobDoneMsg:
		return m.turn.jobDone(msg)
	case modelsMsg:
		m.setup.modelsLoaded(msg)
	case editedMsg:
		m.edited(msg)
	case taskEditedMsg:
		return m.tasks.taskEdited(msg)
	case tea.PasteMsg:
		m.paste(msg.Content)
	case tea.KeyPressMsg:
		return m.key(msg)
	default:
		return m.request(msg)
	}
	return nil
}

// request handles a sub-model's request; other messages (the text area's
// own) go to the input.
func (m *model) request(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case submitMsg:
		return m.turn.send()
	case noteMsg:
		m.status, _ = m.status.Update(msg)
	case closeTasksMsg:
		return m.tasks.closeTasks()
	case addTaskMsg:
		return m.tasks.addTask(msg.title)
	case editTaskMsg:
		return m.tasks.openTaskEditor(msg.id)
	case runLoopMsg:
		return m.tasks.startRalph()
	case stopLoopMsg:
		m.tasks.stopRalph()
	case pickedMsg:
		return m.picked(msg)
	case pickerClosedMsg:
		if m.onboot {
			return m.quit()
		}
	case keyEnteredMsg:
		return m.setup.storeKey(msg.provider, msg.key)
	case serverURLMsg:
		return m.setup.serverURL(msg.url)
	case keyCancelledMsg:
		if m.onboot {
			m.setup.openProviderPicker("Pick a model provider:")
		}
	case imageKeyEnteredMsg:
		return m.setup.storeImageKey(msg.ask, msg.value)
	case imageKeyCancelledMsg:
		m.note("cancelled: /image needs " + msg.key + " (aidex config set " + msg.key + " VALUE)")
	default:
		return m.updateInput(msg)
	}
	return nil
}

// picked does what a picker's choice asks.
func (m *model) picked(msg pickedMsg) tea.Cmd {
	switch msg.kind {
	case "provider":
		return m.setup.chooseProvider(msg.value)
	case pickCheckpoint:
		m.picker = scopePicker(msg.value)
		return nil
	case pickRewindScope:
		return m.turn.rewind(msg.value)
	case pickMode:
		if m.turn.running || m.turn.busy {
			m.turn.pendingMod = msg.value
			m.note("permission mode → " + msg.value + " after this run")
			return nil
		}
		return m.turn.setMode(msg.value)
	case pickServerModel:
		return m.setup.serverModelPicked(msg.data, msg.value)
	}
	return m.setup.chooseModel(msg.value)
}

// requests handles the requests a sub-model made, in order.
func (m *model) requests(reqs []tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range reqs {
		cmds = append(cmds, m.request(r))
	}
	return tea.Batch(cmds...)
}

// updateInput routes msg to the input and carries out what it asks.
func (m *model) updateInput(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return tea.Batch(cmd, m.requests(m.input.take()))
}

// resize passes the new size (at least 20×5) to the sub-models. The
// first size prints a resumed conversation (at the terminal's width).
func (m *model) resize(msg tea.WindowSizeMsg) {
	first := !m.sized
	m.sized = true
	m.width, m.height = max(msg.Width, 20), max(msg.Height, 5)
	size := tea.WindowSizeMsg{Width: m.width, Height: m.height}
	m.input, _ = m.input.Update(size)
	m.stream, _ = m.stream.Update(size)
	m.approval, _ = m.approval.Update(size)
	m.status, _ = m.status.Update(size)
	if first && m.ctrl != nil {
		m.showResumed()
	}
}

// showResumed prints the last exchanges of a resumed session: from its
// last messages, which are there before the rest of a long conversation
// has loaded (RecentMessages).
func (m *model) showResumed() {
	msgs, total := m.ctrl.Recent()
	if len(msgs) == 0 {
		return
	}
	for _, h := range m.stream.history(msgs, total) {
		m.stream.commitLaidOut(h) // rendered markdown and tool lines
	}
	rt := m.ctrl.Runtime()
	m.commit(m.st.paint(m.st.faint, fmt.Sprintf("resumed session %s (%d messages) on %s/%s", m.ctrl.ID(), total, rt.Provider.Name, rt.Model)))
}

// items applies a batch of engine items.
func (m *model) items(batch itemsMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, it := range batch {
		cmds = append(cmds, m.item(it))
	}
	return tea.Batch(append(cmds, m.q.wait())...)
}

// item applies one engine item: events go to the status line and the
// stream, a question to the approval prompt.
func (m *model) item(it item) tea.Cmd {
	switch {
	case it.ask != nil:
		m.approval = m.approval.open(it.ask, m.now())
		m.stream.flushText()
		return ring(m.notifier().Approval(it.ask.req.Tool))
	case it.form != nil:
		m.approval = m.approval.openForm(it.form, m.now())
		m.stream.flushText()
		return ring(m.notifier().Question())
	case it.choose != nil:
		return m.turn.chooseOpened(it.choose)
	case it.end != nil:
		return m.turn.runEnded(it.end)
	case it.ev != nil:
		m.status, _ = m.status.Update(*it.ev)
		var cmd tea.Cmd
		m.stream, cmd = m.stream.Update(*it.ev)
		return cmd
	case it.ralph != nil:
		m.tasks.ralphEvent(*it.ralph)
	case it.ralphEnd != nil:
		m.tasks.ralphEnded(it.ralphEnd)
	}
	return nil
}

// key routes a key press to what is on screen: an approval, the API key
// prompt, a picker, the plan review, the Ralph split view, else the chat.
// Ctrl+C works everywhere, and so does Ctrl+Q (ayder-cli's quit key): it
// denies a waiting approval, stops a run and quits at once.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "ctrl+c" {
		return m.ctrlC()
	}
	if k.String() == "ctrl+q" {
		m.approval = m.approval.answer(agent.AnswerDeny, "")
		return m.quit()
	}
	switch {
	case m.approval.active():
		return m.approvalKey(k)
	case m.turn.choosing != nil:
		return m.turn.chooseKey(k)
	case m.keys != nil:
		kp := m.keys
		m.keys, _ = kp.Update(k)
		return m.requests(kp.take())
	case m.picker != nil:
		p := m.picker
		m.picker, _ = p.Update(k)
		return m.requests(p.take())
	case m.tasks.planRes != nil:
		return m.tasks.planKey(k)
	case m.tasks.tv != nil:
		tv := m.tasks.tv
		m.tasks.tv, _ = tv.Update(k)
		return m.requests(tv.take())
	case m.cp != nil:
		m.cp = m.cp.Update(k)
		return nil
	}
	m.lastTyping = m.now()
	return m.chatKey(k)
}

// approvalKey gives a key to the approval card. A key the card does not
// take (typing, or a card key the type-ahead guard refuses) goes to the
// input box, where it stays for the next message; Enter there cannot
// send while the card waits.
func (m *model) approvalKey(k tea.KeyPressMsg) tea.Cmd {
	now := m.now()
	kp := keyPress{k: k, now: now, lastTyping: m.lastTyping, typed: m.input.Value() != ""}
	var took bool
	m.approval, took = m.approval.key(kp)
	if took {
		return nil
	}
	m.lastTyping = now
	switch k.String() {
	case "enter", "tab", "up", "down", "pgup", "pgdown", "esc":
		return nil
	}
	return m.updateInput(k)
}

// now is the UI's clock (Options.Now, else time.Now).
func (m *model) now() time.Time {
	if m.o.Now != nil {
		return m.o.Now()
	}
	return time.Now()
}

// chatKey handles the chat's own keys (Esc takes queued messages back
// into the input, else stops the run, unless it closes the completion
// menu); the rest go to the input.
func (m *model) chatKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		if len(m.turn.queued) > 0 && !m.input.menuOpen() {
			m.turn.unqueue()
			m.note(noteUnqueued)
			return nil
		}
		if !m.input.menuOpen() {
			m.stop()
			return nil
		}
	case "shift+tab":
		return m.turn.cycleMode()
	case "ctrl+l":
		return tea.ClearScreen
	case "ctrl+o":
		m.stream.toggleReasoning()
		return nil
	case ctxPanelKey:
		if m.ctrl != nil {
			m.cp = newCtxPanel(m.ctrl.Runtime().Workspace)
		}
		return nil
	case "pgup":
		m.stream.scrollBy(m.height / 2)
		return nil
	case "pgdown":
		m.stream.scrollBy(-m.height / 2)
		return nil
	}
	return m.updateInput(k)
}

// stop cancels the run or shell command in progress (Esc).
func (m *model) stop() {
	if m.turn.cancel != nil {
		m.turn.stopped = m.turn.running
		m.note(noteStopping)
		m.turn.cancel()
	}
}

// ctrlC closes what is open (a picker, the API key prompt, the
// completion menu), then clears the input if it holds text; else, while a
// run or a shell command goes on, it stops it (a waiting approval is
// denied); else a second Ctrl+C within quitWindow quits. The "again to
// quit" hint goes away when the window closes (quitHintMsg).
func (m *model) ctrlC() tea.Cmd {
	m.picker, m.keys, m.cp = nil, nil, nil
	m.input.closeMenu()
	if m.tasks.tv != nil {
		m.tasks.tv.cancelAdd()
	}
	now := m.now()
	if m.input.Value() != "" {
		m.input.Reset()
		return m.quitHintFor(now, "input cleared · Ctrl+C again to quit")
	}
	if m.working() && (m.turn.cancel != nil || m.approval.active()) {
		m.approval = m.approval.answer(agent.AnswerDeny, "")
		m.lastCtrlC = time.Time{}
		m.stop()
		return nil
	}
	m.approval = m.approval.answer(agent.AnswerDeny, "")
	if !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) < quitWindow {
		return m.quit()
	}
	return m.quitHintFor(now, "Ctrl+C again to quit")
}

// quitHintMsg ends the quit window of hint number n.
type quitHintMsg struct{ n int }

// quitHintFor opens the quit window at now with the hint note and
// returns the tick that closes it.
func (m *model) quitHintFor(now time.Time, note string) tea.Cmd {
	m.lastCtrlC = now
	m.quitHint++
	m.note(note)
	n := m.quitHint
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitHintMsg{n: n} })
}

// quitHintEnded clears the hint of msg when it is still the latest and
// its window has closed.
func (m *model) quitHintEnded(msg quitHintMsg) {
	if msg.n != m.quitHint || m.lastCtrlC.IsZero() {
		return
	}
	m.lastCtrlC = time.Time{}
	if strings.HasSuffix(m.status.note, "Ctrl+C again to quit") {
		m.note("")
	}
}

func (m *model) quit() tea.Cmd {
	if m.turn.cancel != nil {
		m.turn.cancel()
	}
	m.quitting = true
	return nil
}

// working reports whether a run, a job or the Ralph loop is going (the
// spinner turns).
func (m *model) working() bool { return m.turn.running || m.turn.busy || m.tasks.rl.running }

func spinTick() tea.Cmd {
	return tea.Tick(spinInterval, func(time.Time) tea.Msg { return spinTickMsg{} })
}

// spinFrame is the spinner's current frame.
func (m *model) spinFrame() string { return format.Spinner(m.spin) }

// commit adds finished output to the stream (see streamModel.commit).
func (m *model) commit(s string) { m.stream.commit(s) }

// note sets the status line's note.
func (m *model) note(s string) { m.status, _ = m.status.Update(noteMsg(s)) }

// paste inserts pasted text into the input (folding long pastes).
func (m *model) paste(text string) { _ = m.updateInput(tea.PasteMsg{Content: text}) }

// runtime is the current runtime, or the base one during onboarding.
func (m *model) runtime() *app.Runtime {
	if m.ctrl != nil {
		return m.ctrl.Runtime()
	}
	return m.base
}

// notifier rings the terminal as the current configuration's notify
// setting says.
func (m *model) notifier() notify.Notifier {
	n := notify.Notifier{Getenv: m.o.Getenv, After: m.o.NotifyAfter}
	if rt := m.runtime(); rt != nil && rt.Config != nil {
		n.Mode = rt.Config.Notify
	}
	return n
}

// ring writes a notification sequence to the terminal (nil for "").
func ring(seq string) tea.Cmd {
	if seq == "" {
		return nil
	}
	return tea.Raw(seq)
}
