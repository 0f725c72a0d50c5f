package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

func exportSession(t *testing.T) (*Store, string) {
	t.Helper()
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/work/proj")
	msgs := conversation()
	long := strings.Repeat("é", 1500) // 3000 bytes
	msgs = append(msgs,
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall,
			ToolCall: &llm.ToolCall{ID: "call_3", Name: "read_file", Arguments: json.RawMessage(`{"path":"big.txt"}`)}}}},
		llm.ToolResults(llm.ToolResult{CallID: "call_3", Name: "read_file", Content: long}),
		llm.AssistantText("Here is a fence:\n````go\nx\n````"),
	)
	for _, m := range msgs {
		require.NoError(t, s.AppendMessage(ctx, sess.ID, m, &llm.Usage{InputTokens: 10, OutputTokens: 1}))
	}
	require.NoError(t, s.SaveTodos(ctx, sess.ID, []agent.Todo{{Content: "fix", Status: "completed"}, {Content: "test", Status: "in_progress"}}))
	return s, sess.ID
}

func TestExportMarkdown(t *testing.T) {
	s, id := exportSession(t)
	var b bytes.Buffer
	require.NoError(t, s.Export(context.Background(), id, "md", &b))
	md := b.String()
	for _, want := range []string{
		"# Fix the bug in main.go\n",
		"- Session: `" + id + "`",
		"- Workspace: `/work/proj`",
		"- Model: `anthropic/claude-sonnet-4-5`",
		"70 input tokens",
		"## User\n\nFix the bug in main.go\n",
		"*[image: image/png, 8 bytes]*",
		"*[image: https://example.com/a.png]*",
		"## Assistant\n\n> **Reasoning**\n>\n> Let me look.\n>\n> First main.go.\n",
		"> *(reasoning not shown by the provider)*",
		"**Tool call** `read_file` (id `call_1`):\n\n```json\n{\n  \"path\": \"main.go\"\n}\n```\n",
		"```json\n\"not an object\"\n```",
		"## Tool results",
		"**Tool result** of `bash` (id `call_2`) (error):\n\n```text\nbad args\n```",
		"... (1000 more bytes)",
		"## Plan\n\n- [x] fix\n- [ ] test (in progress)\n",
	} {
		require.Contains(t, md, want)
	}
	// The result is cut to 2000 bytes on a rune boundary.
	require.Contains(t, md, strings.Repeat("é", 1000)+"\n... (1000 more bytes)")
	require.NotContains(t, md, strings.Repeat("é", 1001))
	require.True(t, utf8.ValidString(md))
	// Assistant text with a fence is written as is (it is markdown).
	require.Contains(t, md, "Here is a fence:\n````go\nx\n````\n")
}

func TestExportJSON(t *testing.T) {
	s, id := exportSession(t)
	var b bytes.Buffer
	require.NoError(t, s.Export(context.Background(), id[:15], "json", &b))
	var ex Export
	require.NoError(t, json.Unmarshal(b.Bytes(), &ex))
	require.Equal(t, id, ex.ID)
	require.Equal(t, "Fix the bug in main.go", ex.Title)
	require.Len(t, ex.Messages, len(conversation())+3)
	want, err := json.Marshal(conversation()[1].Parts)
	require.NoError(t, err)
	got, err := json.Marshal(ex.Messages[1].Parts)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got)) // indenting reformats the arguments
	require.Equal(t, 1, ex.Messages[0].Seq)
	require.Equal(t, llm.RoleTool, ex.Messages[2].Role)
	require.Len(t, ex.Todos, 2)
	require.Equal(t, 70, ex.Usage.InputTokens)
	require.False(t, ex.CreatedAt.IsZero())
}

func TestExportErrors(t *testing.T) {
	s, id := exportSession(t)
	var b bytes.Buffer
	require.ErrorContains(t, s.Export(context.Background(), id, "html", &b), "use md or json")
	require.ErrorIs(t, s.Export(context.Background(), "s_zzzz", "md", &b), ErrNotFound)
	require.Zero(t, b.Len())
}

func TestWriteFenced(t *testing.T) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeFenced(w, "text", "a ``` b ```` c\n")
	require.NoError(t, w.Flush())
	require.Equal(t, "`````text\na ``` b ```` c\n`````\n", b.String())
}

func FuzzWriteFenced(f *testing.F) {
	for _, s := range []string{"", "```", "a\n```\nb", "````x`", "`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeFenced(w, "text", s)
		require.NoError(t, w.Flush())
		out := b.String()
		fence := out[:strings.Index(out, "text\n")]
		require.GreaterOrEqual(t, len(fence), 3)
		// The content never holds a backtick run as long as the fence.
		require.NotContains(t, s, fence)
		require.True(t, strings.HasSuffix(out, "\n"+fence+"\n"))
	})
}

func FuzzMakeTitle(f *testing.F) {
	for _, s := range []string{"", "hello", strings.Repeat("x ", 100), "\x00\xff", strings.Repeat("日本", 60)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		title := makeTitle(s)
		require.LessOrEqual(t, utf8.RuneCountInString(title), titleMax)
		require.NotContains(t, title, "\n")
		require.Equal(t, strings.TrimSpace(title), title)
		if utf8.ValidString(s) {
			require.True(t, utf8.ValidString(title))
		}
	})
}
