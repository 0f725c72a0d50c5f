package commands

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// A typed line is read the same way for every front end: a chat alias
// becomes its slash command, a slash command and a !command are told from
// a prompt, and a prompt gets its @file attachments.
func TestReadTyped(t *testing.T) {
	f := newFixture(t, "", llmtest.Turn{Text: "ok"})
	require.NoError(t, os.WriteFile(filepath.Join(f.ws, "a.go"), []byte("package a\n"), 0o644))
	ctx := context.Background()

	p := f.c.Read(ctx, "  look at @a.go \n")
	require.Equal(t, TypedPrompt, p.Kind)
	require.Equal(t, "look at @a.go", p.Text)
	require.Equal(t, []string{"a.go"}, p.Prompt.Attached)
	require.Equal(t, llm.PartText, p.Prompt.Parts[0].Type)
	require.True(t, strings.HasPrefix(p.Prompt.Parts[0].Text, "  look at @a.go \n\n\n<file path=\"a.go\">"), "the prompt keeps the text as typed: %q", p.Prompt.Parts[0].Text)

	s := f.c.Read(ctx, " /cost ")
	require.Equal(t, Typed{Text: "/cost", Kind: TypedSlash, Line: "/cost"}, s)

	sh := f.c.Read(ctx, "!  git status ")
	require.Equal(t, Typed{Text: "!  git status", Kind: TypedShell, Line: "git status"}, sh)

	require.Equal(t, Typed{Kind: TypedEmpty}, f.c.Read(ctx, "  "))

	f.c.chatAliases = true
	a := f.c.Read(ctx, "clear chat")
	require.Equal(t, Typed{Text: "clear chat", Alias: "/clear", Kind: TypedSlash, Line: "/clear"}, a)
	f.c.chatAliases = false
	require.Equal(t, TypedPrompt, f.c.Read(ctx, "clear chat").Kind, "aliases only in aidex chat")
}
