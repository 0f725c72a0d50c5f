package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

func TestPromptPartsRefusesWhatAidexCannotTake(t *testing.T) {
	cases := []struct {
		name  string
		block sdk.ContentBlock
		want  string
	}{
		{"audio", sdk.AudioBlock("AAAA", "audio/wav"), "audio is not supported"},
		{"bad image", sdk.ImageBlock("not base64!", "image/png"), "image data is not base64"},
		{"binary resource", sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Uri: "file:///x.zip", Blob: "AAAA", MimeType: sdk.Ptr("application/zip")}}), "only as images"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := promptParts([]sdk.ContentBlock{sdk.TextBlock("hi"), c.block})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "prompt block 2") {
				t.Errorf("error %v, want one naming block 2 and %q", err, c.want)
			}
		})
	}
}

func TestPromptPartsConvertsBlocks(t *testing.T) {
	parts, err := promptParts([]sdk.ContentBlock{
		sdk.TextBlock("look"),
		sdk.ImageBlock("aGk=", "image/png"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.go", Text: "package a"}}),
		sdk.ResourceLinkBlock("b.go", "file:///w/b.go"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 4 || parts[1].Type != llm.PartImage || string(parts[1].Data) != "hi" ||
		!strings.Contains(parts[2].Text, `<file uri="file:///w/a.go">`) || !strings.Contains(parts[2].Text, "package a") ||
		!strings.Contains(parts[3].Text, "file:///w/b.go") {
		t.Errorf("parts %+v", parts)
	}
}

func TestToolKinds(t *testing.T) {
	cases := map[string]struct {
		name, kind string
		want       sdk.ToolKind
	}{
		"read":    {"read_file", "read", sdk.ToolKindRead},
		"edit":    {"edit_file", "write", sdk.ToolKindEdit},
		"delete":  {"delete_file", "write", sdk.ToolKindDelete},
		"move":    {"move_file", "write", sdk.ToolKindMove},
		"search":  {"search_files", "read", sdk.ToolKindSearch},
		"execute": {"run_command", "exec", sdk.ToolKindExecute},
		"think":   {"todo_write", "other", sdk.ToolKindThink},
		"fetch":   {"web_fetch", "network", sdk.ToolKindFetch},
		"other":   {"mcp__x__y", "other", sdk.ToolKindOther},
	}
	for name, c := range cases {
		if got := toolKind(c.name, c.kind); got != c.want {
			t.Errorf("%s: toolKind(%s, %s) = %s, want %s", name, c.name, c.kind, got, c.want)
		}
	}
}

func TestStopReasons(t *testing.T) {
	cases := []struct {
		d    *agent.DoneInfo
		want sdk.StopReason
	}{
		{&agent.DoneInfo{StopReason: agent.StopDone, FinishReason: "stop"}, sdk.StopReasonEndTurn},
		{&agent.DoneInfo{StopReason: agent.StopDone, FinishReason: "max_tokens"}, sdk.StopReasonMaxTokens},
		{&agent.DoneInfo{StopReason: agent.StopDone, FinishReason: "SAFETY"}, sdk.StopReasonRefusal},
		{&agent.DoneInfo{StopReason: agent.StopMaxTurns}, sdk.StopReasonMaxTurnRequests},
		{&agent.DoneInfo{StopReason: agent.StopCancelled}, sdk.StopReasonCancelled},
	}
	for _, c := range cases {
		if got := stopReason(c.d); got != c.want {
			t.Errorf("stopReason(%+v) = %s, want %s", c.d, got, c.want)
		}
	}
}

func TestViewOfAMove(t *testing.T) {
	s := &session{kinds: map[string]string{"move_file": "write"}}
	v := s.view(&agent.ToolCallInfo{ID: "c1", Name: "move_file", Arguments: []byte(`{"source":"a.txt","destination":"sub/b.txt"}`)}, "/ws")
	if v.kind != sdk.ToolKindMove || v.title != "move_file a.txt → sub/b.txt" || len(v.locations) != 2 ||
		v.locations[0].Path != "/ws/a.txt" || v.locations[1].Path != "/ws/sub/b.txt" {
		t.Errorf("view %+v", v)
	}
}

func TestViewOfARead(t *testing.T) {
	s := &session{kinds: map[string]string{"read_file": "read"}}
	v := s.view(&agent.ToolCallInfo{ID: "c1", Name: "read_file", Arguments: []byte(`{"path":"/ws/a.go","offset":40}`)}, "/ws")
	if v.kind != sdk.ToolKindRead || len(v.locations) != 1 || v.locations[0].Line == nil || *v.locations[0].Line != 40 || v.diff != nil {
		t.Errorf("view %+v", v)
	}
}
