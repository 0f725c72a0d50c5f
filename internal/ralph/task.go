package ralph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Status is a task's state: pending, in_progress, done, failed or skipped.
type Status string

// The task states. A task the runner was working on when the process died
// stays in_progress until a person resets it.
const (
	StatusPending    Status = "pending"
	StatusInProgress Status = "in_progress"
	StatusDone       Status = "done"
	StatusFailed     Status = "failed"
	StatusSkipped    Status = "skipped"
)

// Statuses lists every status, in display order.
func Statuses() []Status {
	return []Status{StatusPending, StatusInProgress, StatusDone, StatusFailed, StatusSkipped}
}

// ParseStatus accepts a status name (case-insensitive; "completed" and
// "complete" mean done). The error lists the valid names.
func ParseStatus(s string) (Status, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "complete", "completed":
		return StatusDone, nil
	case "in-progress", "running":
		return StatusInProgress, nil
	}
	for _, st := range Statuses() {
		if string(st) == v {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown status %q: use pending, in_progress, done, failed or skipped", s)
}

// Priority is P0 (most urgent) to P3; the default is P2.
type Priority string

// The priorities, most urgent first.
const (
	P0 Priority = "P0"
	P1 Priority = "P1"
	P2 Priority = "P2"
	P3 Priority = "P3"
)

// DefaultPriority is the priority of a task that gives none.
const DefaultPriority = P2

// ParsePriority accepts P0-P3 (case-insensitive), 0-3, or critical, high,
// medium, low. "" is DefaultPriority. The error lists the valid forms.
func ParsePriority(s string) (Priority, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return DefaultPriority, nil
	case "p0", "0", "critical", "urgent":
		return P0, nil
	case "p1", "1", "high":
		return P1, nil
	case "p2", "2", "medium", "normal":
		return P2, nil
	case "p3", "3", "low":
		return P3, nil
	}
	return "", fmt.Errorf("unknown priority %q: use P0 (most urgent), P1, P2 or P3", s)
}

// rank orders priorities: 0 for P0 ... 3 for P3 (unknown values sort as P2).
func (p Priority) rank() int {
	switch p {
	case P0:
		return 0
	case P1:
		return 1
	case P3:
		return 3
	}
	return 2
}

// UnmarshalJSON accepts a string ("P1", "high") or a number (0-3).
func (p *Priority) UnmarshalJSON(b []byte) error {
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var s string
	switch v := raw.(type) {
	case nil:
	case string:
		s = v
	case float64:
		s = fmt.Sprint(v)
	default:
		return fmt.Errorf("priority must be a string such as \"P1\", not %s", b)
	}
	pr, err := ParsePriority(s)
	if err != nil {
		return err
	}
	*p = pr
	return nil
}

// TaskType is story (a user-visible feature, id US-NNN) or task
// (technical work, id T-NNN).
type TaskType string

// The task types.
const (
	TypeStory TaskType = "story"
	TypeTask  TaskType = "task"
)

// ParseTaskType accepts story or task (case-insensitive; "user_story" and
// "us" mean story). "" is task.
func ParseTaskType(s string) (TaskType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "task", "t":
		return TypeTask, nil
	case "story", "user_story", "user-story", "us":
		return TypeStory, nil
	}
	return "", fmt.Errorf("unknown task type %q: use story or task", s)
}

// stringList decodes a JSON array of strings, or a single string.
type stringList []string

// UnmarshalJSON accepts a JSON array of strings or one string.
func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = nil
		if strings.TrimSpace(one) != "" {
			*l = stringList{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a list of strings: %w", err)
	}
	*l = many
	return nil
}

// Task is one entry of the task list (ralph_tasks.json), modelled on
// ralph-tui's task schema. Times are RFC 3339; Attempts counts how many
// times a run started the task; Result is the agent's summary (or why the
// task failed); SessionID names the session of the task's last run, so
// its transcript can be opened (`aidex sessions show ID`); DependsOn lists
// task ids that must be done first.
//
// Extra keeps the fields aidex does not know, as raw JSON, so that a
// rewrite of the file keeps what other tools stored there.
type Task struct {
	ID                 string
	Title              string
	Description        string
	AcceptanceCriteria []string
	Priority           Priority
	Type               TaskType
	Status             Status
	CreatedAt          time.Time
	UpdatedAt          time.Time
	Attempts           int
	Result             string
	SessionID          string
	DependsOn          []string
	Extra              map[string]json.RawMessage
}

// taskJSON is Task's wire form.
type taskJSON struct {
	ID                 string     `json:"id"`
	Title              string     `json:"title"`
	Description        string     `json:"description,omitempty"`
	AcceptanceCriteria stringList `json:"acceptance_criteria,omitempty"`
	Priority           Priority   `json:"priority"`
	Type               TaskType   `json:"task_type"`
	Status             Status     `json:"status"`
	CreatedAt          time.Time  `json:"created_at,omitzero"`
	UpdatedAt          time.Time  `json:"updated_at,omitzero"`
	Attempts           int        `json:"attempts"`
	Result             string     `json:"result,omitempty"`
	SessionID          string     `json:"session_id,omitempty"`
	DependsOn          stringList `json:"depends_on,omitempty"`
}

// knownFields are taskJSON's keys (kept out of Extra).
var knownFields = []string{"id", "title", "description", "acceptance_criteria", "priority", "task_type",
	"status", "created_at", "updated_at", "attempts", "result", "session_id", "depends_on"}

