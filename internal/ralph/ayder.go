package ralph

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// AyderDir is where ayder-cli keeps a project's tasks, relative to the
// workspace: one markdown file per task, TASK-NNN-slug.md (or the older
// TASK-NNN.md).
//
// aidex imports them once: while ralph_tasks.json does not exist, the
// Store reads the task list from these files, and its first change (a
// run, an edit, `aidex ralph add`) saves them into ralph_tasks.json,
// after which the files are no longer read (aidex never writes them).
// `aidex ralph import .ayder/tasks` adds them to an existing list.
const AyderDir = ".ayder/tasks"

// ayderName matches a task file name and captures its number.
var ayderName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^TASK-(\d+)(?:-[^/\\]*)?\.md$`)
})

// ayderField matches ayder's "- **Key:** value" lines.
var ayderField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-*]\s+\*\*([A-Za-z ]+):\*\*\s*(.*)$`)
})

// IsAyderTask reports whether content is an ayder-cli task file: a
// "# Title" heading and a "- **Status:**" or "- **ID:**" line.
func IsAyderTask(data []byte) bool {
	s := string(data)
	return (strings.HasPrefix(s, "# ") || strings.Contains(s, "\n# ")) &&
		(strings.Contains(s, "**Status:**") || strings.Contains(s, "**ID:**"))
}

// ayderID returns the task id TASK-NNN for a file name or path of an
// ayder task (".ayder/tasks/TASK-001-add-auth.md", "TASK-001.md"), or "".
func ayderID(ref string) string {
	m := ayderName().FindStringSubmatch(filepath.Base(filepath.ToSlash(ref)))
	if m == nil {
		return ""
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return ""
	}
	return fmt.Sprintf("TASK-%03d", n)
}

// ayderRef is the id an ayder-cli reference to a task names: TASK-NNN for
// a task file's name or path, or for a bare number ("1", "001"); "" for
// anything else.
func ayderRef(ref string) string {
	if n, err := strconv.Atoi(ref); err == nil && n >= 0 {
		return fmt.Sprintf("TASK-%03d", n)
	}
	return ayderID(ref)
}

// ParseAyderTask reads one ayder-cli task file: the first "# " heading is
// the title; "- **ID:**", "- **Status:**", "- **Priority:**" and
// "- **Created:**" lines set those fields; an "## Acceptance Criteria"
// section's bullets become the acceptance criteria and every other
// section the description. name is the file's name: it gives the id when
// the file has no ID line, and is used in errors.
func ParseAyderTask(name string, data []byte) (Task, error) {
	t := Task{ID: ayderID(name)}
	var desc []string
	section := ""
	for _, line := range strings.Split(strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))), "\r\n", "\n"), "\n") {
		switch {
		case t.Title == "" && strings.HasPrefix(line, "# "):
			t.Title = strings.TrimSpace(line[2:])
		case strings.HasPrefix(line, "## "):
			section = strings.ToLower(strings.TrimSpace(line[3:]))
			if !strings.HasPrefix(section, "acceptance") && section != "description" {
				desc = append(desc, "", line)
			}
		case section == "" && ayderField().MatchString(line):
			m := ayderField().FindStringSubmatch(line)
			t.setAyderField(strings.ToLower(strings.TrimSpace(m[1])), strings.TrimSpace(m[2]))
		case strings.HasPrefix(section, "acceptance"):
			if _, _, _, item, ok := checkItem(line); ok && item != "" {
				t.AcceptanceCriteria = append(t.AcceptanceCriteria, item)
			}
		case section != "":
			desc = append(desc, line)
		}
	}
	if d := strings.TrimSpace(strings.Join(desc, "\n")); d != "No description provided." {
		t.Description = d
	}
	if t.Title == "" {
		return Task{}, fmt.Errorf("%s is not an ayder task: it has no \"# Title\" heading", name)
	}
	if err := t.normalize(); err != nil {
		return Task{}, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

func (t *Task) setAyderField(key, val string) {
	switch key {
	case "id":
		if val != "" {
			t.ID = val
		}
	case "status":
		st, err := ParseStatus(strings.ReplaceAll(val, " ", "_"))
		if err != nil {
			st = StatusPending // ayder's free-form statuses ("todo", "unknown")
		}
		t.Status = st
	case "priority":
		if p, err := ParsePriority(val); err == nil {
			t.Priority = p
		}
	case "created":
		if ts, err := time.ParseInLocation("2006-01-02 15:04:05", val, time.Local); err == nil {
			t.CreatedAt = ts.UTC()
		}
	}
}

// ReadAyderTasks reads the task files of an ayder-cli tasks folder
// (TASK-NNN-slug.md), in number order. A missing folder gives no tasks and
// no error; files of other names are skipped.
//
// Errors: a task file that cannot be read or has no title (naming it).
func ReadAyderTasks(dir string) ([]Task, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	type file struct {
		n    int
		name string
	}
	var files []file
	for _, e := range entries {
		m := ayderName().FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		files = append(files, file{n, e.Name()})
	}
	sort.Slice(files, func(i, j int) bool {
		return files[i].n < files[j].n || files[i].n == files[j].n && files[i].name < files[j].name
	})
	tasks := make([]Task, 0, len(files))
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		t, err := ParseAyderTask(p, data)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}
