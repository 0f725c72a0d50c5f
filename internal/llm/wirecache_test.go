package llm

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// A turn encodes only the messages that are new or changed; a second
// conversation (a subagent) keeps its own lane; a nil cache encodes all.
func TestWireCacheEncodesOnlyWhatChanged(t *testing.T) {
	encoded := 0
	enc := func(m *Message) ([]byte, error) {
		encoded++
		return []byte(fmt.Sprintf("%q", m.Role+":"+Role(m.Text()))), nil
	}
	run := func(c *WireCache, msgs []Message, want int) {
		t.Helper()
		encoded = 0
		items, err := c.Encode(msgs, enc)
		if err != nil {
			t.Fatal(err)
		}
		if encoded != want || len(items) != len(msgs) {
			t.Fatalf("encoded %d of %d messages, want %d", encoded, len(msgs), want)
		}
		for i, it := range items {
			if want, _ := enc(&msgs[i]); !bytes.Equal(it.Bytes(), want) || it.Len() != len(want) {
				t.Fatalf("item %d = %s (len %d), want %s", i, it.Bytes(), it.Len(), want)
			}
		}
	}
	c := &WireCache{}
	conv := []Message{UserText("a"), AssistantText("b"), ToolResults(ToolResult{CallID: "1", Content: "x"})}
	run(c, conv, 3)
	run(c, conv, 0)
	conv = append(conv, UserText("d"))
	run(c, conv, 1)
	conv[1].Parts[0].Text = "B" // edited
	run(c, conv, 1)
	conv[2].Parts[0].ToolResult.Content = "y" // changed in place
	run(c, conv, 1)
	other := []Message{UserText("other"), AssistantText("o")}
	run(c, other, 2)
	run(c, conv, 0)
	run(c, conv[:2], 0) // compaction cut
	run(c, append([]Message{UserText("summary")}, conv[2:]...), 3)
	run(nil, conv, len(conv))
	run(c, conv, 2) // the lane was cut to two messages above
	for i := 0; i < staleAfter+1; i++ {
		run(c, conv, 0)
	}
	for i := range c.lanes {
		if l := &c.lanes[i]; l.used != c.clock && len(l.entries) > 0 {
			t.Fatalf("lane %d unused for %d requests still holds %d entries", i, c.clock-l.used, len(l.entries))
		}
	}
}

// A change made in place to a message's parts (a call's arguments, a
// second part's data, a tool call or result added or dropped) is seen and
// that message encoded again.
func TestWireCacheSeesChangesInPlace(t *testing.T) {
	encoded := 0
	enc := func(m *Message) ([]byte, error) {
		encoded++
		return []byte(fmt.Sprintf("%q", m.Role+":"+Role(m.Text()))), nil
	}
	c := &WireCache{}
	run := func(msgs []Message, want int) {
		t.Helper()
		encoded = 0
		if _, err := c.Encode(msgs, enc); err != nil || encoded != want {
			t.Fatalf("encoded %d of %d messages (%v), want %d", encoded, len(msgs), err, want)
		}
	}
	conv := []Message{UserText("a"), AssistantText("b"), ToolResults(ToolResult{CallID: "1", Content: "x"}), UserText("d")}
	run(conv, 4)
	conv = append(conv, Message{Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCall: &ToolCall{ID: "2", Name: "grep", Arguments: []byte(`{"a":1}`)}}}},
		Message{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "e"}, {Type: PartImage, MIMEType: "image/png", Data: []byte{1}}}})
	run(conv, 2)
	conv[4].Parts[0].ToolCall.Arguments[5] = '2' // a call's arguments changed in place
	run(conv, 1)
	conv[5].Parts[1].Data[0] = 2 // the second part of a message changed in place
	run(conv, 1)
	conv[5].Parts = conv[5].Parts[:1] // a part dropped
	run(conv, 1)
	conv[5].Parts[0].ToolResult = &ToolResult{CallID: "2", Content: "r"} // a result added to a text part in place
	run(conv, 1)
	conv[5].Parts[0].ToolCall = &ToolCall{ID: "3"} // and a call beside it
	run(conv, 1)
	run(conv, 0)
	conv[5].Parts[0].ToolCall.ID = "4"
	run(conv, 1)
	conv[5].Parts[0].ToolResult = nil
	run(conv, 1)
	conv = conv[:4]
	run(conv, 0)
}

// A spliced body is the head with the items as the field's array; a field
// that is not null at the top level is an error.
func TestSplicedBody(t *testing.T) {
	type head struct {
		A        string   `json:"a"`
		Messages []string `json:"messages"`
		Z        []string `json:"z"`
	}
	s := &Spliced{Head: head{A: `"messages":null`, Z: []string{"t"}}, Field: "messages", Items: []Wire{WireBytes([]byte(`"1"`)), {}, WireBytes([]byte(`"2","3"`))}}
	got, err := s.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":"\"messages\":null","messages":["1","2","3"],"z":["t"]}`
	if string(got) != want {
		t.Fatalf("body %s, want %s", got, want)
	}
	c, _ := s.encode()
	all, _ := io.ReadAll(c.reader())
	if string(all) != want || c.n != len(want) {
		t.Fatalf("reader gave %s (n %d)", all, c.n)
	}
	s.Items, s.KeepNull = []Wire{{}, {}}, true // no item: the null stays
	if got, _ := s.Bytes(); string(got) != `{"a":"\"messages\":null","messages":null,"z":["t"]}` {
		t.Fatalf("body without items %s", got)
	}
	s.KeepNull = false
	if got, _ := s.Bytes(); string(got) != `{"a":"\"messages\":null","messages":[],"z":["t"]}` {
		t.Fatalf("body without items %s", got)
	}
	s.Field = "z"
	if _, err := s.Bytes(); err == nil {
		t.Fatal("a non-null field was accepted")
	}
}

// Conversations encoded at once on one cache (a session and its
// subagents) each get their own messages' encodings.
func TestWireCacheConcurrent(t *testing.T) {
	c := &WireCache{}
	enc := func(m *Message) ([]byte, error) { return []byte(fmt.Sprintf("%q", m.Text())), nil }
	done := make(chan error, 6)
	for g := 0; g < 6; g++ {
		go func() {
			var conv []Message
			for i := 0; i < 50; i++ {
				conv = append(conv, UserText(fmt.Sprintf("g%d m%d", g, i)))
				items, err := c.Encode(conv, enc)
				if err == nil && string(items[i].Bytes()) != fmt.Sprintf("%q", conv[i].Text()) {
					err = fmt.Errorf("goroutine %d got %s for message %d", g, items[i].Bytes(), i)
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 6; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
