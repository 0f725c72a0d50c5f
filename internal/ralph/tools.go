package ralph

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// PromiseTag ends an answer that declares the task done, the other way
// (besides complete_task) for the agent to report.
const PromiseTag = "<promise>COMPLETE</promise>"

// Report is what the agent said about its task through complete_task:
// Status is done, failed or skipped; Summary what it did or why not.
type Report struct {
	Status  Status `json:"status"`
	Summary string `json:"summary"`
}

// Reporter records the agent's complete_task call for one task. It is
// safe for concurrent use.
type Reporter struct {
	taskID string
	mu     sync.Mutex
	report *Report
}

// NewReporter returns a reporter for the task with this id.
func NewReporter(taskID string) *Reporter { return &Reporter{taskID: taskID} }

// Report returns the last report, and false when the agent has made none
// since the last Reset.
func (r *Reporter) Report() (Report, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.report == nil {
		return Report{}, false
	}
	return *r.report, true
}

// Reset forgets the report (before the agent is asked to try again).
func (r *Reporter) Reset() {
	r.mu.Lock()
	r.report = nil
	r.mu.Unlock()
}

const completeSchema = `{"type":"object","properties":{` +
	`"status":{"type":"string","enum":["done","failed","skipped"],"description":"done: every acceptance criterion is met; failed: you could not complete it; skipped: it is not needed (already done, obsolete)."},` +
	`"summary":{"type":"string","description":"What you changed (done), or why it failed or was skipped; a few sentences."}},` +
	`"required":["status","summary"]}`

