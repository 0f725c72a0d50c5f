package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type got struct{ name, data, id string }

func readAll(t *testing.T, in string) ([]got, error) {
	t.Helper()
	r := NewReader(strings.NewReader(in))
	var out []got
	for {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, got{string(ev.Name), string(ev.Data), string(ev.ID)})
	}
}

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	cases := []struct {
		name string
		in   string
		want []got
	}{
		{"single", "data: {\"a\":1}\n\n", []got{{"", `{"a":1}`, ""}}},
		{"named", "event: message_start\ndata: {}\n\n", []got{{"message_start", "{}", ""}}},
		{"crlf", "event: x\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n", []got{{"x", "1", ""}, {"", "2", ""}}},
		{"multiline data", "data: a\ndata: b\n\n", []got{{"", "a\nb", ""}}},
		{"no space after colon", "data:{}\n\n", []got{{"", "{}", ""}}},
		{"comment and ping skipped", ": keep-alive\n\ndata: 1\n\n", []got{{"", "1", ""}}},
		{"unknown field ignored", "retry: 10\nfoo\ndata: 1\n\n", []got{{"", "1", ""}}},
		{"event without data not dispatched", "event: ping\n\ndata: 1\n\n", []got{{"", "1", ""}}},
		{"last event without blank line", "data: 1\n\ndata: 2", []got{{"", "1", ""}, {"", "2", ""}}},
		{"id", "id: 7\ndata: x\n\n", []got{{"", "x", "7"}}},
		{"long line", "data: " + long + "\n\n", []got{{"", long, ""}}},
		{"empty stream", "", nil},
		{"only blank lines", "\n\n\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := readAll(t, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(c.want) {
				t.Fatalf("got %d events %q, want %d", len(out), out, len(c.want))
			}
			for i := range out {
				if out[i] != c.want[i] {
					t.Errorf("event %d: got %+v, want %+v", i, out[i], c.want[i])
				}
			}
		})
	}
}

type failingReader struct{ data string }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, errors.New("connection reset")
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReaderPropagatesErrors(t *testing.T) {
	r := NewReader(&failingReader{data: "data: 1\n\ndata: 2"})
	ev, err := r.Next()
	if err != nil || string(ev.Data) != "1" {
		t.Fatalf("first event: %v %v", ev, err)
	}
	if _, err := r.Next(); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("want the transport error, got %v", err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add("data: 1\n\n")
	f.Add("event: a\r\ndata: b\r\n\r\n:c\n")
	f.Add("data")
	f.Fuzz(func(t *testing.T, in string) {
		r := NewReader(strings.NewReader(in))
		for i := 0; i < len(in)+2; i++ {
			if _, err := r.Next(); err != nil {
				return
			}
		}
		t.Fatalf("reader did not end")
	})
}

func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 1000; i++ {
		sb.WriteString(`data: {"choices":[{"index":0,"delta":{"content":"hello world"},"finish_reason":null}]}` + "\n\n")
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(strings.NewReader(in))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}
