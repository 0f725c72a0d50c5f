package tui

import (
	"bytes"
	"context"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/app/rewind"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// The picker kinds of /rewind: first the checkpoint, then the scope.
const (
	pickCheckpoint  = "checkpoint"
	pickRewindScope = "rewind-scope"
)

// openRewind loads the session's checkpoints as a job, then opens a
// picker of them, newest first (/rewind without an argument).
func (m *turnCtl) openRewind() tea.Cmd {
	ctrl := m.ctrl
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		cps, err := ctrl.Checkpoints(ctx)
		return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
			if err != nil {
				return nil
			}
			if len(cps) == 0 {
				m.commit(m.st.paint(m.st.faint, "no checkpoints in this session yet: aidex takes one before each turn that may change files"))
				return nil
			}
			m.picker = checkpointPicker(cps)
			return nil
		}}
	})
}

// checkpointPicker lists cps (oldest first, as the app gives them)
// newest first.
func checkpointPicker(cps []rewind.Checkpoint) *picker {
	p := &picker{Title: "Rewind to before which prompt?", Kind: pickCheckpoint}
	for _, cp := range slices.Backward(cps) {
		p.Items = append(p.Items, pickItem{Label: commands.CheckpointLine(cp), Value: cp.ID})
	}
	return p
}

// scopePicker asks what rewinding to checkpoint id restores; its values
// are "ID SCOPE", as /rewind takes them.
func scopePicker(id string) *picker {
	return &picker{Title: "Rewind to checkpoint " + id + ": restore what?", Kind: pickRewindScope, Items: []pickItem{
		{Label: "code and conversation (files back to that point, the conversation cut before its prompt)", Value: id + " both"},
		{Label: "code only (files back; the conversation stays)", Value: id + " code"},
		{Label: "conversation only (the conversation cut; files stay)", Value: id + " conversation"},
	}}
}

// rewind runs "/rewind ID SCOPE" as a job, as if typed.
func (m *turnCtl) rewind(arg string) tea.Cmd {
	ctrl, table := m.ctrl, m.table
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		var b bytes.Buffer
		o, err := table.Exec(ctx, ctrl, "/rewind "+arg, &b)
		return jobDoneMsg{out: b.String(), outcome: o, err: err}
	})
}

// rewound marks where the conversation was cut back and puts the prompt
// it was cut before into the input, to edit and send again (as Claude
// Code's rewind does).
func (m *turnCtl) rewound(prompt string) {
	m.commit(m.st.paint(m.st.cyan, commands.RewindMarker(prompt)))
	if prompt != "" && m.input.Value() == "" {
		m.input.setValue(prompt)
	}
	m.note("conversation rewound · edit the prompt and press Enter to send it again")
}
