package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// turnCtl is the model's turn side: what Enter sends (a prompt, a slash
// command, a !command), the run and jobs it starts and how they end, the
// queued messages, the permission mode, /rewind and a parallel turn's
// choice. It works on the model it belongs to (model.turn).
type turnCtl struct {
	*model
	// The run (running) or job (busy) in progress.
	running, busy bool
	stopped       bool // Esc stopped the run
	runStart      time.Time
	cancel        context.CancelFunc
	pendingMod    string   // the permission mode to set when the run ends
	queued        []string // messages sent while busy, in order (see pending.go)
	// choosing is a parallel turn's question: which answers to keep.
	choosing *chooseReq
}

// keysHelp is printed by /help after the commands.
const keysHelp = `keys: Enter send (while the model works: queue, sent when it ends) · Shift+Enter/Alt+Enter/Ctrl+J newline
      Up/Down history · Tab complete · Ctrl+C clear the input, else stop the model, else twice to quit · Ctrl+Q quit
      Esc take queued messages back into the input; else stop the model (keeps the partial answer)
      approvals: ↑/↓ and Enter, 1-4 or y/s/a/n (a key pressed on its own, not while typing) · Esc deny
      Shift+Tab cycle permission mode · Ctrl+L clear screen · Ctrl+O expand reasoning and subagent cards
      F2 context panel: model, context, tokens, cost and the workspace's file tree (Enter/←/→ open and close folders)
      @path attach a file · !command run a shell command yourself (output goes to the conversation)
      /tasks opens the Ralph split view: ↑/↓ select · a add · e edit ($EDITOR) · r run the loop · s stop · Esc back to chat`

// send handles Enter: the input is taken (take), then submitted, or
// queued while a run or job goes on (sent in order when it ends, see
// sendQueued).
func (m *turnCtl) send() tea.Cmd {
	text, ok := m.turn.take()
	if !ok {
		return nil
	}
	if m.turn.running || m.turn.busy {
		m.turn.queued = append(m.turn.queued, text)
		return nil
	}
	return m.turn.submit(text)
}

// take takes what Enter sends out of the input box, in the order the
// steps run: the pastes expanded, the input cleared (sent), the status
// line cleared when the text goes now (not queued), and the text added to
// the input history. ok is false, and the input left as it is, when there
// is nothing to send or no session yet.
func (m *turnCtl) take() (text string, ok bool) {
	text = m.input.expandPastes(m.input.Value())
	if strings.TrimSpace(text) == "" || m.ctrl == nil {
		return "", false
	}
	m.input.sent()
	if !m.turn.running && !m.turn.busy {
		m.note("")
	}
	if err := m.input.hist.Add(text); err != nil {
		m.note(err.Error())
	}
	return text, true
}

// submit runs a message: the controller reads it (commands.Controller.Read:
// chat alias, kind, attachments), echo shows it, and it runs as a slash
// command, a !command, or a prompt.
func (m *turnCtl) submit(text string) tea.Cmd {
	t := m.ctrl.Read(m.ctx, text)
	m.turn.echo(t)
	switch t.Kind {
	case commands.TypedSlash:
		return m.turn.slash(t.Line)
	case commands.TypedShell:
		return m.turn.shell(t.Line)
	case commands.TypedEmpty:
		return nil
	}
	m.turn.startRun(t.Prompt.Parts)
	return nil
}

// echo commits what was typed to the scrollback, in this order: the
// user's message, the slash command a chat alias made of it, a prompt's
// attachments and notes.
func (m *turnCtl) echo(t commands.Typed) {
	m.commit(renderUser(m.st, t.Text, m.width))
	if t.Alias != "" {
		m.commit(m.st.paint(m.st.faint, "  ("+t.Alias+")"))
	}
	if len(t.Prompt.Attached) > 0 {
		m.commit(m.st.paint(m.st.faint, "  attached: "+strings.Join(t.Prompt.Attached, ", ")))
	}
	for _, n := range t.Prompt.Notes {
		m.commit(m.st.paint(m.st.faint, "  note: "+n))
	}
}

// slash runs a slash command: the UI's own (/help, /exit, /tasks) here,
// the others from the command table as a job.
func (m *turnCtl) slash(line string) tea.Cmd {
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
		m.tasks.openTasks()
		return nil
	}
	if line == "/rewind" {
		return m.turn.openRewind()
	}
	ctrl, table := m.ctrl, m.table
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		var b bytes.Buffer
		o, err := table.Exec(ctx, ctrl, line, &b)
		return jobDoneMsg{out: b.String(), outcome: o, err: err}
	})
}

