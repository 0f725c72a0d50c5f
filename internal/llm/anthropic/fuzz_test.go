package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// checkResponse asserts the invariants every decoded answer keeps, whatever
// the bytes: tool calls carry a JSON object or an ArgsError, and the events
// add up to the response.
func checkResponse(t *testing.T, acc *llm.Accumulator, text, reasoning string) {
	t.Helper()
	resp := acc.Response()
	for _, c := range resp.Message.ToolCalls() {
		if c.ArgsError == "" && (!json.Valid(c.Arguments) || !bytes.HasPrefix(bytes.TrimSpace(c.Arguments), []byte("{"))) {
			t.Fatalf("tool call arguments %q are not a JSON object and carry no ArgsError", c.Arguments)
		}
	}
	if resp.Message.Text() != text || resp.Message.Reasoning() != reasoning {
		t.Fatalf("events do not add up to the response")
	}
}

func collect() (*llm.Accumulator, *strings.Builder, *strings.Builder) {
	var text, reasoning strings.Builder
	acc := llm.NewAccumulator(func(e llm.Event) {
		switch e.Type {
		case llm.EventText:
			text.WriteString(e.Text)
		case llm.EventReasoning:
			reasoning.WriteString(e.Text)
		}
	})
	return acc, &text, &reasoning
}

func FuzzReadStream(f *testing.F) {
	f.Add(sseBody(evStart, evText0, evHello, evStop0, evDelta, evEnd))
	f.Add(sseBody(evStart, evOver))
	f.Add(sseBody(evStart,
		`content_block_start {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"[1,"}}`,
		`content_block_stop {"type":"content_block_stop","index":2}`, evEnd))
	f.Add(sseBody(`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"a"}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`,
		`content_block_stop {"type":"content_block_stop","index":0}`, evEnd))
	f.Add("data: {\"type\":\"message_stop\"}\n\n")
	f.Add("event: error\ndata: not json\n\n")
	f.Add("data: {\"type\":\"content_block_delta\",\"index\":-99999999999,\"delta\":null}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		acc, text, reasoning := collect()
		err := readStream(strings.NewReader(body), acc, "anthropic")
		if err != nil {
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *llm.APIError", err)
			}
		}
		checkResponse(t, acc, text.String(), reasoning.String())
	})
}

func FuzzReadMessage(f *testing.F) {
	f.Add(`{"id":"m","model":"x","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"n","input":{"a":1}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}}`)
	f.Add(`{"content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"redacted_thinking","data":"d"},{"type":"tool_use","input":"str"}]}`)
	f.Add(body529)
	f.Add(`{"content":null,"usage":null}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, body string) {
		acc, text, reasoning := collect()
		err := readMessage(strings.NewReader(body), acc, "anthropic")
		if err != nil {
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *llm.APIError", err)
			}
		}
		checkResponse(t, acc, text.String(), reasoning.String())
	})
}

// FuzzBuildRequest checks that any conversation encodes to JSON the API
// would accept structurally: alternating roles, no empty message, tool
// results first in user messages, at most 4 cache breakpoints, and
// tool_use inputs that are JSON objects.
func FuzzBuildRequest(f *testing.F) {
	f.Add("hi", "call.1", `{"a":1}`, "sig", true, uint8(7))
	f.Add("", "", `"x"`, "", false, uint8(0))
	f.Add("t", "id", `[1]`, "s", true, uint8(255))
	f.Fuzz(func(t *testing.T, text, id, args, sig string, cache bool, shape uint8) {
		msgs := fuzzConversation(text, id, args, sig, shape)
		wr, err := buildRequest(&llm.Request{Model: "m", System: text, Messages: msgs, Tools: []llm.Tool{{Name: "n"}}, CacheControl: cache})
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(wr)
		if err != nil {
			t.Fatal(err)
		}
		var generic any
		if err := json.Unmarshal(data, &generic); err != nil {
			t.Fatal(err)
		}
		if n := countBreakpoints(generic); n > 4 {
			t.Fatalf("%d cache breakpoints", n)
		}
		for i := range wr.Messages {
			checkWireMessage(t, wr.Messages, i)
		}
	})
}

// fuzzConversation builds eight messages from the fuzzer's values: where
// bit i of shape is 0, a user text; otherwise, by i%3, an assistant turn
// (reasoning, text and a tool call), tool results, or a user image.
func fuzzConversation(text, id, args, sig string, shape uint8) []llm.Message {
	var msgs []llm.Message
	for i := range 8 {
		if shape&(1<<i) == 0 {
			msgs = append(msgs, llm.UserText(text))
			continue
		}
		switch i % 3 {
		case 0:
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartReasoning, Text: text, Signature: sig},
				{Type: llm.PartText, Text: text},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "n", Arguments: json.RawMessage(args)}},
			}})
		case 1:
			msgs = append(msgs, llm.ToolResults(llm.ToolResult{CallID: id, Content: text}))
		default:
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartImage, Data: []byte(text)}}})
		}
	}
	return msgs
}

// checkWireMessage checks message i of an encoded request: not empty, not
// the role of the one before, tool results before any other block,
// tool_use inputs that are JSON objects, no empty text block, and tool ids
// the API accepts.
func checkWireMessage(t *testing.T, msgs []wireMessage, i int) {
	m := msgs[i]
	if len(m.Content) == 0 {
		t.Fatalf("message %d is empty", i)
	}
	if i > 0 && msgs[i-1].Role == m.Role {
		t.Fatalf("messages %d and %d share role %s", i-1, i, m.Role)
	}
	seenOther := false
	for _, b := range m.Content {
		switch b.Type {
		case "tool_result":
			if seenOther {
				t.Fatalf("message %d: tool_result after another block", i)
			}
		case "tool_use":
			if !json.Valid(b.Input) || b.Input[0] != '{' {
				t.Fatalf("tool_use input %q is not an object", b.Input)
			}
			fallthrough
		default:
			seenOther = true
		}
		if b.Type == "text" && b.Text == "" {
			t.Fatalf("empty text block")
		}
		if b.ID != "" && toolID(b.ID) != b.ID || b.ToolUseID != "" && toolID(b.ToolUseID) != b.ToolUseID {
			t.Fatalf("invalid tool id in %+v", b)
		}
	}
}
