package ralph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ParseImport reads tasks to import from a file's content (name is used in
// errors):
//
//   - JSON: a list of tasks (objects with this package's fields, or plain
//     strings taken as titles), or an object {"tasks": [...]};
//   - an ayder-cli task file (TASK-NNN-slug.md, see ParseAyderTask): one
//     task;
//   - otherwise a markdown checklist: each "- [ ] title" (or "* [ ]",
//     "+ [ ]") at the list's outer level is a task, "- [x]" a done one; a
//     leading "[P1]" in the title sets the priority; items indented under
//     a task are its acceptance criteria (checkbox or plain bullets) and
//     other indented lines its description.
//
// Ids are kept when given (and generated when missing at import). The
// error says when the file holds no task.
func ParseImport(name string, data []byte) ([]Task, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	var tasks []Task
	var err error
	switch {
	case len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{'):
		tasks, err = parseJSONImport(name, trimmed)
	case IsAyderTask(trimmed):
		var t Task
		t, err = ParseAyderTask(name, trimmed)
		tasks = []Task{t}
	default:
		tasks = parseChecklist(string(data))
	}
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%s holds no tasks: write a markdown checklist (\"- [ ] title\" lines), a JSON list of tasks, or name an ayder-cli task file or folder (.ayder/tasks)", name)
	}
	for i := range tasks {
		if err := tasks[i].normalize(); err != nil {
			return nil, fmt.Errorf("%s: task %d: %w", name, i+1, err)
		}
	}
	return tasks, nil
}

func parseJSONImport(name string, data []byte) ([]Task, error) {
	var items []json.RawMessage
	if data[0] == '{' {
		var top struct {
			Tasks []json.RawMessage `json:"tasks"`
		}
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, fmt.Errorf("%s: %w", name, jsonErr(err))
		}
		items = top.Tasks
	} else if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("%s: %w", name, jsonErr(err))
	}
	tasks := make([]Task, 0, len(items))
	for i, raw := range items {
		var title string
		if json.Unmarshal(raw, &title) == nil {
			tasks = append(tasks, Task{Title: title})
			continue
		}
		var t Task
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("%s: task %d: %w", name, i+1, jsonErr(err))
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// checkItem splits a markdown list line: its indentation (tabs count 4),
// whether it has a checkbox and whether that is ticked, and the text.
func checkItem(line string) (indent int, box, ticked bool, text string, ok bool) {
	rest := strings.TrimLeft(line, " \t")
	for _, c := range line[:len(line)-len(rest)] {
		if c == '\t' {
			indent += 4
		} else {
			indent++
		}
	}
	if len(rest) < 2 || !strings.ContainsRune("-*+", rune(rest[0])) || rest[1] != ' ' {
		return indent, false, false, "", false
	}
	rest = strings.TrimSpace(rest[2:])
	if len(rest) >= 3 && rest[0] == '[' && rest[2] == ']' && strings.ContainsRune(" xX", rune(rest[1])) {
		return indent, true, rest[1] != ' ', strings.TrimSpace(rest[3:]), true
	}
	return indent, false, false, rest, true
}

func parseChecklist(text string) []Task {
	var tasks []Task
	cur, top := -1, 0 // the open task's index and the outer level's indentation
	var desc []string
	flush := func() {
		if cur >= 0 && len(desc) > 0 {
			tasks[cur].Description = strings.TrimSpace(strings.Join(desc, "\n"))
		}
		desc = nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		indent, box, ticked, item, isItem := checkItem(line)
		if isItem && box && item != "" && (cur < 0 || indent <= top) {
			flush()
			t := Task{Status: StatusPending}
			if ticked {
				t.Status = StatusDone
			}
			t.Priority, t.Title = priorityTag(item)
			tasks = append(tasks, t)
			cur, top = len(tasks)-1, indent
			continue
		}
		if cur < 0 {
			continue
		}
		switch {
		case strings.TrimSpace(line) == "":
			if len(desc) > 0 {
				desc = append(desc, "")
			}
		case indent <= top:
			// Text at the outer level (a heading, a paragraph) ends the task.
			flush()
			cur = -1
		case isItem && item != "":
			tasks[cur].AcceptanceCriteria = append(tasks[cur].AcceptanceCriteria, item)
		default:
			desc = append(desc, strings.TrimSpace(line))
		}
	}
	flush()
	return tasks
}

// priorityTag takes a leading "[P0]".."[P3]" off a title.
func priorityTag(title string) (Priority, string) {
	if len(title) >= 4 && title[0] == '[' && title[3] == ']' {
		if p, err := ParsePriority(title[1:3]); err == nil && (title[1] == 'P' || title[1] == 'p') {
			return p, strings.TrimSpace(title[4:])
		}
	}
	return "", title
}
