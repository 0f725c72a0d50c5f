package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func openTest(t testing.TB) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, dir
}

func newSession(t testing.TB, s *Store, ws string) *agent.Conversation {
	t.Helper()
	sess, err := s.Create(context.Background(), ws, "anthropic", "claude-sonnet-4-5")
	require.NoError(t, err)
	return sess
}

// conversation has one message of every part type.
func conversation() []llm.Message {
	return []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{
			{Type: llm.PartText, Text: "Fix the bug in main.go"},
			{Type: llm.PartImage, MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xff}},
			{Type: llm.PartImage, URL: "https://example.com/a.png"},
		}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{
			{Type: llm.PartReasoning, Text: "Let me look.\n\nFirst main.go.", Signature: "sig-abc=="},
			{Type: llm.PartReasoning, Redacted: true, Signature: "opaque-data"},
			{Type: llm.PartReasoning, Text: "summary", ID: "rs_123", Signature: "enc"},
			{Type: llm.PartText, Text: "Reading the file."},
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_1", Name: "read_file",
				Arguments: json.RawMessage(`{"path":"main.go"}`), Signature: "gemini-sig"}},
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_2", Name: "bash",
				Arguments: json.RawMessage(`"not an object"`), ArgsError: "arguments are not a JSON object"}},
		}},
		{Role: llm.RoleTool, Parts: []llm.Part{
			{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "call_1", Name: "read_file", Content: "package main\n"}},
			{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "call_2", Name: "bash", Content: "bad args", IsError: true}},
		}},
		llm.AssistantText("Done: the bug was a missing return."),
	}
}

func TestRoundTripEveryPartType(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/work/proj")
	msgs := conversation()
	for i, m := range msgs {
		var u *llm.Usage
		if m.Role == llm.RoleAssistant {
			u = &llm.Usage{InputTokens: 100 * (i + 1), OutputTokens: 10}
		}
		require.NoError(t, s.AppendMessage(ctx, sess.ID, m, u))
	}
	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, sess.ID, got.ID)
	require.Equal(t, "/work/proj", got.Workspace)
	require.Equal(t, msgs, got.Messages)
}

func TestUsageAndCost(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	priced := s.Priced(func(u llm.Usage) float64 { return float64(u.InputTokens) / 1000 })
	u1 := llm.Usage{InputTokens: 1000, OutputTokens: 50, CacheReadTokens: 400, CacheWriteTokens: 100, ReasoningTokens: 20}
	u2 := llm.Usage{InputTokens: 2000, OutputTokens: 70, CacheReadTokens: 1500, ReasoningTokens: 5}
	require.NoError(t, priced.AppendMessage(ctx, sess.ID, llm.UserText("hi"), nil))
	require.NoError(t, priced.AppendMessage(ctx, sess.ID, llm.AssistantText("a"), &u1))
	require.NoError(t, priced.AppendMessage(ctx, sess.ID, llm.AssistantText("b"), &u2))
	// Without Priced no cost is added, but usage is.
	u3 := llm.Usage{InputTokens: 1, OutputTokens: 1}
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.AssistantText("c"), &u3))
	require.NoError(t, s.AddUsage(ctx, sess.ID, llm.Usage{InputTokens: 10, OutputTokens: 2}, 0.5))

	want := u1.Add(u2).Add(u3).Add(llm.Usage{InputTokens: 10, OutputTokens: 2})
	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, want, got.Usage)
	require.InDelta(t, 1.0+2.0+0.5, got.CostUSD, 1e-9)

	info, err := s.Info(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, want, info.Usage)
	require.Equal(t, 4, info.Messages)
	require.Equal(t, "hi", info.Title)

	// The per-message usage is kept for exports.
	var ex Export
	var b strings.Builder
	require.NoError(t, s.Export(ctx, sess.ID, "json", &b))
	require.NoError(t, json.Unmarshal([]byte(b.String()), &ex))
	require.Nil(t, ex.Messages[0].Usage)
	require.Equal(t, &u1, ex.Messages[1].Usage)
}

