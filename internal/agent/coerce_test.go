package agent

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// An engine tool's string parameter sent as a number ({"id": 1}, ayder-cli's
// show_task habit) reaches the tool as a string; nothing else changes.
func TestCoerceStrings(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"n":{"type":"integer"},"tags":{"type":"array"}}}`)
	for _, c := range []struct{ in, want string }{
		{`{"id": 1}`, `{"id":"1"}`},
		{`{"id": -7, "n": 3}`, `{"id":"-7","n":3}`},
		{`{"id": 1.5}`, `{"id":"1.5"}`},
		{`{"id": 1e3}`, `{"id":"1e3"}`},
		{`{"id": "T-001"}`, `{"id": "T-001"}`},
		{`{"id": true}`, `{"id": true}`},
		{`{"n": 2}`, `{"n": 2}`},
		{`{"other": 2}`, `{"other": 2}`},
		{`not json`, `not json`},
		{`{}`, `{}`},
	} {
		got := coerceStrings(schema, json.RawMessage(c.in))
		require.Equal(t, c.want, string(got), c.in)
	}
	require.Equal(t, `{"id": 1}`, string(coerceStrings(json.RawMessage(`nope`), json.RawMessage(`{"id": 1}`))))
}

// FuzzCoerceStrings: valid arguments stay valid JSON.
func FuzzCoerceStrings(f *testing.F) {
	f.Add(`{"id": 1, "x": [1]}`)
	f.Add(`{"id": -0.0e-5}`)
	schema := json.RawMessage(`{"properties":{"id":{"type":"string"},"x":{"type":"string"}}}`)
	f.Fuzz(func(t *testing.T, args string) {
		out := coerceStrings(schema, json.RawMessage(args))
		if json.Valid([]byte(args)) && !json.Valid(out) {
			t.Fatalf("%s became invalid: %s", args, out)
		}
	})
}