// Tool is complete_task, the engine-owned tool the agent reports with.
func (r *Reporter) Tool() agent.EngineTool {
	return agent.EngineTool{
		Spec: llm.Tool{
			Name:        "complete_task",
			Description: "Report the outcome of the current Ralph task " + r.taskID + " (done, failed or skipped) with a summary. Call it once, when you are finished, then end your turn.",
			Parameters:  json.RawMessage(completeSchema),
		},
		Run: func(_ context.Context, _ *agent.Conversation, args json.RawMessage) agent.ToolResultInfo {
			var in struct {
				Status  string `json:"status"`
				Summary string `json:"summary"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return agent.ToolResultInfo{Error: `complete_task takes {"status": "done|failed|skipped", "summary": "..."}: ` + err.Error(), Category: "validation"}
			}
			st, err := ParseStatus(in.Status)
			if err != nil || (st != StatusDone && st != StatusFailed && st != StatusSkipped) {
				return agent.ToolResultInfo{Error: fmt.Sprintf("status must be done, failed or skipped, not %q", in.Status), Category: "validation"}
			}
			if strings.TrimSpace(in.Summary) == "" {
				return agent.ToolResultInfo{Error: "summary is empty: say what you did, or why the task failed or was skipped", Category: "validation"}
			}
			r.mu.Lock()
			r.report = &Report{Status: st, Summary: strings.TrimSpace(in.Summary)}
			r.mu.Unlock()
			return agent.ToolResultInfo{OK: true, Output: fmt.Sprintf("Recorded: task %s is %s. End your turn now with a one-line summary; do not call more tools.", r.taskID, st)}
		},
	}
}

const listSchema = `{"type":"object","properties":{` +
	`"status":{"type":"string","enum":["all","pending","in_progress","done","failed","skipped"],"description":"Only tasks with this status (default: all)."},` +
	`"format":{"type":"string","enum":["list","table"],"description":"list: one line per task (default); table: aligned columns with a header."}}}`

const showSchema = `{"type":"object","properties":{` +
	`"id":{"type":"string","description":"The task's id (T-001, US-002, TASK-001), exact title or slug (add-login-page)."},` +
	`"identifier":{"type":"string","description":"Same as id; also an ayder task file's name or path (.ayder/tasks/TASK-001-add-auth.md) or number (1)."}}}`

// TaskTools returns list_tasks {status?, format?} and show_task {id |
// identifier}: engine-owned, read-only tools that read the workspace's
// task list (ralph_tasks.json, or ayder-cli's .ayder/tasks before it
// exists), for Ralph runs, planning, and any chat session that wants them.
// They take ayder-cli's parameters too (format "list"/"table", status
// "all", identifier).
func TaskTools(st *Store) []agent.EngineTool {
	return []agent.EngineTool{
		{
			Spec: llm.Tool{Name: "list_tasks", Description: "List the tasks of the workspace's Ralph task list (id, priority, status, title, dependencies), optionally only those with one status.",
				Parameters: json.RawMessage(listSchema)},
			Run: func(_ context.Context, _ *agent.Conversation, args json.RawMessage) agent.ToolResultInfo {
				return runListTasks(st, args)
			},
		},
		{
			Spec: llm.Tool{Name: "show_task", Description: "Show one task of the Ralph task list in full: description, acceptance criteria, status, result.",
				Parameters: json.RawMessage(showSchema)},
			Run: func(_ context.Context, _ *agent.Conversation, args json.RawMessage) agent.ToolResultInfo {
				return runShowTask(st, args)
			},
		},
	}
}

func runListTasks(st *Store, args json.RawMessage) agent.ToolResultInfo {
	var in struct {
		Status string `json:"status"`
		Format string `json:"format"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return agent.ToolResultInfo{Error: `list_tasks takes {"status": "all|pending|in_progress|done|failed|skipped", "format": "list|table"} (both optional): ` + err.Error(), Category: "validation"}
	}
	var want Status
	if in.Status != "" && !strings.EqualFold(in.Status, "all") { // ayder-cli's status="all"
		s, err := ParseStatus(in.Status)
		if err != nil {
			return agent.ToolResultInfo{Error: err.Error(), Category: "validation"}
		}
		want = s
	}
	format := strings.ToLower(strings.TrimSpace(in.Format))
	if format != "" && format != "list" && format != "table" {
		return agent.ToolResultInfo{Error: fmt.Sprintf("format must be list or table, not %q", in.Format), Category: "validation"}
	}
	l, err := st.Load()
	if err != nil {
		return agent.ToolResultInfo{Error: err.Error(), Category: "execution"}
	}
	out := listText(l.Tasks, want)
	if format == "table" {
		out = tableText(l.Tasks, want)
	}
	if l.From != "" {
		out = fmt.Sprintf("(tasks read from %s, ayder-cli's task files)\n", l.From) + out
	}
	return agent.ToolResultInfo{OK: true, Output: out}
}

func runShowTask(st *Store, args json.RawMessage) agent.ToolResultInfo {
	var in struct {
		ID         string `json:"id"`
		Identifier string `json:"identifier"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return agent.ToolResultInfo{Error: `show_task takes {"id": "T-001"} (or ayder's {"identifier": "TASK-001"}): ` + err.Error(), Category: "validation"}
	}
	ref := in.ID
	if strings.TrimSpace(ref) == "" {
		ref = in.Identifier
	}
	if strings.TrimSpace(ref) == "" {
		return agent.ToolResultInfo{Error: `name the task: show_task {"id": "T-001"} (its id, title or slug; list_tasks lists them)`, Category: "validation"}
	}
	t, err := st.Get(ref)
	if err != nil {
		return agent.ToolResultInfo{Error: err.Error(), Category: "not_found"}
	}
	return agent.ToolResultInfo{OK: true, Output: FormatTask(t)}
}

// tableText is list_tasks' format "table": a header and aligned columns.
func tableText(tasks []Task, want Status) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tPRIORITY\tSTATUS\tTITLE\tDEPENDS ON")
	n := 0
	for _, t := range tasks {
		if want != "" && t.Status != want {
			continue
		}
		n++
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Priority, t.Status, t.Title, strings.Join(t.DependsOn, ", "))
	}
	if n == 0 {
		return listText(nil, want)
	}
	_ = w.Flush()
	return b.String()
}

func listText(tasks []Task, want Status) string {
	var b strings.Builder
	n := 0
	for _, t := range tasks {
		if want != "" && t.Status != want {
			continue
		}
		n++
		fmt.Fprintf(&b, "%s [%s] %s: %s", t.ID, t.Priority, t.Status, t.Title)
		if len(t.DependsOn) > 0 {
			fmt.Fprintf(&b, " (depends on %s)", strings.Join(t.DependsOn, ", "))
		}
		b.WriteByte('\n')
	}
	if n == 0 {
		if want != "" {
			return fmt.Sprintf("no %s tasks", want)
		}
		return "the task list is empty"
	}
	return b.String()
}

// FormatTask renders a task as plain text for people and models: the
// header line, then description, acceptance criteria, dependencies,
// attempts, session and result.
func FormatTask(t Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", t.ID, t.Title)
	fmt.Fprintf(&b, "status: %s · priority: %s · type: %s · attempts: %d\n", t.Status, t.Priority, t.Type, t.Attempts)
	if len(t.DependsOn) > 0 {
		fmt.Fprintf(&b, "depends on: %s\n", strings.Join(t.DependsOn, ", "))
	}
	if !t.CreatedAt.IsZero() {
		fmt.Fprintf(&b, "created: %s", t.CreatedAt.Local().Format("2006-01-02 15:04"))
		if !t.UpdatedAt.IsZero() {
			fmt.Fprintf(&b, " · updated: %s", t.UpdatedAt.Local().Format("2006-01-02 15:04"))
		}
		b.WriteByte('\n')
	}
	if t.SessionID != "" {
		fmt.Fprintf(&b, "session: %s (aidex sessions show %s)\n", t.SessionID, t.SessionID)
	}
	if t.Description != "" {
		fmt.Fprintf(&b, "\nDescription:\n%s\n", t.Description)
	}
	if len(t.AcceptanceCriteria) > 0 {
		b.WriteString("\nAcceptance criteria:\n")
		for _, c := range t.AcceptanceCriteria {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	if t.Result != "" {
		fmt.Fprintf(&b, "\nResult:\n%s\n", t.Result)
	}
	return b.String()
}

// Proposal collects the tasks the model proposes with propose_tasks while
// planning. It is safe for concurrent use.
type Proposal struct {
	existing func() ([]Task, error)
	mu       sync.Mutex
	tasks    []Task
}

// NewProposal returns an empty proposal; existing lists the task list's
// tasks (ids the proposal may depend on and must not reuse; nil: none).
func NewProposal(existing func() ([]Task, error)) *Proposal {
	return &Proposal{existing: existing}
}

// Tasks returns the last proposal (nil when none).
func (p *Proposal) Tasks() []Task {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Task, len(p.tasks))
	for i, t := range p.tasks {
		out[i] = t.Clone()
	}
	return out
}

const proposeSchema = `{"type":"object","properties":{"tasks":{"type":"array","description":"The whole plan, in order; replaces any earlier proposal.","items":{"type":"object","properties":{` +
	`"id":{"type":"string","description":"US-001 for a user story, T-001 for a technical task; unique; used by depends_on."},` +
	`"title":{"type":"string","description":"Short imperative title."},` +
	`"description":{"type":"string","description":"What to do and where (files, functions), enough for someone with no other context."},` +
	`"acceptance_criteria":{"type":"array","items":{"type":"string"},"description":"Checkable conditions, e.g. a test that must pass."},` +
	`"priority":{"type":"string","enum":["P0","P1","P2","P3"],"description":"P0 most urgent ... P3 least."},` +
	`"task_type":{"type":"string","enum":["story","task"]},` +
	`"depends_on":{"type":"array","items":{"type":"string"},"description":"Ids of tasks (in this plan or the existing list) that must be done first."}},` +
	`"required":["title","description","acceptance_criteria","priority"]}}},"required":["tasks"]}`

// Tool is propose_tasks, the engine-owned tool the model returns its plan
// with. Bad tasks are refused with the reason so the model can fix them.
func (p *Proposal) Tool() agent.EngineTool {
	return agent.EngineTool{
		Spec: llm.Tool{Name: "propose_tasks",
			Description: "Propose the task list for the goal: every task with id, title, description, acceptance criteria, priority and dependencies. The user reviews it before it is saved. Call it once with the whole list, then end your turn.",
			Parameters:  json.RawMessage(proposeSchema)},
		Run: func(_ context.Context, _ *agent.Conversation, args json.RawMessage) agent.ToolResultInfo {
			tasks, err := p.parse(args)
			if err != nil {
				return agent.ToolResultInfo{Error: err.Error(), Category: "validation"}
			}
			p.mu.Lock()
			p.tasks = tasks
			p.mu.Unlock()
			return agent.ToolResultInfo{OK: true, Output: fmt.Sprintf("Proposed %d tasks; the user will review them before they are saved. End your turn now with a short overview of the plan.", len(tasks))}
		},
	}
}

func (p *Proposal) parse(args json.RawMessage) ([]Task, error) {
	var in struct {
		Tasks []Task `json:"tasks"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf(`propose_tasks takes {"tasks": [{"id", "title", "description", "acceptance_criteria": [...], "priority": "P0..P3", "task_type", "depends_on": [...]}]}: %v`, err)
	}
	if len(in.Tasks) == 0 {
		return nil, fmt.Errorf("the proposal has no tasks")
	}
	var existing []Task
	if p.existing != nil {
		existing, _ = p.existing()
	}
	l := &List{Tasks: existing}
	known, proposed := map[string]bool{}, map[string]bool{}
	for _, t := range existing {
		known[strings.ToUpper(t.ID)] = true
	}
	for i := range in.Tasks {
		t := &in.Tasks[i]
		t.Extra, t.Status, t.Attempts, t.Result, t.SessionID = nil, StatusPending, 0, "", ""
		if err := t.normalize(); err != nil {
			return nil, fmt.Errorf("task %d: %w", i+1, err)
		}
		if t.ID == "" {
			t.ID = l.NextID(t.Type)
		}
		if proposed[strings.ToUpper(t.ID)] {
			return nil, fmt.Errorf("task %d: id %s is used twice in the proposal", i+1, t.ID)
		}
		proposed[strings.ToUpper(t.ID)] = true
		l.Tasks = append(l.Tasks, *t)
	}
	for _, t := range in.Tasks {
		for _, d := range t.DependsOn {
			if !proposed[strings.ToUpper(d)] && !known[strings.ToUpper(d)] {
				return nil, fmt.Errorf("task %s depends on %s, which is neither in the proposal nor in the task list", t.ID, d)
			}
		}
	}
	return in.Tasks, nil
}