func TestUnknownSession(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	const id = "s_nosuchsession00000"
	checks := map[string]error{
		"append":     s.AppendMessage(ctx, id, llm.UserText("x"), nil),
		"replace":    s.ReplaceMessages(ctx, id, nil),
		"todos":      s.SaveTodos(ctx, id, nil),
		"usage":      s.AddUsage(ctx, id, llm.Usage{}, 0),
		"model":      s.SetModel(ctx, id, "p", "m"),
		"delete":     s.Delete(ctx, id),
		"read":       s.Tracker(id).RecordRead(ctx, "/a", tools.FileStamp{}),
		"checkpoint": s.Checkpoints(id).Save(ctx, "/a", nil, false),
	}
	for name, err := range checks {
		require.ErrorIs(t, err, ErrNotFound, name)
	}
	_, err := s.Load(ctx, id)
	require.ErrorIs(t, err, ErrNotFound)
	require.EqualError(t, err, `session "s_nosuchsession00000" not found: run aidex sessions list`)
	_, err = s.Undo(ctx, id)
	require.ErrorIs(t, err, ErrNotFound)
	_, err = s.Load(ctx, "  ")
	require.ErrorIs(t, err, ErrNotFound)
}

func TestMessageNeedsRole(t *testing.T) {
	s, _ := openTest(t)
	sess := newSession(t, s, "/w")
	err := s.AppendMessage(context.Background(), sess.ID, llm.Message{}, nil)
	require.ErrorContains(t, err, "no role")
}

func TestTitle(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	// An image-only user message gives no title; the next text does.
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser,
		Parts: []llm.Part{{Type: llm.PartImage, MIMEType: "image/png", Data: []byte{1}}}}, nil))
	long := "  Refactor   the\nparser " + strings.Repeat("é", 100)
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText(long), nil))
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("second"), nil))
	info, err := s.Info(ctx, sess.ID)
	require.NoError(t, err)
	require.Len(t, []rune(info.Title), 80)
	require.True(t, strings.HasPrefix(info.Title, "Refactor the parser éé"), info.Title)
	require.True(t, strings.HasSuffix(info.Title, "…"))
	require.Equal(t, "short one", makeTitle(" short\t one "))
}

func TestListLatestAndLimit(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	a1 := newSession(t, s, "/ws/a")
	b1 := newSession(t, s, "/ws/b")
	a2 := newSession(t, s, "/ws/a/")
	require.Equal(t, "/ws/a", a2.Workspace, "workspace is cleaned")
	for _, sess := range []*agent.Conversation{a1, b1, a2} { // a session without a message is never listed
		require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("hi"), nil))
	}

	list, err := s.List(ctx, ListOptions{Workspace: "/ws/a"})
	require.NoError(t, err)
	require.Equal(t, []string{a2.ID, a1.ID}, ids(list))

	all, err := s.List(ctx, ListOptions{All: true})
	require.NoError(t, err)
	require.Equal(t, []string{a2.ID, b1.ID, a1.ID}, ids(all))
	require.Equal(t, "anthropic", all[0].Provider)
	require.Equal(t, "claude-sonnet-4-5", all[0].Model)

	lim, err := s.List(ctx, ListOptions{All: true, Limit: 1})
	require.NoError(t, err)
	require.Equal(t, []string{a2.ID}, ids(lim))

	latest, err := s.Latest(ctx, "/ws/a")
	require.NoError(t, err)
	require.Equal(t, a2.ID, latest.ID)

	// Writing to the older session makes it the latest.
	require.NoError(t, s.AppendMessage(ctx, a1.ID, llm.UserText("again"), nil))
	latest, err = s.Latest(ctx, "/ws/a")
	require.NoError(t, err)
	require.Equal(t, a1.ID, latest.ID)
	require.Len(t, latest.Messages, 2)

	_, err = s.Latest(ctx, "/ws/none")
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorContains(t, err, "no session to continue in /ws/none")

	_, err = s.List(ctx, ListOptions{})
	require.ErrorContains(t, err, "not an absolute path")
	_, err = s.List(ctx, ListOptions{All: true, Limit: -1})
	require.Error(t, err)
	_, err = s.Create(ctx, "relative/dir", "p", "m")
	require.ErrorContains(t, err, "not an absolute path")
}

func ids(list []Summary) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = x.ID
	}
	return out
}

