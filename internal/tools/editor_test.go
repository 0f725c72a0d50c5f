package tools_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
)

// fakeEditor is an editor holding buffers (path → text) and recording
// what the tools wrote through it.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	writes  map[string]string
}

func (e *fakeEditor) ReadText(_ context.Context, abs string) ([]byte, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.buffers[abs]
	return []byte(b), ok, nil
}

func (e *fakeEditor) WriteText(_ context.Context, abs string, content []byte) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.writes[abs] = string(content)
	e.buffers[abs] = string(content)
	return true, nil
}

// With an Editor, the file tools read its buffer (not the disk) and write
// through it (the disk is left to the editor).
func TestEditorReadsAndWritesThroughTheEditor(t *testing.T) {
	f := newFixture(t)
	abs := filepath.Join(f.Root, "a.txt")
	f.Write("a.txt", "disk text\n")
	ed := &fakeEditor{buffers: map[string]string{abs: "unsaved buffer text\n"}, writes: map[string]string{}}
	f.Env.Editor = ed

	r := f.OK("read_file", m{"path": "a.txt"})
	require.Contains(t, r.Output, "unsaved buffer text")
	f.OK("edit_file", m{"path": "a.txt", "old_string": "unsaved", "new_string": "edited"})
	require.Equal(t, "edited buffer text\n", ed.writes[abs])
	require.Equal(t, "disk text\n", f.Read("a.txt"))
}

// A buffer over the read limit is refused like a file over it.
func TestEditorBufferOverTheLimit(t *testing.T) {
	f := newFixture(t)
	abs := filepath.Join(f.Root, "big.txt")
	f.Write("big.txt", "small on disk\n")
	f.Env.Editor = &fakeEditor{buffers: map[string]string{abs: strings.Repeat("x", tools.MaxReadBytes+1)}, writes: map[string]string{}}
	r := f.Fail("read_file", m{"path": "big.txt"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "in the editor")
}
