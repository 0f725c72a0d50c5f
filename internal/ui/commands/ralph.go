package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/zelvior/aidex/internal/ui/termsafe"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/slashcmd"
)

// Tasks is the controller's Ralph side: the workspace's task list,
// planning, the Ralph loop, task edits and /implement (with the /undo
// that follows it). Get it with [Controller.Tasks].
type Tasks struct {
	c *Controller
	// mu guards svc, implemented and implementedMsgs.
	mu sync.Mutex
	// svc is the workspace's Ralph service (made on first use).
	svc *ralph.Service
	// implemented is the task the last /implement run worked on and the
	// session's message count when it ended: /undo right after it (no
	// turn since) puts the task back to pending.
	implemented     string
	implementedMsgs int
}

// Tasks returns the controller's Ralph side.
func (c *Controller) Tasks() *Tasks { return c.tasks }

// Ralph returns the workspace's Ralph service (made on first use); see
// [Tasks.Service].
func (c *Controller) Ralph() *ralph.Service { return c.tasks.Service() }

// Service returns the workspace's Ralph service (made on first use). Its
// model backend follows the controller: runs and plans use the current
// runtime (provider, model, permission mode) and the session store, with
// headless rules (nothing waits for an approval).
func (r *Tasks) Service() *ralph.Service {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.svc == nil {
		r.svc = r.c.svc.Ralph(false)
	}
	return r.svc
}

// Plan runs Ralph's planning for goal: the model studies the workspace in
// plan permission mode (read-only tools) in a new session and proposes
// tasks, which are returned unsaved (save them with SavePlan after the
// user agrees). The planning run's engine events go to emit. Errors: an
// empty goal, a failed model request, no tasks proposed, ctx cancelled.
func (r *Tasks) Plan(ctx context.Context, goal string, emit func(agent.Event)) (*ralph.PlanResult, error) {
	return r.Service().Plan(ctx, ralph.PlanOptions{Goal: goal, MaxTurns: r.c.maxTurns}, func(ev ralph.Event) {
		if ev.Agent != nil {
			emit(*ev.Agent)
		}
	})
}

// SavePlan adds proposed tasks to the task list (see ralph.Service.SavePlan)
// and returns them as stored.
func (r *Tasks) SavePlan(ctx context.Context, tasks []ralph.Task) ([]ralph.Task, error) {
	return r.Service().SavePlan(ctx, tasks)
}

// Start starts the Ralph loop in the background over the pending
// tasks (verify_command verifies tasks reported done); events go to emit
// from the loop's goroutine. wait blocks until the loop ends (call it
// exactly once). Errors: ralph.ErrRunning when a loop already runs in the
// workspace.
func (r *Tasks) Start(ctx context.Context, emit func(ralph.Event)) (wait func() (*ralph.Summary, error), err error) {
	rt := r.c.Runtime()
	safe := func(ev ralph.Event) { emit(safeRalph(ev)) }
	return r.Service().Start(ctx, ralph.RunOptions{Verify: rt.Config.VerifyCommand, MaxTurns: r.c.maxTurns}, safe)
}

// Notice returns what the user should know before starting the loop
// in the current permission mode ("" when nothing): in ask and plan mode
// nobody approves in a Ralph run, so file changes are denied.
func (r *Tasks) Notice() string {
	switch r.c.Mode() {
	case "ask", "plan":
		return fmt.Sprintf("permission mode %s: nobody approves in a Ralph run, so changes that need approval are denied (/mode auto-edit lets the agent edit files)", r.c.Mode())
	}
	return ""
}

func cmdPlan(_ context.Context, _ *Controller, arg string, _ io.Writer) (Outcome, error) {
	if arg == "" {
		return Outcome{}, errors.New(`say what you want done: /plan GOAL, e.g. /plan add a login page`)
	}
	return Outcome{Action: ActPlan, Arg: arg}, nil
}