func TestPrefixIDs(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	// Fixed clock: both ids share their 12-byte time prefix.
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return at }
	a := newSession(t, s, "/w")
	b := newSession(t, s, "/w")
	require.Len(t, a.ID, IDLength)
	require.Equal(t, a.ID[:12], b.ID[:12])
	n := 13
	for a.ID[:n] == b.ID[:n] {
		n++
	}
	got, err := s.Load(ctx, a.ID[:n])
	require.NoError(t, err)
	require.Equal(t, a.ID, got.ID)
	got, err = s.Load(ctx, strings.TrimPrefix(b.ID[:n], IDPrefix))
	require.NoError(t, err)
	require.Equal(t, b.ID, got.ID)

	_, err = s.Load(ctx, a.ID[:12])
	require.ErrorIs(t, err, ErrAmbiguous)
	require.ErrorContains(t, err, "give more characters")

	// Prefix for the user-facing operations too.
	require.NoError(t, s.Delete(ctx, a.ID[:n]))
	_, err = s.Load(ctx, a.ID)
	require.ErrorIs(t, err, ErrNotFound)
	// Now the time prefix is unique.
	info, err := s.Info(ctx, b.ID[:12])
	require.NoError(t, err)
	require.Equal(t, b.ID, info.ID)
}

func TestNewIDSortsByTime(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	seen := map[string]bool{}
	prev := ""
	for i := 0; i < 1000; i++ {
		id := newID(t0.Add(time.Duration(i) * time.Millisecond))
		require.Len(t, id, IDLength)
		require.True(t, strings.HasPrefix(id, IDPrefix))
		for _, c := range id[2:] {
			require.Contains(t, idAlphabet, string(c))
		}
		require.Greater(t, id, prev)
		require.False(t, seen[id])
		seen[id], prev = true, id
	}
}

func count(t *testing.T, s *Store, table, id string) int {
	t.Helper()
	var n int
	require.NoError(t, s.db.QueryRow("SELECT COUNT(*) FROM "+table+" WHERE session_id = ?", id).Scan(&n))
	return n
}

func TestDeleteCascades(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	keep := newSession(t, s, "/w")
	for _, id := range []string{sess.ID, keep.ID} {
		require.NoError(t, s.AppendMessage(ctx, id, llm.UserText("x"), nil))
		require.NoError(t, s.Tracker(id).RecordRead(ctx, "/w/a", tools.StampOf([]byte("a"), time.Now())))
		require.NoError(t, s.Checkpoints(id).Save(ctx, "/w/a", []byte("a"), true))
	}
	for _, table := range []string{"messages", "reads", "checkpoints"} {
		require.Equal(t, 1, count(t, s, table, sess.ID), table)
	}
	require.NoError(t, s.Delete(ctx, sess.ID))
	for _, table := range []string{"messages", "reads", "checkpoints"} {
		require.Equal(t, 0, count(t, s, table, sess.ID), table)
		require.Equal(t, 1, count(t, s, table, keep.ID), table)
	}
	_, err := s.Load(ctx, sess.ID)
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorIs(t, s.Delete(ctx, sess.ID), ErrNotFound)
}

func TestReplaceMessages(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	u := llm.Usage{InputTokens: 500, OutputTokens: 20}
	for i := 0; i < 3; i++ {
		require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText(fmt.Sprint("q", i)), nil))
		require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.AssistantText(fmt.Sprint("a", i)), &u))
	}
	compacted := []llm.Message{llm.UserText("summary of q0..q1"), llm.UserText("q2"), llm.AssistantText("a2")}
	require.NoError(t, s.ReplaceMessages(ctx, sess.ID, compacted))
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("q3"), nil))

	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, append(compacted, llm.UserText("q3")), got.Messages)
	require.Equal(t, llm.Usage{InputTokens: 1500, OutputTokens: 60}, got.Usage, "usage survives compaction")
	info, err := s.Info(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, "q0", info.Title)

	var turn int
	require.NoError(t, s.db.QueryRow("SELECT turn FROM sessions WHERE id = ?", sess.ID).Scan(&turn))
	require.Equal(t, 4, turn, "the turn counter never goes back")

	require.NoError(t, s.ReplaceMessages(ctx, sess.ID, nil))
	got, err = s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Empty(t, got.Messages)
	require.ErrorContains(t, s.ReplaceMessages(ctx, sess.ID, []llm.Message{{}}), "no role")
}

func TestTodos(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Empty(t, got.Todos)

	todos := []agent.Todo{{Content: "read", Status: "completed"}, {Content: "fix", Status: "in_progress"}, {Content: "test", Status: "pending"}}
	require.NoError(t, s.SaveTodos(ctx, sess.ID, todos))
	got, err = s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, todos, got.Todos)

	require.NoError(t, s.SaveTodos(ctx, sess.ID, todos[:1]))
	got, err = s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, todos[:1], got.Todos)

	require.NoError(t, s.SaveTodos(ctx, sess.ID, nil))
	got, err = s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Empty(t, got.Todos)
}

