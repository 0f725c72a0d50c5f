package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/rewind"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestParseRewindScope(t *testing.T) {
	for in, want := range map[string]rewind.Scope{
		"": rewind.Both, "both": rewind.Both, "BOTH": rewind.Both, "--both": rewind.Both,
		"code": rewind.Code, "--code": rewind.Code, "files": rewind.Code,
		"conversation": rewind.Conversation, "--conversation": rewind.Conversation, "chat": rewind.Conversation,
	} {
		got, err := rewind.ParseScope(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := rewind.ParseScope("everything")
	require.ErrorContains(t, err, `unknown rewind scope "everything": use code, conversation or both`)
}

func TestWriteCheckpointsAndRewound(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteCheckpoints(&b, nil))
	require.Contains(t, b.String(), "no checkpoints in this session yet")

	b.Reset()
	when := time.Date(2026, 3, 4, 5, 6, 7, 0, time.Local)
	cps := []rewind.Checkpoint{
		{ID: "c1", Time: when, Prompt: "write the\nparser", Files: []string{"a.go", "b.go"}},
		{ID: "c2", Time: when.Add(time.Minute), Prompt: "", Files: nil},
	}
	require.NoError(t, WriteCheckpoints(&b, cps))
	out := b.String()
	require.Contains(t, out, "c1  2026-03-04 05:06:07  2      write the parser")
	require.Contains(t, out, "c2  2026-03-04 05:07:07  0      (no prompt)")
	require.Contains(t, out, "/rewind ID [code|conversation|both]")
	require.Equal(t, "c1  03-04 05:06:07  2 files  write the parser", CheckpointLine(cps[0]))

	b.Reset()
	WriteRewound(&b, "c1", Rewound{Scope: rewind.Both, Cut: true, Result: rewind.Result{
		Restored: []string{"a.go"}, Deleted: []string{"new.txt"}, Kept: []string{"big.bin"}, Messages: 2, Undo: "c9"}})
	require.Equal(t, "rewound to checkpoint c1 (code and conversation)\nrestored a.go\ndeleted new.txt (new since the checkpoint)\n"+
		"kept big.bin (ignored or over the size cap: never rewound)\n"+
		"conversation: cut back to 2 messages\nrewind again with /rewind c9 to undo this (the files; the conversation stays cut)\n", b.String())
	b.Reset()
	WriteRewound(&b, "c9", Rewound{Scope: rewind.Conversation, Result: rewind.Result{Messages: 2}})
	require.Equal(t, "rewound to checkpoint c9 (conversation only)\nconversation: unchanged (2 messages; this checkpoint is not before a prompt of it)\n", b.String())
	b.Reset()
	WriteRewound(&b, "c1", Rewound{Scope: rewind.Code})
	require.Contains(t, b.String(), "(code only)\nfiles: nothing to restore")
	require.NotContains(t, b.String(), "conversation:")

	require.Equal(t, "── rewound to before: write the parser ──", RewindMarker("write the\nparser"))
	require.Equal(t, "── conversation rewound ──", RewindMarker(" "))
}

func TestRewindCommandBadArguments(t *testing.T) {
	f := newFixture(t, "")
	_, _, err := f.exec(t, "/rewind c1 sideways")
	require.ErrorContains(t, err, `unknown rewind scope "sideways"`)
	_, _, err = f.exec(t, "/rewind c1 code extra")
	require.ErrorContains(t, err, "too many arguments: /rewind ID [code|conversation|both]")
	_, err = f.c.Rewind(context.Background(), " ", rewind.Both)
	require.ErrorContains(t, err, "name a checkpoint")
}

// writeTurns is a scripted model that writes notes.txt (first prompt),
// then rewrites it and adds new.txt (second prompt).
func writeTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"one\n"}`}}},
		{Text: "Wrote notes.txt."},
		{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"two\n"}`},
			{Name: "write_file", Args: `{"path":"new.txt","content":"new\n"}`}}},
		{Text: "Changed notes.txt and added new.txt."},
	}
}

func (f *fixture) run(t *testing.T, prompt string) {
	t.Helper()
	_, err := f.c.Run(context.Background(), []llm.Part{{Type: llm.PartText, Text: prompt}}, func(agent.Event) {})
	require.NoError(t, err)
}

func TestRewindListsAndRewindsBoth(t *testing.T) {
	f := newFixture(t, `permission_mode = "auto-edit"`, writeTurns()...)
	f.run(t, "first change")
	f.run(t, "second change")
	require.FileExists(t, filepath.Join(f.ws, "new.txt"))
	data, err := os.ReadFile(filepath.Join(f.ws, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "two\n", string(data))

	out, _ := f.mustExec(t, "/rewind")
	require.Contains(t, out, "first change")
	require.Contains(t, out, "second change")
	cps, err := f.c.Checkpoints(context.Background())
	require.NoError(t, err)
	var second rewind.Checkpoint
	for _, cp := range cps {
		if cp.Prompt == "second change" {
			second = cp
		}
	}
	require.NotEmpty(t, second.ID, "a checkpoint before the second prompt")

	out, o := f.mustExec(t, "/rewind "+second.ID)
	require.Contains(t, out, "rewound to checkpoint "+second.ID+" (code and conversation)")
	require.Contains(t, out, "restored notes.txt")
	require.Contains(t, out, "deleted new.txt (new since the checkpoint)")
	require.Contains(t, out, "rewind again with /rewind ")
	require.Equal(t, Outcome{Action: ActRewound, Arg: "second change"}, o)
	data, err = os.ReadFile(filepath.Join(f.ws, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "one\n", string(data))
	require.NoFileExists(t, filepath.Join(f.ws, "new.txt"))
	require.Len(t, f.c.Session().Messages, second.Messages, "the conversation is cut back to before the prompt")
	require.False(t, strings.Contains(lastUserText(f.c.Session().Messages), "second change"))

	undo := strings.Fields(strings.TrimPrefix(lastLine(out), "rewind again with /rewind "))[0]
	out, o = f.mustExec(t, "/rewind "+undo)
	require.Contains(t, out, "conversation: unchanged")
	require.Equal(t, Outcome{}, o, "the rewind's own checkpoint cuts no conversation: no marker, no prompt")
	data, err = os.ReadFile(filepath.Join(f.ws, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "two\n", string(data), "the rewind was undone")
	require.FileExists(t, filepath.Join(f.ws, "new.txt"))
}

func TestRewindConversationOnlyKeepsFiles(t *testing.T) {
	f := newFixture(t, `permission_mode = "auto-edit"`, writeTurns()[:2]...)
	f.run(t, "first change")
	cps, err := f.c.Checkpoints(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, cps)
	out, o := f.mustExec(t, "/rewind "+cps[0].ID+" conversation")
	require.Contains(t, out, "(conversation only)")
	require.NotContains(t, out, "restored")
	require.Equal(t, ActRewound, o.Action)
	require.FileExists(t, filepath.Join(f.ws, "notes.txt"), "files stay")
	require.Len(t, f.c.Session().Messages, cps[0].Messages)

	_, _, err = f.exec(t, "/rewind nosuchcheckpoint")
	require.ErrorIs(t, err, rewind.ErrUnknownCheckpoint)
	require.ErrorContains(t, err, "/rewind lists this session's checkpoints")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func lastUserText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser && msgs[i].Text() != "" {
			return msgs[i].Text()
		}
	}
	return ""
}
