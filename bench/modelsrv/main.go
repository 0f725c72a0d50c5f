// Command modelsrv is the benchmarks' scripted model server (issue 21): an
// OpenAI Chat Completions endpoint on loopback that streams markdown at a
// fixed token rate, or holds every request open without answering (an
// idle, waiting stream). It serves /v1/models and /v1/chat/completions and
// prints its base URL ("http://127.0.0.1:PORT/v1") on stdout.
//
//	modelsrv -rate 5000 -secs 20   # ~5,000 tokens/s of markdown for ~20 s
//	modelsrv -hang                 # accept requests, never answer
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

func main() {
	rate := flag.Int("rate", 5000, "tokens per second to stream (a token is one word with its trailing white space)")
	secs := flag.Float64("secs", 20, "seconds each answer streams")
	hang := flag.Bool("hang", false, "hold every chat request open without answering")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	if *rate < 1 || *secs <= 0 {
		fmt.Fprintln(os.Stderr, "modelsrv: -rate must be ≥ 1 and -secs > 0")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "modelsrv:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	s := &server{rate: *rate, dur: time.Duration(*secs * float64(time.Second)), hang: *hang}
	if err := http.Serve(ln, s); err != nil {
		fmt.Fprintln(os.Stderr, "modelsrv:", err)
		os.Exit(1)
	}
}

type server struct {
	rate int
	dur  time.Duration
	hang bool
}

// markdown is one section of the streamed answer (repeated): a heading,
// paragraphs with emphasis, code and links, a list, a quote and a fenced
// code block, as models write them.
const markdown = "## Section heading\n\n" +
	"Some **bold** text and *emphasis* with `inline code` in a paragraph that goes on " +
	"for a while, so that it wraps in the terminal and keeps the renderer busy with " +
	"words, [a link](https://example.com) and more words until the paragraph ends.\n\n" +
	"- first item of a list with `code`\n- second item, **bold**\n- third item\n\n" +
	"> a quoted line with *emphasis*\n\n" +
	"```go\nfunc add(a, b int) int {\n\treturn a + b // the sum\n}\n```\n\n" +
	"1. numbered one\n2. numbered two\n\n"

// tokens splits markdown into words with their trailing white space (a
// token each, the newlines kept).
var tokens = regexp.MustCompile(`\S+\s*`).FindAllString(markdown, -1)

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
		return
	}
	if s.hang {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	// Send in 10 ms batches: rate/100 tokens each.
	const tick = 10 * time.Millisecond
	per := max(1, s.rate/100)
	start, i := time.Now(), 0
	for n := 0; time.Since(start) < s.dur; n++ {
		var b strings.Builder
		for range per {
			b.WriteString(tokens[i%len(tokens)])
			i++
		}
		chunk(w, map[string]any{"content": b.String()}, nil)
		if rc.Flush() != nil {
			return
		}
		time.Sleep(time.Until(start.Add(time.Duration(n+1) * tick)))
	}
	chunk(w, map[string]any{}, "stop")
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
	_ = rc.Flush()
}

func chunk(w http.ResponseWriter, delta map[string]any, finish any) {
	data, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	_, _ = fmt.Fprintf(w, "data: %s\n\n", data)
}
