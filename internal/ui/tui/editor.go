package tui

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ui/commands"
)

// taskEditedMsg is the end of $EDITOR on a task's JSON.
type taskEditedMsg struct {
	id, path string
	before   []byte
	err      error
}

// editorLine is the user's editor command line: $VISUAL, else $EDITOR,
// else vi (getenv may be nil).
func editorLine(getenv func(string) string) string {
	if getenv == nil {
		return "vi"
	}
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(getenv(k)); e != "" {
			return e
		}
	}
	return "vi"
}

// editFile runs the user's editor on path with the terminal handed over;
// done turns the editor's exit into the message that ends the edit.
func editFile(getenv func(string) string, path string, done func(error) tea.Msg) tea.Cmd {
	parts := strings.Fields(editorLine(getenv))
	c := exec.Command(parts[0], append(parts[1:], path)...)
	return tea.ExecProcess(c, done)
}

// openEditor opens the editor on the input's text (/edit).
func (m *model) openEditor() tea.Cmd {
	f, err := os.CreateTemp("", "aidex-prompt-*.md")
	if err != nil {
		m.note(err.Error())
		return nil
	}
	_, _ = f.WriteString(m.input.Value())
	_ = f.Close()
	return editFile(m.o.Getenv, f.Name(), func(err error) tea.Msg { return editedMsg{path: f.Name(), err: err} })
}

// edited puts the edited prompt into the input.
func (m *model) edited(msg editedMsg) {
	defer os.Remove(msg.path)
	if msg.err != nil {
		m.note("editor: " + msg.err.Error())
		return
	}
	data, err := os.ReadFile(msg.path)
	if err != nil {
		m.note(err.Error())
		return
	}
	m.input.setValue(strings.TrimRight(string(data), "\n"))
	m.note("prompt from the editor: Enter sends it")
}

// openTaskEditor opens the editor on the task's JSON.
func (m *tasksCtl) openTaskEditor(id string) tea.Cmd {
	t, err := m.ctrl.Ralph().Get(id)
	if err != nil {
		m.note(err.Error())
		return nil
	}
	f, err := os.CreateTemp("", "aidex-task-*.json")
	if err != nil {
		m.note(err.Error())
		return nil
	}
	before := commands.TaskJSON(t)
	_, _ = f.Write(before)
	_ = f.Close()
	return editFile(m.o.Getenv, f.Name(), func(err error) tea.Msg {
		return taskEditedMsg{id: t.ID, path: f.Name(), before: before, err: err}
	})
}

// taskEdited applies the edited task JSON.
func (m *tasksCtl) taskEdited(msg taskEditedMsg) tea.Cmd {
	defer os.Remove(msg.path)
	if msg.err != nil {
		m.note("editor: " + msg.err.Error())
		return nil
	}
	data, err := os.ReadFile(msg.path)
	if err != nil {
		m.note(err.Error())
		return nil
	}
	if bytes.Equal(bytes.TrimSpace(data), bytes.TrimSpace(msg.before)) {
		m.note("no changes")
		return nil
	}
	ctrl := m.ctrl
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		t, err := ctrl.Tasks().ApplyJSON(ctx, msg.id, data)
		return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
			if err == nil {
				m.note("updated " + t.ID)
				m.tasks.refreshTasks()
			}
			return nil
		}}
	})
}