// shell runs !COMMAND as a job (Esc stops it); its card is shown and its
// output goes to the model with the next message.
func (m *turnCtl) shell(command string) tea.Cmd {
	if command == "" {
		m.note("!COMMAND runs a shell command, e.g. !git status")
		return nil
	}
	rt := m.ctrl.Runtime()
	ctx, cancel := context.WithCancel(m.ctx)
	m.turn.cancel = cancel
	m.turn.running, m.turn.runStart = false, time.Now()
	return m.turn.runJob(func(context.Context) jobDoneMsg {
		r := commands.RunShell(ctx, rt, command)
		cancel()
		return jobDoneMsg{then: func(m *model) tea.Cmd {
			m.turn.cancel = nil
			m.commit(shellCard(m.st, command, r, m.width))
			m.ctrl.AddContext(r.ContextText())
			m.commit(m.st.paint(m.st.faint, "  you ran this yourself (no permission check); its output goes to the model with your next message"))
			return nil
		}}
	})
}

// shellCard draws a finished !command as a tool card with its output.
func shellCard(s styles, command string, r commands.ShellResult, width int) string {
	exit := r.ExitCode
	res := &agent.ToolResultInfo{Name: "shell", OK: r.Err == nil && exit == 0, Output: r.Output,
		DurationMS: r.Duration.Milliseconds(), Meta: []byte(fmt.Sprintf(`{"exit_code":%d}`, exit))}
	if r.Err != nil {
		res.Error = r.Err.Error()
	} else if exit != 0 {
		res.Error = fmt.Sprintf("exit %d", exit)
	}
	args := []byte(fmt.Sprintf(`{"command":%q}`, command))
	return renderCard(s, &card{Name: "shell", Args: args, Done: true, Result: res}, "", width, true)
}

// startRun sends parts to the model in a goroutine.
func (m *turnCtl) startRun(parts []llm.Part) { m.turn.startRunWith(parts, nil, nil) }

// startRunWith sends parts with extra tools for this run; after (when not
// nil) is called when the run ends and its line is shown.
func (m *turnCtl) startRunWith(parts []llm.Part, extra []agent.EngineTool, after func(context.Context, *agent.DoneInfo, error) string) {
	ctx := m.turn.beginRun()
	ctrl, q := m.ctrl, m.q
	go func() {
		done, err := ctrl.RunWith(ctx, parts, extra, q.emit)
		end := &runEnd{done: done, err: err}
		if after != nil {
			line := after(ctx, done, err)
			end.then = func(m *model) tea.Cmd {
				m.commit(m.st.paint(m.st.cyan, line))
				m.tasks.refreshTasks()
				return nil
			}
		}
		q.push(item{end: end})
	}()
}

// beginRun marks a run as started and returns its context, which Esc
// and the run's end cancel.
func (m *turnCtl) beginRun() context.Context {
	ctx, cancel := context.WithCancel(m.ctx)
	m.turn.cancel, m.turn.running, m.turn.runStart, m.turn.stopped = cancel, true, time.Now(), false
	m.note("")
	if m.ctrl != nil {
		m.turn.multiStarted()
	}
	return ctx
}

// runEnded shows how a run ended and what it left unfinished, then runs
// its follow-up and a permission mode change that waited for it.
func (m *turnCtl) runEnded(e *runEnd) tea.Cmd {
	m.stream.endRun()
	m.turn.running = false
	if !m.turn.busy {
		m.status = m.status.workEnded()
	}
	stopped := m.turn.stopped || errors.Is(e.err, context.Canceled)
	if len(m.turn.queued) > 0 && (stopped || (e.err != nil && e.done == nil)) {
		m.turn.unqueue()
		m.note("the run did not finish; your queued messages are back in the input")
	}
	var cmds []tea.Cmd
	if !stopped && len(m.turn.queued) == 0 {
		cmds = append(cmds, ring(m.notifier().TurnEnded(time.Since(m.turn.runStart))))
	}
	m.approval = m.approval.dismiss()
	m.turn.choosing = nil
	if m.turn.cancel != nil {
		m.turn.cancel()
		m.turn.cancel = nil
	}
	switch {
	case stopped:
		m.commit(m.st.paint(m.st.yellow, "■ stopped; the partial answer is kept in the session"))
	case e.err != nil && e.done == nil:
		m.commit(m.st.paint(m.st.red, "error: "+e.err.Error()))
	case e.done != nil && e.done.StopReason == agent.StopMaxTurns:
		m.commit(m.st.paint(m.st.yellow, fmt.Sprintf("stopped after %d model responses (max_tool_turns); send \"continue\" to go on", e.done.Turns)))
	}
	m.turn.stopped = false
	if e.then != nil {
		cmds = append(cmds, e.then(m.model))
	}
	if m.turn.pendingMod != "" {
		mode := m.turn.pendingMod
		m.turn.pendingMod = ""
		cmds = append(cmds, m.turn.setMode(mode))
	}
	return tea.Batch(cmds...)
}

