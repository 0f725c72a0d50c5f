package gemini

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// FuzzReadStream feeds arbitrary bodies to the stream reader: it must never
// panic, must fail with an *llm.APIError or succeed, and a success must mean
// a finishReason was seen and every tool call has an id and object
// arguments.
func FuzzReadStream(f *testing.F) {
	for _, seed := range []string{
		chunkHello + chunkStop,
		chunkHello + chunkCall,
		`[{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":1}]}]`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}` +
			`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[1].b","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}` +
			`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`,
		"data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\n\n",
		"data: {\"error\":{\"code\":500,\"message\":\"x\"}}\n\n",
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\",\"thoughtSignature\":\"s\"}]},\"finishReason\":\"STOP\"}]}\n\n",
		"<html>",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		st := newState(llm.NewAccumulator(nil), "gemini", func() string { return "call_1" })
		err := st.readStream(strings.NewReader(body))
		if err != nil {
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T) is not an *llm.APIError", err, err)
			}
			return
		}
		if !st.finished {
			t.Fatal("success without a finishReason")
		}
		for _, p := range st.msg.done() {
			if p.Type == llm.PartToolCall {
				if p.ToolCall.ID == "" || !json.Valid(p.ToolCall.Arguments) {
					t.Fatalf("bad call %+v", p.ToolCall)
				}
			}
		}
	})
}

// FuzzConvertSchema checks that schema conversion never panics and returns
// an object schema (or nil) for any input.
func FuzzConvertSchema(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"$defs":{"N":{"properties":{"n":{"$ref":"#/$defs/N"}}}},"properties":{"x":{"$ref":"#/$defs/N"}}}`,
		`{"properties":{"x":{"anyOf":[{"type":"null"},{"allOf":[{"$ref":"#"}]}]}}}`,
		`{"properties":{"e":{"enum":[1,"a",null],"const":{"x":1}}}}`,
		`[]`, `1`, `{"type":"string"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := ConvertSchema(json.RawMessage(in))
		if err == nil && out != nil && out["type"] != "OBJECT" {
			t.Fatalf("root type %v", out["type"])
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
		clean, err := CleanJSONSchema(json.RawMessage(in))
		if err == nil && clean != nil && !json.Valid(clean) {
			t.Fatalf("CleanJSONSchema gave invalid JSON %s", clean)
		}
	})
}

// FuzzPartialArgs applies arbitrary JSON paths and values: never a panic,
// always a JSON object out.
func FuzzPartialArgs(f *testing.F) {
	for _, seed := range []string{"$.a", "$.a.b[0]", "$['x y'][2]", `$["q"]`, "$[0]", "$..", "$.a[99999]", "$['unterminated"} {
		f.Add(seed, "v", true)
	}
	f.Fuzz(func(t *testing.T, path, value string, cont bool) {
		p := &partialCall{}
		v := value
		p.add(&inFunctionCall{PartialArgs: []partialArg{{JSONPath: path, StringValue: &v, WillContinue: cont}}}, "")
		p.add(&inFunctionCall{PartialArgs: []partialArg{{JSONPath: path, StringValue: &v}}}, "")
		args := p.arguments()
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil {
			t.Fatalf("arguments %s: %v", args, err)
		}
	})
}
