package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app/rewind"
)

// The /rewind picker lists the checkpoints newest first; choosing one
// asks for the scope, whose values are /rewind's arguments.
func TestRewindPickers(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	p := checkpointPicker([]rewind.Checkpoint{
		{ID: "old", Time: t0, Prompt: "first", Files: []string{"a"}},
		{ID: "new", Time: t0.Add(time.Minute), Prompt: "second"},
	})
	require.Equal(t, pickCheckpoint, p.Kind)
	require.Len(t, p.Items, 2)
	require.Equal(t, "new", p.Items[0].Value, "newest first")
	require.Equal(t, "old  01-02 03:04:05  1 file  first", p.Items[1].Label)

	p, _ = p.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	q := p
	p, _ = q.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	require.Nil(t, p, "a choice closes the picker")
	require.Equal(t, []tea.Msg{pickedMsg{kind: pickCheckpoint, value: "old"}}, q.take())

	s := scopePicker("old")
	require.Equal(t, pickRewindScope, s.Kind)
	var values []string
	for _, it := range s.Items {
		values = append(values, it.Value)
	}
	require.Equal(t, []string{"old both", "old code", "old conversation"}, values)
}
