package ralph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FileName is the task list's file name in the workspace.
const FileName = "ralph_tasks.json"

// List is the content of ralph_tasks.json: the tasks in list order, and
// the file's other top-level members (schema_version, iteration, ... of
// older tools), kept as raw JSON so a rewrite loses nothing.
//
// The file is a JSON object {"tasks": [...]}; a bare JSON array of tasks
// is read too (and written back as an object).
type List struct {
	Tasks []Task
	Extra map[string]json.RawMessage
	// From is the folder the tasks were read from when ralph_tasks.json
	// does not exist yet (ayder-cli's .ayder/tasks, see AyderDir); "" when
	// they come from ralph_tasks.json. It is not written.
	From string
}

// parseList decodes and checks a task file's content, filling in defaults
// (missing ids are generated in list order, so repeated reads agree). name
// is used in errors. Empty content is an empty list.
func parseList(name string, data []byte) (*List, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	l := &List{}
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return l, nil
	case trimmed[0] == '[':
		if err := json.Unmarshal(trimmed, &l.Tasks); err != nil {
			return nil, fmt.Errorf("%s: %w; it should be a JSON list of tasks or {\"tasks\": [...]}", name, jsonErr(err))
		}
	default:
		var top map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &top); err != nil {
			return nil, fmt.Errorf("%s: %w; it should be {\"tasks\": [...]}", name, jsonErr(err))
		}
		if raw, ok := top["tasks"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &l.Tasks); err != nil {
				return nil, fmt.Errorf("%s: tasks: %w", name, jsonErr(err))
			}
		}
		delete(top, "tasks")
		if len(top) > 0 {
			l.Extra = compactAll(top)
		}
	}
	if err := l.check(name); err != nil {
		return nil, err
	}
	return l, nil
}

func jsonErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return err
}

// check normalises every task, generates missing ids, and refuses
// duplicate ids.
func (l *List) check(name string) error {
	for i := range l.Tasks {
		if err := l.Tasks[i].normalize(); err != nil {
			return fmt.Errorf("%s: task %d: %w", name, i+1, err)
		}
	}
	seen := map[string]int{}
	for i, t := range l.Tasks {
		if t.ID == "" {
			continue
		}
		if j, dup := seen[strings.ToUpper(t.ID)]; dup {
			return fmt.Errorf("%s: tasks %d and %d both have id %s: give each task its own id", name, j+1, i+1, t.ID)
		}
		seen[strings.ToUpper(t.ID)] = i
	}
	for i := range l.Tasks {
		if l.Tasks[i].ID == "" {
			l.Tasks[i].ID = l.NextID(l.Tasks[i].Type)
		}
	}
	return nil
}

// encode writes the list as indented JSON: {"tasks": [...]} followed by
// the other top-level members in key order, with a final newline.
func (l *List) encode() ([]byte, error) {
	tasks := l.Tasks
	if tasks == nil {
		tasks = []Task{}
	}
	body, err := marshalNoEscape(struct {
		Tasks []Task `json:"tasks"`
	}{tasks})
	if err != nil {
		return nil, err
	}
	body, err = appendExtra(body, l.Extra)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// NextID returns the next free structured id for a task of type tt:
// US-NNN for stories, T-NNN for tasks, one more than the highest number
// already used with that prefix (at least three digits).
func (l *List) NextID(tt TaskType) string {
	prefix := "T-"
	if tt == TypeStory {
		prefix = "US-"
	}
	highest := 0
	for _, t := range l.Tasks {
		if n, ok := idNumber(t.ID, prefix); ok && n > highest {
			highest = n
		}
	}
	return fmt.Sprintf("%s%03d", prefix, highest+1)
}

func idNumber(id, prefix string) (int, bool) {
	if len(id) <= len(prefix) || !strings.EqualFold(id[:len(prefix)], prefix) {
		return 0, false
	}
	n, err := strconv.Atoi(id[len(prefix):])
	return n, err == nil && n >= 0
}

// index returns the position of the task with this id (case-insensitive),
// or -1.
func (l *List) index(id string) int {
	for i, t := range l.Tasks {
		if strings.EqualFold(t.ID, id) {
			return i
		}
	}
	return -1
}

// Find returns the task a reference names: its id (case-insensitive), else
// the id of an ayder-cli task it names (a file name or path like
// .ayder/tasks/TASK-001-add-auth.md, or a bare number: TASK-001), else
// its exact title (case-insensitive), else its slug, else a unique slug
// prefix. The error says whether nothing or several tasks matched.
func (l *List) Find(ref string) (*Task, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, fmt.Errorf("no task given: name one by id, title or slug")
	}
	if i := l.index(ref); i >= 0 {
		return &l.Tasks[i], nil
	}
	if i := l.index(ayderRef(ref)); i >= 0 {
		return &l.Tasks[i], nil
	}
	match := func(ok func(Task) bool) ([]int, bool) {
		var hits []int
		for i, t := range l.Tasks {
			if ok(t) {
				hits = append(hits, i)
			}
		}
		return hits, len(hits) > 0
	}
	slug := slugify(ref)
	for _, ok := range []func(Task) bool{
		func(t Task) bool { return strings.EqualFold(t.Title, ref) },
		func(t Task) bool { return slug != "" && t.Slug() == slug },
		func(t Task) bool { return slug != "" && strings.HasPrefix(t.Slug(), slug) },
	} {
		hits, found := match(ok)
		if !found {
			continue
		}
		if len(hits) > 1 {
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = l.Tasks[h].ID
			}
			return nil, fmt.Errorf("%q matches several tasks (%s): use the id", ref, strings.Join(ids, ", "))
		}
		return &l.Tasks[hits[0]], nil
	}
	return nil, fmt.Errorf("no task %q in %s: run `aidex ralph list` to see the ids", ref, FileName)
}

// add appends t (normalised, given an id when it has none) and returns it.
// An id already in use is refused.
func (l *List) add(t Task, now time.Time) (Task, error) {
	if err := t.normalize(); err != nil {
		return Task{}, err
	}
	if t.ID == "" {
		t.ID = l.NextID(t.Type)
	} else if l.index(t.ID) >= 0 {
		return Task{}, fmt.Errorf("task id %s is already in use: pick another id or leave it out to get one", t.ID)
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now
	}
	t.UpdatedAt = now
	l.Tasks = append(l.Tasks, t)
	return t, nil
}

// checkDeps refuses depends_on ids that name no task in the list.
func (l *List) checkDeps(t Task) error {
	for _, d := range t.DependsOn {
		if l.index(d) < 0 {
			return fmt.Errorf("task %s depends on %s, which is not in the list: add it first or fix depends_on", t.ID, d)
		}
	}
	return nil
}