// runJob runs fn off the UI goroutine; the UI is busy until it ends.
func (m *turnCtl) runJob(fn func(ctx context.Context) jobDoneMsg) tea.Cmd {
	m.turn.busy = true
	ctx := m.ctx
	return func() tea.Msg { return fn(ctx) }
}

// jobDone shows a job's output or error, then runs its follow-up and,
// when it succeeded, what its command asked of the front end.
func (m *turnCtl) jobDone(msg jobDoneMsg) tea.Cmd {
	m.turn.busy = false
	if !m.turn.running {
		m.status = m.status.workEnded()
	}
	if s := strings.TrimRight(msg.out, "\n"); s != "" {
		m.commit(s)
	}
	if msg.err != nil {
		m.commit(m.st.paint(m.st.red, "error: "+msg.err.Error()))
	}
	var cmds []tea.Cmd
	if msg.then != nil {
		cmds = append(cmds, msg.then(m.model))
	}
	if msg.err == nil {
		cmds = append(cmds, m.turn.outcome(msg.outcome))
	}
	return tea.Batch(cmds...)
}

// outcome does what a command asked of the front end.
func (m *turnCtl) outcome(o commands.Outcome) tea.Cmd {
	switch {
	case o.Quit:
		return m.quit()
	case o.Prompt != "":
		m.turn.startRunWith(o.PromptOf(m.ctx, m.ctrl).Parts, o.Tools, o.After)
		return nil
	}
	switch o.Action {
	case commands.ActPickModel:
		var cmd tea.Cmd
		m.picker, cmd = modelPicker(m.ctx, m.ctrl)
		return cmd
	case commands.ActPickProvider:
		m.setup.openProviderPicker("Pick a provider:")
	case commands.ActPickMode:
		m.picker = modePicker(m.ctrl.Mode())
	case commands.ActAskKey:
		m.keys = &keyPrompt{provider: o.Arg}
	case commands.ActAskServer:
		m.setup.askServerURL("")
	case commands.ActAskImageKey:
		return m.setup.askImageKey(o.Arg)
	case commands.ActEdit:
		return m.openEditor()
	case commands.ActCopy:
		ans := m.ctrl.LastAnswer()
		if ans == "" {
			m.note("nothing to copy yet")
			return nil
		}
		m.note(fmt.Sprintf("copied %d characters (OSC 52)", len(ans)))
		return tea.SetClipboard(ans)
	case commands.ActVerbose:
		on := m.stream.toggleVerbose()
		m.note(map[bool]string{true: "verbose on: full tool output and reasoning", false: "verbose off"}[on])
	case commands.ActClearScreen:
		m.stream.clearTranscript()
		m.status = m.status.reset()
		return tea.ClearScreen
	case commands.ActPlan:
		m.tasks.startPlan(o.Arg)
	case commands.ActEditTask:
		return m.tasks.openTaskEditor(o.Arg)
	case commands.ActRalphRun:
		m.tasks.openTasks()
		return m.tasks.startRalph()
	case commands.ActRewound:
		m.turn.rewound(o.Arg)
	}
	return nil
}

// cycleMode moves to the next permission mode (Shift+Tab), after the
// current run when one is going.
func (m *turnCtl) cycleMode() tea.Cmd {
	if m.ctrl == nil {
		return nil
	}
	cur := m.ctrl.Mode()
	if m.turn.pendingMod != "" {
		cur = m.turn.pendingMod
	}
	next := commands.NextMode(cur)
	if m.turn.running || m.turn.busy {
		m.turn.pendingMod = next
		m.note("permission mode → " + next + " after this run")
		return nil
	}
	return m.turn.setMode(next)
}

func (m *turnCtl) setMode(mode string) tea.Cmd {
	ctrl := m.ctrl
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		err := ctrl.SetMode(ctx, mode)
		return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
			if err == nil {
				m.note("permission mode: " + mode)
				if mode == "yolo" {
					m.commit(m.st.paint(m.st.red, "⚠ yolo: every tool call runs without asking (deny rules and safe_mode still apply). Shift+Tab leaves it."))
				}
			}
			return nil
		}}
	})
}