func TestSetModel(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	require.NoError(t, s.SetModel(ctx, sess.ID, "openai", "gpt-5"))
	info, err := s.Info(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, "openai", info.Provider)
	require.Equal(t, "gpt-5", info.Model)
}

func TestReadTracker(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	a, b := newSession(t, s, "/w"), newSession(t, s, "/w")
	ta, tb := s.Tracker(a.ID), s.Tracker(b.ID)

	_, ok, err := ta.LastRead(ctx, "/w/f.go")
	require.NoError(t, err)
	require.False(t, ok)

	mtime := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.UTC)
	st := tools.StampOf([]byte("package f\n"), mtime)
	require.NoError(t, ta.RecordRead(ctx, "/w/f.go", st))
	got, ok, err := ta.LastRead(ctx, "/w/f.go")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, st.Size, got.Size)
	require.Equal(t, st.SHA256, got.SHA256)
	require.True(t, st.ModTime.Equal(got.ModTime), "%v != %v", st.ModTime, got.ModTime)
	require.True(t, got.SameContent(st))

	// Sessions do not see each other's reads.
	_, ok, err = tb.LastRead(ctx, "/w/f.go")
	require.NoError(t, err)
	require.False(t, ok)

	// A newer stamp replaces the old one; a zero mtime stays zero.
	st2 := tools.StampOf([]byte("package f // v2\n"), time.Time{})
	require.NoError(t, ta.RecordRead(ctx, "/w/f.go", st2))
	got, _, err = ta.LastRead(ctx, "/w/f.go")
	require.NoError(t, err)
	require.True(t, got.SameContent(st2))
	require.False(t, got.SameContent(st))
	require.True(t, got.ModTime.IsZero())

	require.NoError(t, ta.Forget(ctx, "/w/f.go"))
	require.NoError(t, ta.Forget(ctx, "/w/never-read"))
	_, ok, err = ta.LastRead(ctx, "/w/f.go")
	require.NoError(t, err)
	require.False(t, ok)
}

func TestCheckpointTurns(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	cp := s.Checkpoints(sess.ID)
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("t1"), nil))
	require.NoError(t, cp.Save(ctx, "/w/a", []byte("v0"), true))
	require.NoError(t, cp.Save(ctx, "/w/a", []byte("v1"), true)) // same turn: the first is kept
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.AssistantText("ok"), nil))
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("t2"), nil))
	require.NoError(t, cp.Save(ctx, "/w/a", []byte("v2"), true))
	require.NoError(t, cp.Save(ctx, "/w/b", nil, false))

	rows, err := s.db.Query("SELECT turn, path, existed, content FROM checkpoints WHERE session_id = ? ORDER BY id", sess.ID)
	require.NoError(t, err)
	defer rows.Close()
	var got []string
	for rows.Next() {
		var (
			turn    int
			path    string
			existed bool
			content []byte
		)
		require.NoError(t, rows.Scan(&turn, &path, &existed, &content))
		got = append(got, fmt.Sprintf("%d %s %v %q %v", turn, path, existed, content, content == nil))
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{
		`1 /w/a true "v0" false`,
		`2 /w/a true "v2" false`,
		`2 /w/b false "" true`,
	}, got)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// change saves a checkpoint of path and then writes content, as a tool does.
func change(t *testing.T, cp tools.Checkpointer, path, content string) {
	t.Helper()
	old, err := os.ReadFile(path)
	existed := err == nil
	if !existed {
		require.ErrorIs(t, err, os.ErrNotExist)
	}
	require.NoError(t, cp.Save(context.Background(), path, old, existed))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestUndoTwoTurns(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	ws := t.TempDir()
	sess := newSession(t, s, ws)
	cp := s.Checkpoints(sess.ID)
	a, b, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt"), filepath.Join(ws, "sub", "c.txt")
	require.NoError(t, os.WriteFile(a, []byte("v0"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Dir(c), 0o755))

	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("turn 1"), nil))
	change(t, cp, a, "v1")
	change(t, cp, b, "new b")
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("turn 2"), nil))
	change(t, cp, a, "v2")
	change(t, cp, a, "v3")
	change(t, cp, c, "new c")
	// A turn without changes is skipped by undo.
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("turn 3: just talk"), nil))

	restored, err := s.Undo(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, []string{a, c}, restored)
	require.Equal(t, "v1", readFile(t, a))
	require.Equal(t, "new b", readFile(t, b))
	require.NoFileExists(t, c)
	fi, err := os.Stat(a)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the file's mode is kept")

	restored, err = s.Undo(ctx, sess.ID[:14])
	require.NoError(t, err)
	require.Equal(t, []string{a, b}, restored)
	require.Equal(t, "v0", readFile(t, a))
	require.NoFileExists(t, b)

	_, err = s.Undo(ctx, sess.ID)
	require.ErrorIs(t, err, ErrNothingToUndo)

	// Messages are untouched by undo.
	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Len(t, got.Messages, 3)
}

