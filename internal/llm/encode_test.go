package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// encodeJSON writes what encoding/json's Marshal writes, byte for byte:
// HTML-escaped strings, compacted raw messages, omitempty, nil slices and
// maps as null, map keys sorted, floats, json.Number and MarshalJSON
// methods. Invalid UTF-8 becomes the same U+FFFD, written unescaped.
func TestEncodeJSONMatchesMarshal(t *testing.T) {
	type part struct {
		Type string          `json:"type"`
		Text string          `json:"text,omitempty"`
		Args json.RawMessage `json:"arguments,omitempty"`
	}
	type req struct {
		Model    string            `json:"model"`
		Messages []part            `json:"messages"`
		Tools    []json.RawMessage `json:"tools,omitempty"`
		Nil      []string          `json:"nil"`
		Meta     map[string]any    `json:"meta,omitempty"`
		Temp     *float64          `json:"temperature,omitempty"`
		Max      int               `json:"max_tokens,omitempty"`
		Stream   bool              `json:"stream"`
	}
	temp := 0.1
	values := []any{
		req{Model: "m", Messages: []part{{Type: "text", Text: "<b>&\"x\"</b>\u2028\n\t\x00 é 😀"},
			{Type: "tool", Args: json.RawMessage("{ \"a\" : [1, 2] ,\n \"b\": \"<>\" }")}},
			Tools: []json.RawMessage{json.RawMessage(`{"name":"read_file"}`)},
			Meta:  map[string]any{"z": 1, "a": []any{1.5, 1e21, 1e-7, "s", nil, true}}, Temp: &temp, Stream: true},
		req{},
		map[string]any{"float": math.MaxFloat64, "small": 5e-324, "neg": -0.0},
		[]any{json.Number("12.50"), uint64(math.MaxUint64), int64(math.MinInt64)},
	}
	for i, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		c, err := encodeJSON(v)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		if got := c.bytes(); string(got) != string(want) {
			t.Errorf("value %d:\ngot  %s\nwant %s", i, got, want)
		}
	}
	if c, err := encodeJSON("a\xffb"); err != nil || string(c.bytes()) != "\"a\uFFFDb\"" {
		t.Errorf("invalid UTF-8: got %v; want the string with U+FFFD", err)
	}
	if _, err := encodeJSON(map[string]any{"f": math.NaN()}); err == nil {
		t.Error("NaN encoded without an error, as Marshal refuses it")
	}
}

// A request body of several chunks arrives whole, with its length in
// Content-Length (not chunked), and again after a 307 redirect.
func TestPostJSONSendsChunkedBodyWhole(t *testing.T) {
	big := strings.Repeat("x<y>", 3*chunkSize/4+123) // about 3 chunks
	want, _ := json.Marshal(map[string]string{"text": big})
	var got [][]byte
	var lengths []int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, lengths = append(got, b), append(lengths, r.ContentLength)
		if len(r.TransferEncoding) > 0 {
			t.Errorf("body sent with Transfer-Encoding %v, want a Content-Length", r.TransferEncoding)
		}
		if r.URL.Path == "/first" {
			http.Redirect(w, r, "/second", http.StatusTemporaryRedirect)
			return
		}
		_, _ = w.Write([]byte("{}"))
	}))
	defer srv.Close()
	o := &Options{Name: "test"}
	b, _, err := PostJSON(context.Background(), o, srv.URL+"/first", map[string]string{"text": big}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if len(got) != 2 {
		t.Fatalf("server saw %d requests, want 2 (the redirect re-sends the body)", len(got))
	}
	for i := range got {
		if !bytes.Equal(got[i], want) || lengths[i] != int64(len(want)) {
			t.Errorf("request %d: %d bytes (Content-Length %d), want %d bytes equal to json.Marshal's", i, len(got[i]), lengths[i], len(want))
		}
	}
}

// Writes of any size land in order across chunk boundaries.
func TestChunksWrite(t *testing.T) {
	var c chunks
	var want []byte
	for i, n := range []int{1, chunkSize - 1, 2, 3 * chunkSize, 0, 17} {
		p := bytes.Repeat([]byte{byte('a' + i)}, n)
		if k, err := c.Write(p); k != n || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", n, k, err)
		}
		want = append(want, p...)
	}
	got, _ := io.ReadAll(c.reader())
	if !bytes.Equal(got, want) || c.n != len(want) || !bytes.Equal(c.bytes(), want) {
		t.Fatalf("read back %d bytes (n=%d), want %d", len(got), c.n, len(want))
	}
	for i, b := range c.bufs[:len(c.bufs)-1] {
		if len(b) != chunkSize {
			t.Errorf("chunk %d holds %d bytes, want full chunks before the last", i, len(b))
		}
	}
}
