package ollama

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// FuzzStream feeds arbitrary bodies to the NDJSON reader: it must never
// panic, must fail only with an *llm.APIError, must fail whenever no
// `done: true` line was read, and its events must add up to the response.
func FuzzStream(f *testing.F) {
	f.Add([]byte(lines(textLine, doneLine)))
	f.Add([]byte(lines(`{"message":{"thinking":"t","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}},{"function":{"name":"g","arguments":"{\"b\":2}"}}]},"done":false}`, doneLine)))
	f.Add([]byte(lines(`{"error":{"message":"x","code":429}}`)))
	f.Add([]byte(`{"message":{"content":"cut`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var text strings.Builder
		finished := false
		acc := llm.NewAccumulator(func(e llm.Event) {
			switch e.Type {
			case llm.EventText:
				text.WriteString(e.Text)
			case llm.EventUsage:
				finished = true
			}
		})
		err := readStream(bytes.NewReader(body), acc, "fuzz")
		var ae *llm.APIError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("error %v is not an APIError", err)
		}
		if err == nil && !finished {
			t.Fatal("no error, yet no done line was read")
		}
		if got := acc.Response().Message.Text(); got != text.String() {
			t.Fatalf("events %q, response %q", text.String(), got)
		}
	})
}

// BenchmarkReadStream measures decoding a 2000-line answer (no HTTP).
func BenchmarkReadStream(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		sb.WriteString(`{"model":"qwen3:8b","created_at":"2025-08-20T13:48:23.241046Z","message":{"role":"assistant","content":"tok` + strconv.Itoa(i) + ` "},"done":false}` + "\n")
	}
	sb.WriteString(doneLine + "\n")
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := readStream(bytes.NewReader(body), llm.NewAccumulator(nil), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