func TestUndoRestoresDeletedFileAndEmptyContent(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	ws := t.TempDir()
	sess := newSession(t, s, ws)
	cp := s.Checkpoints(sess.ID)
	gone, empty := filepath.Join(ws, "dir", "gone.txt"), filepath.Join(ws, "empty.txt")
	require.NoError(t, cp.Save(ctx, gone, []byte("keep me"), true))
	require.NoError(t, cp.Save(ctx, empty, nil, true))
	require.NoError(t, os.WriteFile(empty, []byte("filled"), 0o644))

	restored, err := s.Undo(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, []string{gone, empty}, restored)
	require.Equal(t, "keep me", readFile(t, gone))
	require.Equal(t, "", readFile(t, empty))
}

func TestUndoFailureKeepsCheckpoints(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	ws := t.TempDir()
	sess := newSession(t, s, ws)
	cp := s.Checkpoints(sess.ID)
	ok, blocked := filepath.Join(ws, "ok.txt"), filepath.Join(ws, "blocked", "x.txt")
	require.NoError(t, cp.Save(ctx, ok, []byte("old ok"), true))
	require.NoError(t, cp.Save(ctx, blocked, []byte("old x"), true))
	// "blocked" is now a file, so blocked/x.txt cannot be written.
	require.NoError(t, os.WriteFile(filepath.Join(ws, "blocked"), nil, 0o644))

	restored, err := s.Undo(ctx, sess.ID)
	require.Error(t, err)
	require.ErrorContains(t, err, blocked)
	require.Equal(t, []string{ok}, restored)
	require.Equal(t, "old ok", readFile(t, ok))
	require.Equal(t, 2, count(t, s, "checkpoints", sess.ID), "kept for a retry")

	require.NoError(t, os.Remove(filepath.Join(ws, "blocked")))
	restored, err = s.Undo(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, []string{ok, blocked}, restored)
	require.Equal(t, "old x", readFile(t, blocked))
	require.Equal(t, 0, count(t, s, "checkpoints", sess.ID))
}

func TestConcurrentAppend(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	const workers, each = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*3)
	for w := 0; w < workers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				u := llm.Usage{InputTokens: 1, OutputTokens: 2}
				errs <- s.AppendMessage(ctx, sess.ID, llm.AssistantText(fmt.Sprintf("w%d-%d", w, i)), &u)
			}
		}()
		go func() { // concurrent readers
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := s.Load(ctx, sess.ID)
				errs <- err
				_, err = s.List(ctx, ListOptions{All: true})
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Len(t, got.Messages, workers*each)
	require.Equal(t, llm.Usage{InputTokens: workers * each, OutputTokens: 2 * workers * each}, got.Usage)
	texts := map[string]bool{}
	for _, m := range got.Messages {
		texts[m.Text()] = true
	}
	require.Len(t, texts, workers*each)
	var minSeq, maxSeq int
	require.NoError(t, s.db.QueryRow("SELECT MIN(seq), MAX(seq) FROM messages WHERE session_id = ?", sess.ID).Scan(&minSeq, &maxSeq))
	require.Equal(t, 1, minSeq)
	require.Equal(t, workers*each, maxSeq)
}

func TestTwoStoresOneFile(t *testing.T) {
	// Two aidex processes share the file: writes wait for each other.
	s1, dir := openTest(t)
	s2, err := Open(context.Background(), dir)
	require.NoError(t, err)
	defer s2.Close()
	ctx := context.Background()
	sess := newSession(t, s1, "/w")
	var wg sync.WaitGroup
	for _, st := range []*Store{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				require.NoError(t, st.AppendMessage(ctx, sess.ID, llm.UserText("x"), nil))
			}
		}()
	}
	wg.Wait()
	got, err := s2.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Len(t, got.Messages, 40)
}

func TestReopenKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir)
	require.NoError(t, err)
	sess := newSession(t, s, "/w")
	for _, m := range conversation() {
		require.NoError(t, s.Priced(func(llm.Usage) float64 { return 0.25 }).AppendMessage(ctx, sess.ID, m, &llm.Usage{InputTokens: 3}))
	}
	todos := []agent.Todo{{Content: "x", Status: "pending"}}
	require.NoError(t, s.SaveTodos(ctx, sess.ID, todos))
	st := tools.StampOf([]byte("abc"), time.Unix(100, 5))
	require.NoError(t, s.Tracker(sess.ID).RecordRead(ctx, "/w/x", st))
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, s.Checkpoints(sess.ID).Save(ctx, file, []byte("before"), true))
	before, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = Open(ctx, dir)
	require.NoError(t, err)
	defer s.Close()
	after, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.Equal(t, conversation(), after.Messages)
	require.Equal(t, todos, after.Todos)
	require.InDelta(t, 1.0, after.CostUSD, 1e-9)
	got, ok, err := s.Tracker(sess.ID).LastRead(ctx, "/w/x")
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, got.SameContent(st))
	restored, err := s.Undo(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, []string{file}, restored)
	require.Equal(t, "before", readFile(t, file))
}

func TestMigrationsIdempotent(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("kept"), nil))

	// The recorded schema version is the newest migration's.
	p, err := newMigrator(s.db)
	require.NoError(t, err)
	srcs := p.ListSources()
	require.Equal(t, int64(schemaVersion), srcs[len(srcs)-1].Version)
	cur, err := p.GetDBVersion(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(schemaVersion), cur)
	// Running goose again applies nothing.
	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Empty(t, res)

	// Forget the fast-path marker: Open runs goose again, which applies
	// nothing, and the data is intact.
	_, err = s.db.Exec("PRAGMA user_version = 0")
	require.NoError(t, err)
	s2, err := Open(ctx, dir)
	require.NoError(t, err)
	defer s2.Close()
	v, err := s2.userVersion(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(schemaVersion), v)
	got, err := s2.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, "kept", got.Messages[0].Text())
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, "")
	require.ErrorContains(t, err, "no data directory")

	notDB := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notDB, FileName), []byte(strings.Repeat("not sqlite ", 100)), 0o600))
	_, err = Open(ctx, notDB)
	require.Error(t, err)
	require.ErrorContains(t, err, filepath.Join(notDB, FileName))

	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	_, err = Open(ctx, blocked)
	require.ErrorContains(t, err, "create data directory")

	newer := t.TempDir()
	s, err := Open(ctx, newer)
	require.NoError(t, err)
	_, err = s.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", schemaVersion+1))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = Open(ctx, newer)
	require.ErrorContains(t, err, "upgrade aidex")
}

func TestOpenSettings(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	// Several connections: each must carry the pragmas.
	conns := make([]interface{ Close() error }, 0, 3)
	for i := 0; i < 3; i++ {
		c, err := s.db.Conn(ctx)
		require.NoError(t, err)
		conns = append(conns, c)
		var mode string
		var sync, fk, busy int
		require.NoError(t, c.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode))
		require.NoError(t, c.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync))
		require.NoError(t, c.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk))
		require.NoError(t, c.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy))
		require.Equal(t, "wal", mode)
		require.Equal(t, 2, sync, "synchronous=FULL")
		require.Equal(t, 1, fk)
		require.Equal(t, busyTimeoutMS, busy)
	}
	for _, c := range conns {
		require.NoError(t, c.Close())
	}
	fi, err := os.Stat(filepath.Join(dir, FileName))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.Equal(t, filepath.Join(dir, FileName), s.Path())
}

func TestOpenOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "we?ird #dir%20x")
	s, err := Open(context.Background(), dir)
	require.NoError(t, err)
	defer s.Close()
	newSession(t, s, "/w")
	require.FileExists(t, filepath.Join(dir, FileName))
}

func TestClosedStore(t *testing.T) {
	s, err := Open(context.Background(), t.TempDir())
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = s.Create(context.Background(), "/w", "p", "m")
	require.Error(t, err)
}

func TestCancelledContext(t *testing.T) {
	s, _ := openTest(t)
	sess := newSession(t, s, "/w")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.AppendMessage(ctx, sess.ID, llm.UserText("x"), nil)
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
}
