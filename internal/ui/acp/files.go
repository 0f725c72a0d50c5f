package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// editorFiles reads and writes the session's text files through the
// client (fs/read_text_file, fs/write_text_file), for what the client
// offers. Calls are bounded by the running prompt's context.
type editorFiles struct {
	s           *session
	read, write bool
}

// ReadText asks the client for abs's text (its buffer, saved or not).
func (f *editorFiles) ReadText(ctx context.Context, abs string) ([]byte, bool, error) {
	if !f.read {
		return nil, false, nil
	}
	ctx = f.s.runContext(ctx)
	r, err := f.s.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: f.s.id, Path: abs})
	if err != nil {
		return nil, false, fmt.Errorf("fs/read_text_file %s: %w", abs, err)
	}
	return []byte(r.Content), true, nil
}

// WriteText has the client write abs (the edit appears in the editor).
func (f *editorFiles) WriteText(ctx context.Context, abs string, content []byte) (bool, error) {
	if !f.write {
		return false, nil
	}
	ctx = f.s.runContext(ctx)
	if _, err := f.s.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: f.s.id, Path: abs, Content: string(content)}); err != nil {
		return false, fmt.Errorf("fs/write_text_file %s: %w", abs, err)
	}
	return true, nil
}

// runContext is the running prompt's context when ctx carries no
// deadline or cancellation of its own (the tools' reads pass none).
func (s *session) runContext(ctx context.Context) context.Context {
	if ctx.Done() != nil {
		return ctx
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runCtx != nil {
		return s.runCtx
	}
	return ctx
}