func cmdTasks(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	verb, rest, _ := strings.Cut(arg, " ")
	switch verb {
	case "":
		snap, err := c.Ralph().Snapshot()
		if err != nil {
			return Outcome{}, err
		}
		WriteTasks(out, snap)
	case "add":
		title := strings.TrimSpace(rest)
		if title == "" {
			return Outcome{}, errors.New("give the task a title: /tasks add TITLE")
		}
		added, err := c.Ralph().Add(ctx, ralph.Task{Title: title})
		if err != nil {
			return Outcome{}, err
		}
		fmt.Fprintf(out, "added %s [%s]: %s\n", added[0].ID, added[0].Priority, added[0].Title)
	default:
		return Outcome{}, fmt.Errorf("unknown /tasks %s: use /tasks, or /tasks add TITLE", verb)
	}
	return Outcome{}, nil
}

// StatusMark is a task status as one symbol: ○ pending, ● in progress,
// ✓ done, ✗ failed, – skipped.
func StatusMark(s ralph.Status) string {
	switch s {
	case ralph.StatusInProgress:
		return "●"
	case ralph.StatusDone:
		return "✓"
	case ralph.StatusFailed:
		return "✗"
	case ralph.StatusSkipped:
		return "–"
	}
	return "○"
}

// WriteTasks writes the task list as a table (id, priority, status, title,
// dependencies) with the counts and the loop's state.
func WriteTasks(out io.Writer, snap ralph.Snapshot) {
	if len(snap.Tasks) == 0 {
		fmt.Fprintln(out, "no tasks: /plan GOAL proposes some, /tasks add TITLE adds one")
		return
	}
	if snap.From != "" {
		fmt.Fprintf(out, "(read from %s, ayder-cli's tasks: the first change saves them into %s)\n", snap.From, ralph.FileName)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, t := range snap.Tasks {
		deps := ""
		if len(t.DependsOn) > 0 {
			deps = "after " + strings.Join(t.DependsOn, ",")
		}
		fmt.Fprintf(w, "%s\t%s\t%s %s\t%s\t%s\n", t.ID, t.Priority, StatusMark(t.Status), t.Status, oneLine(t.Title, 70), deps)
	}
	_ = w.Flush()
	fmt.Fprintln(out, CountsLine(snap.Counts))
	if snap.Running {
		state := "running"
		if snap.Paused {
			state = "paused"
		}
		cur := snap.Current
		if cur == "" {
			cur = "no task yet"
		}
		fmt.Fprintf(out, "the Ralph loop is %s, on %s\n", state, cur)
	}
}

// CountsLine formats the counts by status: "2 pending · 0 in progress ·
// 1 done · 0 failed · 0 skipped".
func CountsLine(c map[ralph.Status]int) string {
	return fmt.Sprintf("%d pending · %d in progress · %d done · %d failed · %d skipped",
		c[ralph.StatusPending], c[ralph.StatusInProgress], c[ralph.StatusDone], c[ralph.StatusFailed], c[ralph.StatusSkipped])
}

// WriteProposal writes proposed tasks for review: id, priority, type,
// title, dependencies, description and acceptance criteria.
func WriteProposal(w io.Writer, res *ralph.PlanResult) {
	fmt.Fprintf(w, "Proposed tasks (planning session %s):\n", res.SessionID)
	for _, t := range res.Tasks {
		fmt.Fprintf(w, "\n%s [%s] %s: %s\n", t.ID, t.Priority, t.Type, t.Title)
		if len(t.DependsOn) > 0 {
			fmt.Fprintf(w, "  after: %s\n", strings.Join(t.DependsOn, ", "))
		}
		for _, l := range strings.Split(strings.TrimSpace(t.Description), "\n") {
			if l != "" {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
		for _, c := range t.AcceptanceCriteria {
			fmt.Fprintf(w, "  - [ ] %s\n", c)
		}
	}
}

// editableTask is the part of a task a person edits (TaskJSON).
type editableTask struct {
	ID                 string   `json:"id"`
	Title              string   `json:"title"`
	Description        string   `json:"description"`
	AcceptanceCriteria []string `json:"acceptance_criteria"`
	Priority           string   `json:"priority"`
	Type               string   `json:"task_type"`
	Status             string   `json:"status"`
	DependsOn          []string `json:"depends_on"`
}

// TaskJSON renders the editable fields of t as indented JSON (id, title,
// description, acceptance_criteria, priority, task_type, status,
// depends_on) for editing in $EDITOR; Tasks.ApplyJSON reads it back.
func TaskJSON(t ralph.Task) []byte {
	e := editableTask{ID: t.ID, Title: t.Title, Description: t.Description, AcceptanceCriteria: t.AcceptanceCriteria,
		Priority: string(t.Priority), Type: string(t.Type), Status: string(t.Status), DependsOn: t.DependsOn}
	if e.AcceptanceCriteria == nil {
		e.AcceptanceCriteria = []string{}
	}
	if e.DependsOn == nil {
		e.DependsOn = []string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(e)
	return buf.Bytes()
}

// ApplyJSON changes task id to the fields in data (TaskJSON's form;
// the id in data is ignored) and returns the task as stored. Errors:
// malformed JSON or an unknown field (named), a bad priority, status or
// type, an unknown task, a task the running loop works on.
func (r *Tasks) ApplyJSON(ctx context.Context, id string, data []byte) (ralph.Task, error) {
	var e editableTask
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return ralph.Task{}, fmt.Errorf("the edited task is not valid JSON (nothing changed): %w", err)
	}
	pr, err := ralph.ParsePriority(e.Priority)
	if err != nil {
		return ralph.Task{}, err
	}
	st, err := ralph.ParseStatus(e.Status)
	if err != nil {
		return ralph.Task{}, err
	}
	tt, err := ralph.ParseTaskType(e.Type)
	if err != nil {
		return ralph.Task{}, err
	}
	return r.Service().Update(ctx, id, func(t *ralph.Task) error {
		t.Title, t.Description, t.AcceptanceCriteria = e.Title, e.Description, e.AcceptanceCriteria
		t.Priority, t.Status, t.Type, t.DependsOn = pr, st, tt, e.DependsOn
		return nil
	})
}

// taskFields names the FIELD=VALUE keys of /task-edit.
const taskFields = "title, description, priority (P0-P3), status (pending, in_progress, done, failed, skipped), type (story, task), criteria (repeat for several; empty clears), depends (comma-separated ids)"

// ApplyFields changes task id by FIELD=VALUE arguments (see
// /task-edit): title, description (desc), priority, status, type, criteria
// (each criteria=... adds one; the first replaces the old list; criteria=
// clears it), depends (comma-separated ids; empty clears). It returns the
// task as stored. Errors name a bad field or value; nothing is changed
// then.
func (r *Tasks) ApplyFields(ctx context.Context, id string, fields []string) (ralph.Task, error) {
	type change func(t *ralph.Task, first map[string]bool) error
	var changes []change
	for _, f := range fields {
		key, val, ok := strings.Cut(f, "=")
		if !ok {
			return ralph.Task{}, fmt.Errorf("%q is not FIELD=VALUE: fields are %s", f, taskFields)
		}
		ch, err := fieldChange(strings.ToLower(strings.TrimSpace(key)), val)
		if err != nil {
			return ralph.Task{}, err
		}
		changes = append(changes, ch)
	}
	return r.Service().Update(ctx, id, func(t *ralph.Task) error {
		first := map[string]bool{}
		for _, ch := range changes {
			if err := ch(t, first); err != nil {
				return err
			}
		}
		return nil
	})
}

func fieldChange(key, val string) (func(t *ralph.Task, first map[string]bool) error, error) {
	switch key {
	case "title":
		return func(t *ralph.Task, _ map[string]bool) error { t.Title = val; return nil }, nil
	case "description", "desc":
		return func(t *ralph.Task, _ map[string]bool) error { t.Description = val; return nil }, nil
	case "priority", "p":
		pr, err := ralph.ParsePriority(val)
		if err != nil {
			return nil, err
		}
		return func(t *ralph.Task, _ map[string]bool) error { t.Priority = pr; return nil }, nil
	case "status":
		st, err := ralph.ParseStatus(val)
		if err != nil {
			return nil, err
		}
		return func(t *ralph.Task, _ map[string]bool) error { t.Status = st; return nil }, nil
	case "type", "task_type":
		tt, err := ralph.ParseTaskType(val)
		if err != nil {
			return nil, err
		}
		return func(t *ralph.Task, _ map[string]bool) error { t.Type = tt; return nil }, nil
	case "criteria", "criterion", "acceptance_criteria":
		return func(t *ralph.Task, first map[string]bool) error {
			if !first["criteria"] {
				first["criteria"], t.AcceptanceCriteria = true, nil
			}
			if strings.TrimSpace(val) != "" {
				t.AcceptanceCriteria = append(t.AcceptanceCriteria, val)
			}
			return nil
		}, nil
	case "depends", "depends_on", "after":
		var ids []string
		for _, d := range strings.Split(val, ",") {
			if d = strings.TrimSpace(d); d != "" {
				ids = append(ids, d)
			}
		}
		return func(t *ralph.Task, _ map[string]bool) error { t.DependsOn = ids; return nil }, nil
	}
	return nil, fmt.Errorf("unknown task field %q: fields are %s", key, taskFields)
}

// TaskEditHelp is what the line mode shows for /task-edit ID without
// fields: the task and how to change it.
func TaskEditHelp(t ralph.Task) string {
	return ralph.FormatTask(t) + "\nChange it with /task-edit " + t.ID + ` FIELD=VALUE..., e.g. /task-edit ` + t.ID +
		` priority=P1 title="New title" criteria="tests pass"` + "\nFields: " + taskFields + "\n"
}

func cmdTaskEdit(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	words, err := slashcmd.SplitArgs(arg)
	if err != nil {
		return Outcome{}, err
	}
	if len(words) == 0 {
		return Outcome{}, errors.New("name a task: /task-edit ID [FIELD=VALUE...] (/tasks lists them)")
	}
	if len(words) == 1 {
		t, err := c.Ralph().Get(words[0])
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Action: ActEditTask, Arg: t.ID}, nil
	}
	t, err := c.tasks.ApplyFields(ctx, words[0], words[1:])
	if err != nil {
		return Outcome{}, err
	}
	fmt.Fprintf(out, "updated %s\n%s", t.ID, ralph.FormatTask(t))
	return Outcome{}, nil
}

func cmdImplement(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if arg == "" {
		return Outcome{}, errors.New("name a task: /implement ID (/tasks lists them)")
	}
	verify := c.Runtime().Config.VerifyCommand
	im, err := c.Ralph().Implement(ctx, arg, c.Session().ID, verify)
	if err != nil {
		return Outcome{}, err
	}
	fmt.Fprintf(out, "working on %s in this session: %s\n", im.Task.ID, im.Task.Title)
	return Outcome{Prompt: im.Prompt, Tools: im.Tools, After: func(ctx context.Context, done *agent.DoneInfo, runErr error) string {
		return c.tasks.finishImplementation(ctx, im, verify, done, runErr)
	}}, nil
}

// finishImplementation records how an /implement run ended (running the
// verification command when the agent reported done) and describes it.
func (r *Tasks) finishImplementation(ctx context.Context, im *ralph.Implementation, verify string, done *agent.DoneInfo, runErr error) string {
	r.mu.Lock()
	r.implemented, r.implementedMsgs = im.Task.ID, len(r.c.Session().Messages)
	r.mu.Unlock()
	t, out, err := im.Finish(ctx, done, runErr)
	if err != nil {
		return fmt.Sprintf("%s: could not record the outcome: %v", im.Task.ID, err)
	}
	if t.Status == ralph.StatusDone && verify != "" && ctx.Err() == nil {
		vr := r.c.svc.RalphBackend(false).Verify(ctx, verify, 0)
		if !vr.OK {
			msg := fmt.Sprintf("verification `%s` failed (exit %d): %s", verify, vr.ExitCode, oneLine(vr.Output+" "+vr.Error, 300))
			if _, err := r.Service().Update(context.WithoutCancel(ctx), t.ID, func(x *ralph.Task) error {
				x.Status, x.Result = ralph.StatusFailed, msg
				return nil
			}); err != nil {
				return fmt.Sprintf("%s: %s; recording it failed: %v", t.ID, msg, err)
			}
			return fmt.Sprintf("%s failed: %s", t.ID, msg)
		}
	}
	switch t.Status {
	case ralph.StatusPending:
		return fmt.Sprintf("%s is pending again (%s)", t.ID, out.Reason)
	case ralph.StatusDone:
		return fmt.Sprintf("%s is done: %s", t.ID, oneLine(out.Summary, 200))
	}
	return fmt.Sprintf("%s is %s (%s): %s", t.ID, t.Status, out.Reason, oneLine(out.Summary, 200))
}

func cmdImplementAll(_ context.Context, c *Controller, _ string, _ io.Writer) (Outcome, error) {
	if st, err := c.Ralph().State(); err == nil && st.Running {
		return Outcome{}, ralph.ErrRunning
	}
	return Outcome{Action: ActRalphRun}, nil
}

// RalphEventLine describes one of Ralph's own events (task_start,
// verify_start, verify, task_done, paused, resumed, finished) as a line;
// it returns "" for the engine events a run forwards.
func RalphEventLine(ev ralph.Event) string {
	switch ev.Type {
	case ralph.EventTaskStart:
		if ev.Task != nil {
			return fmt.Sprintf("▶ %s [%s] %s (session %s)", ev.Task.ID, ev.Task.Priority, ev.Task.Title, ev.Task.SessionID)
		}
	case ralph.EventVerifyStart:
		if v := ev.Verify; v != nil {
			return fmt.Sprintf("… verifying %s: %s (attempt %d of %d)", ev.TaskID, v.Command, v.Attempt, v.MaxAttempts)
		}
	case ralph.EventVerify:
		if v := ev.Verify; v != nil && v.Result != nil {
			if v.Result.OK {
				return "✓ verification passed"
			}
			return fmt.Sprintf("✗ verification failed (exit %d)", v.Result.ExitCode)
		}
	case ralph.EventTaskDone:
		if o := ev.Outcome; o != nil {
			return fmt.Sprintf("%s %s %s (%s): %s", StatusMark(o.Status), ev.TaskID, o.Status, o.Reason, oneLine(o.Summary, 200))
		}
	case ralph.EventPaused:
		return "‖ paused before the next task"
	case ralph.EventResumed:
		return "▶ resumed"
	case ralph.EventFinished:
		if s := ev.Summary; s != nil {
			return SummaryLine(s)
		}
	}
	return ""
}

// SummaryLine describes a finished loop: why it ended and what it did.
func SummaryLine(s *ralph.Summary) string {
	line := fmt.Sprintf("Ralph finished (%s): ran %d · %d done · %d failed · %d skipped", s.Reason, s.Ran, s.Done, len(s.Failed), s.Skipped)
	if len(s.Stuck) > 0 {
		line += fmt.Sprintf(" · left in_progress by an earlier run: %s (reset with aidex ralph reset ID)", strings.Join(s.Stuck, ", "))
	}
	return line
}

// maxLogLines bounds a RalphLog, in lines.
const maxLogLines = 400

// RalphLog is one task's live transcript as lines: Ralph's own events,
// tool calls and results, errors, and the agent's text (streamed text
// stays in the last line until a newline ends it). The zero value is
// ready; it keeps the last 400 lines. Not safe for concurrent use.
type RalphLog struct {
	lines   []string
	partial string
}

// Add appends an event of the task.
func (l *RalphLog) Add(ev ralph.Event) {
	if ev.Agent == nil {
		if s := RalphEventLine(ev); s != "" {
			l.line(s)
		}
		return
	}
	e := ev.Agent
	if e.ParentToolCallID != "" && e.Type == agent.EventText {
		return // a subagent's text: its answer is the task's result
	}
	switch e.Type {
	case agent.EventText:
		text := l.partial + e.Text
		parts := strings.Split(text, "\n")
		l.partial = parts[len(parts)-1]
		for _, p := range parts[:len(parts)-1] {
			l.push(p)
		}
	case agent.EventToolCall:
		l.line(fmt.Sprintf("→ %s %s", e.ToolCall.Name, keyArg(e.ToolCall.Arguments)))
	case agent.EventToolResult:
		if r := e.ToolResult; r.OK {
			l.line("  ✓ " + oneLine(r.Output, 100))
		} else {
			l.line("  ✗ " + oneLine(r.Error, 200))
		}
	case agent.EventError:
		if e.Error != nil {
			l.line("! " + e.Error.Message)
		}
	case agent.EventBudget:
		if e.Budget != nil {
			l.line("$ budget: " + e.Budget.Message)
		}
	}
}

// line ends the streamed text, then adds s.
func (l *RalphLog) line(s string) {
	if strings.TrimSpace(l.partial) != "" {
		l.push(l.partial)
	}
	l.partial = ""
	l.push(s)
}

func (l *RalphLog) push(s string) {
	l.lines = append(l.lines, s)
	if len(l.lines) > maxLogLines {
		l.lines = append(l.lines[:0:0], l.lines[len(l.lines)-maxLogLines:]...)
	}
}

// Lines returns the transcript, the streamed line not yet ended included.
func (l *RalphLog) Lines() []string {
	out := append([]string(nil), l.lines...)
	if l.partial != "" {
		out = append(out, l.partial)
	}
	return out
}

// keyArg shows a tool call's key argument compactly (command, path,
// pattern, url, query or id).
func keyArg(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "file_path", "pattern", "url", "query", "id", "status"} {
		if v, ok := m[k].(string); ok && v != "" {
			return oneLine(v, 80)
		}
	}
	return ""
}

// safeRalph returns ev with its printed fields cleaned: the wrapped engine
// event, the task's title, description, criteria and result, the outcome's
// summary and the verification output.
func safeRalph(ev ralph.Event) ralph.Event {
	if ev.Agent != nil {
		a := termsafe.Event(*ev.Agent)
		ev.Agent = &a
	}
	if ev.Task != nil {
		t := ev.Task.Clone()
		t.Title, t.Description, t.Result = termsafe.Clean(t.Title), termsafe.Clean(t.Description), termsafe.Clean(t.Result)
		for i, c := range t.AcceptanceCriteria {
			t.AcceptanceCriteria[i] = termsafe.Clean(c)
		}
		ev.Task = &t
	}
	if ev.Outcome != nil {
		o := *ev.Outcome
		o.Summary = termsafe.Clean(o.Summary)
		ev.Outcome = &o
	}
	if ev.Verify != nil && ev.Verify.Result != nil {
		v, r := *ev.Verify, *ev.Verify.Result
		r.Output, r.Error = termsafe.Clean(r.Output), termsafe.Clean(r.Error)
		v.Result = &r
		ev.Verify = &v
	}
	return ev
}

// undoImplementation puts the task of the last /implement run back to
// pending when no turn ran since (the /undo that follows it undoes that
// run's changes), and says so; "" otherwise.
func (r *Tasks) undoImplementation(ctx context.Context) string {
	r.mu.Lock()
	id, at := r.implemented, r.implementedMsgs
	r.implemented = ""
	r.mu.Unlock()
	if id == "" || at != len(r.c.Session().Messages) {
		return ""
	}
	t, err := r.Service().Reset(ctx, id)
	if err != nil {
		return fmt.Sprintf("%s: could not put it back to pending: %v", id, err)
	}
	return fmt.Sprintf("%s is pending again (its /implement run was undone)", t.ID)
}