// MarshalJSON writes the known fields, then the unknown ones in key order.
func (t Task) MarshalJSON() ([]byte, error) {
	w := taskJSON{ID: t.ID, Title: t.Title, Description: t.Description, AcceptanceCriteria: t.AcceptanceCriteria,
		Priority: t.Priority, Type: t.Type, Status: t.Status, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		Attempts: t.Attempts, Result: t.Result, SessionID: t.SessionID, DependsOn: t.DependsOn}
	b, err := marshalNoEscape(w)
	if err != nil {
		return nil, err
	}
	return appendExtra(b, t.Extra)
}

// UnmarshalJSON reads a task; missing fields are left zero (the file
// loader applies defaults) and unknown fields go to Extra. Values of known
// fields with the wrong type or an unknown priority are errors.
func (t *Task) UnmarshalJSON(b []byte) error {
	var w struct {
		taskJSON
		// Status and type are read as text and checked by the loader.
		Status string `json:"status"`
		Type   string `json:"task_type"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	extra, err := unknownFields(b, knownFields)
	if err != nil {
		return err
	}
	*t = Task{ID: strings.TrimSpace(w.ID), Title: w.Title, Description: w.Description,
		AcceptanceCriteria: w.AcceptanceCriteria, Priority: w.Priority, Type: TaskType(w.Type),
		Status: Status(w.Status), CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt, Attempts: w.Attempts,
		Result: w.Result, SessionID: w.SessionID, DependsOn: w.DependsOn, Extra: extra}
	return nil
}

// normalize applies defaults and checks the fields; it returns an error
// naming the bad field and the valid values.
func (t *Task) normalize() error {
	t.Title = strings.TrimSpace(t.Title)
	if t.Title == "" {
		return fmt.Errorf("task %s has no title", orQ(t.ID))
	}
	pr, err := ParsePriority(string(t.Priority))
	if err != nil {
		return fmt.Errorf("task %s: %w", orQ(t.ID), err)
	}
	t.Priority = pr
	if t.Type == "" && strings.HasPrefix(strings.ToUpper(t.ID), "US-") {
		t.Type = TypeStory
	}
	if t.Type, err = ParseTaskType(string(t.Type)); err != nil {
		return fmt.Errorf("task %s: %w", orQ(t.ID), err)
	}
	if t.Status == "" {
		t.Status = StatusPending
	} else if t.Status, err = ParseStatus(string(t.Status)); err != nil {
		return fmt.Errorf("task %s: %w", orQ(t.ID), err)
	}
	if t.Attempts < 0 {
		t.Attempts = 0
	}
	t.AcceptanceCriteria = trimList(t.AcceptanceCriteria)
	t.DependsOn = trimList(t.DependsOn)
	if slices.Contains(t.DependsOn, t.ID) && t.ID != "" {
		return fmt.Errorf("task %s depends on itself: remove %s from its depends_on", t.ID, t.ID)
	}
	return nil
}

func orQ(id string) string {
	if id == "" {
		return "(without id)"
	}
	return id
}

func trimList(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Clone returns a deep copy of t.
func (t Task) Clone() Task {
	c := t
	c.AcceptanceCriteria = slices.Clone(t.AcceptanceCriteria)
	c.DependsOn = slices.Clone(t.DependsOn)
	if t.Extra != nil {
		c.Extra = make(map[string]json.RawMessage, len(t.Extra))
		for k, v := range t.Extra {
			c.Extra[k] = slices.Clone(v)
		}
	}
	return c
}

// Slug is the task's title in lower case with runs of other characters
// than letters and digits turned into single dashes ("Add login page" →
// "add-login-page"); show_task and the CLI accept it in place of the id.
func (t Task) Slug() string { return slugify(t.Title) }

func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// Counts returns how many tasks have each status (every status present,
// zero included).
func Counts(tasks []Task) map[Status]int {
	m := make(map[Status]int, 5)
	for _, s := range Statuses() {
		m[s] = 0
	}
	for _, t := range tasks {
		m[t.Status]++
	}
	return m
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// appendExtra adds extra's members, in key order, to the JSON object b.
func appendExtra(b []byte, extra map[string]json.RawMessage) ([]byte, error) {
	if len(extra) == 0 {
		return b, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := bytes.TrimSuffix(bytes.TrimRight(b, " \n"), []byte("}"))
	empty := bytes.Equal(bytes.TrimSpace(out), []byte("{"))
	for _, k := range keys {
		if !json.Valid(extra[k]) {
			return nil, fmt.Errorf("field %q holds invalid JSON", k)
		}
		if !empty {
			out = append(out, ',')
		}
		empty = false
		kb, _ := marshalNoEscape(k)
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, extra[k]...)
	}
	return append(out, '}'), nil
}

// unknownFields returns the members of the JSON object b whose keys are not
// in known (nil when there are none).
func unknownFields(b []byte, known []string) (map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for _, k := range known {
		delete(all, k)
	}
	if len(all) == 0 {
		return nil, nil
	}
	return compactAll(all), nil
}

// compactAll strips the insignificant whitespace of raw values, so a value
// reads the same whatever indentation the file had.
func compactAll(m map[string]json.RawMessage) map[string]json.RawMessage {
	for k, v := range m {
		var buf bytes.Buffer
		if json.Compact(&buf, v) == nil {
			m[k] = buf.Bytes()
		}
	}
	return m
}
