package llm

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// longResult returns a tool result of about n bytes whose lines carry
// every character JSON escapes differently from itself.
func longResult(n int, tail string) string {
	var b strings.Builder
	b.WriteString("src/a.go:1:\tfunc \"quoted\" a\\b <tag> & x\u2028y é\n")
	for i := 0; b.Len() < n; i++ {
		b.WriteString("src/handler.go:12:\tfunc (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n")
	}
	return b.String() + tail
}

// The body sent from cached encodings, empty ones among them, is byte for
// byte the body encoded whole, read in any sizes, on the first turn and
// from the cache on the next.
func TestSplicedBodySendsTheSameBytes(t *testing.T) {
	enc := func(m *Message) ([]byte, error) {
		return MarshalJSON(map[string]any{"role": m.Role, "content": m.Text(), "results": m.Parts})
	}
	var conv []Message
	for i, tail := range []string{"", "bad utf-8 \xff\xfe end", "\x01\x1f ctl", strings.Repeat("x", 10)} {
		conv = append(conv, UserText("run grep"), ToolResults(ToolResult{CallID: "c", Content: longResult(2000+i*700, tail)}))
	}
	c := &WireCache{}
	for turn := 0; turn < 2; turn++ {
		items, err := c.Encode(conv, enc)
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range items {
			want, _ := enc(&conv[i])
			if !bytes.Equal(it.Bytes(), want) || it.Len() != len(want) {
				t.Fatalf("turn %d message %d: cached encoding differs:\n%s\nwant\n%s", turn, i, it.Bytes(), want)
			}
		}
		items = append([]Wire{{}}, append(items[:len(items):len(items)], Wire{})...) // empty items are left out, commas and all
		items = append(items[:3:3], append([]Wire{{}}, items[3:]...)...)
		s := &Spliced{Head: map[string]any{"model": "m", "messages": nil}, Field: "messages", Items: items}
		got, err := s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		var whole [][]byte
		for i := range conv {
			b, _ := enc(&conv[i])
			whole = append(whole, b)
		}
		want := []byte(`{"messages":[` + string(bytes.Join(whole, []byte(","))) + `],"model":"m"}`)
		if !bytes.Equal(got, want) {
			t.Fatalf("spliced body from cached encodings differs from the whole one")
		}
		for _, size := range []int{1, 7, 4096, 32 << 10} {
			if got, n := readSpliced(t, s, size); !bytes.Equal(got, want) || n != len(want) {
				t.Fatalf("read in %d-byte reads: %d bytes (n %d), want %d", size, len(got), n, len(want))
			}
		}
	}
}

// readSpliced reads s's body as the HTTP client does, size bytes a read,
// and returns it and the length the body announced.
func readSpliced(t *testing.T, s *Spliced, size int) ([]byte, int) {
	t.Helper()
	ch, err := s.encode()
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader = ch.reader()
	if size == 1 {
		r = iotest.OneByteReader(r)
	}
	var buf []byte
	p := make([]byte, size)
	for {
		n, err := r.Read(p)
		buf = append(buf, p[:n]...)
		if err == io.EOF {
			return buf, ch.n
		}
	}
}

// BenchmarkSplicedRead reads the body of a 500-turn grep session (each
// tool result ~6.6 KB) from the cache's encodings as the HTTP client
// does.
func BenchmarkSplicedRead(b *testing.B) {
	enc := func(m *Message) ([]byte, error) { return MarshalJSON(m.Parts) }
	var conv []Message
	for i := 0; i < 500; i++ {
		conv = append(conv, ToolResults(ToolResult{CallID: "c", Content: longResult(6600, "")}))
	}
	items, _ := (&WireCache{}).Encode(conv, enc)
	s := &Spliced{Head: map[string]any{"messages": nil}, Field: "messages", Items: items}
	buf := make([]byte, 32<<10)
	for b.Loop() {
		ch, _ := s.encode()
		r := ch.reader()
		for {
			if _, err := r.Read(buf); err == io.EOF {
				break
			}
		}
		b.SetBytes(int64(ch.n))
	}
}
