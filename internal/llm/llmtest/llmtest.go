// Package llmtest replays the recorded provider exchanges in
// ../shared/fixtures/recorded (see that folder's README.md) against aidex's
// wire-format clients, for conformance tests.
package llmtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// Fixture is one recorded exchange. Body is the raw response body; Expect
// is nil for exchanges no client understands.
type Fixture struct {
	Path       string            `json:"-"`
	Provider   string            `json:"provider"`
	WireFormat string            `json:"wire_format"`
	Stream     bool              `json:"stream"`
	Request    json.RawMessage   `json:"request"`
	RequestURL string            `json:"request_url"`
	Status     int               `json:"response_status"`
	Headers    map[string]string `json:"response_headers"`
	Body       string            `json:"response_body"`
	Expect     *Expect           `json:"expect"`
}

// Expect is what the exchange's response says, decoded independently.
// Usage is the provider's own usage object.
type Expect struct {
	Text         string         `json:"text"`
	Reasoning    string         `json:"reasoning"`
	ToolCalls    []ExpectedCall `json:"tool_calls"`
	FinishReason string         `json:"finish_reason"`
	Usage        map[string]any `json:"usage"`
	Errors       []string       `json:"errors"`
}

// FinishReason is an expected finish reason: a string, or a number as some
// recorded Gemini responses carry (kept as its decimal text).
type FinishReason string

// UnmarshalJSON accepts a JSON string, number or null.
func (f *FinishReason) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = FinishReason(s)
		return nil
	}
	if string(b) == "null" {
		*f = ""
		return nil
	}
	*f = FinishReason(b)
	return nil
}

// ExpectedCall is one expected tool call; ID is nil where the provider gives
// none (Gemini). Server is true for calls the provider ran itself (Anthropic
// web search): clients do not report those as tool calls.
type ExpectedCall struct {
	ID        *string         `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Server    bool            `json:"server"`
}

// FixturesDir finds ../shared/fixtures/recorded beside the repository root
// (the directory holding go.mod). It returns "" when it is missing.
func FixturesDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", "fixtures", "recorded")
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return p
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load returns every recorded exchange of the given wire format, sorted by
// path. The test is skipped, with a message, when the fixtures are missing.
func Load(t testing.TB, wire string) []Fixture {
	t.Helper()
	dir := FixturesDir()
	if dir == "" {
		t.Skip("../shared/fixtures/recorded not found beside the repository: conformance fixtures unavailable")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []Fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f Fixture
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if f.WireFormat != wire {
			continue
		}
		f.Path = filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures of wire format %q", wire)
	}
	return out
}

// Model returns the model named by the recorded request body (or URL).
func (f Fixture) Model() string {
	var r struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(f.Request, &r)
	if r.Model != "" {
		return r.Model
	}
	if i := strings.Index(f.RequestURL, "/models/"); i >= 0 {
		m := f.RequestURL[i+len("/models/"):]
		if j := strings.IndexAny(m, ":?"); j >= 0 {
			m = m[:j]
		}
		return m
	}
	return "test-model"
}

// Server serves the fixture's recorded response (status, content type and
// body) to every request, and records the requests it received.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Recorded
}

// Recorded is one request the server received.
type Recorded struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// Serve starts a server for f, closed when the test ends.
func Serve(t testing.TB, f Fixture) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, 0, 1024)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Body.Read(buf)
			body = append(body, buf[:n]...)
			if err != nil {
				break
			}
		}
		s.mu.Lock()
		s.requests = append(s.requests, Recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
		s.mu.Unlock()
		ct := ""
		for k, v := range f.Headers {
			if strings.EqualFold(k, "Content-Type") {
				ct = v
			}
		}
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		status := f.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(f.Body))
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Request builds a minimal request for replaying f: its model, its stream
// flag and one user message.
func Request(f Fixture) *llm.Request {
	return &llm.Request{Model: f.Model(), Stream: f.Stream, Messages: []llm.Message{llm.UserText("hi")}}
}

// Check compares a client's result with f.Expect: an error exchange must
// give an error; otherwise text, reasoning, tool calls (name, arguments as
// JSON values, id where recorded), finish reason and usage must match.
// wantUsage maps the provider's own usage object to [llm.Usage]. It returns
// the problems found (none: the exchange passes).
func Check(f Fixture, resp *llm.Response, err error, wantUsage func(map[string]any) llm.Usage) []string {
	e := f.Expect
	if f.Status >= 400 || len(e.Errors) > 0 {
		if err == nil {
			return []string{"expected an error, got none"}
		}
		return nil
	}
	var probs []string
	if err != nil {
		return []string{"unexpected error: " + err.Error()}
	}
	if got := resp.Message.Text(); got != e.Text {
		probs = append(probs, "text: got "+quote(got)+", want "+quote(e.Text))
	}
	if got := resp.Message.Reasoning(); got != e.Reasoning {
		probs = append(probs, "reasoning: got "+quote(got)+", want "+quote(e.Reasoning))
	}
	probs = append(probs, checkCalls(resp.Message.ToolCalls(), e.ToolCalls)...)
	if resp.FinishReason != string(e.FinishReason) {
		probs = append(probs, "finish_reason: got "+quote(resp.FinishReason)+", want "+quote(string(e.FinishReason)))
	}
	if wantUsage != nil && e.Usage != nil {
		if want := wantUsage(e.Usage); resp.Usage != want {
			g, _ := json.Marshal(resp.Usage)
			w, _ := json.Marshal(want)
			probs = append(probs, "usage: got "+string(g)+", want "+string(w))
		}
	}
	return probs
}

func checkCalls(got []llm.ToolCall, all []ExpectedCall) []string {
	var want []ExpectedCall
	for _, w := range all {
		if !w.Server {
			want = append(want, w)
		}
	}
	if len(got) != len(want) {
		names := make([]string, len(got))
		for i, c := range got {
			names[i] = c.Name
		}
		return []string{"tool calls: got " + strings.Join(names, ",") + ", want " + itoa(len(want)) + " calls"}
	}
	var probs []string
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name {
			probs = append(probs, "tool call "+itoa(i)+" name: got "+g.Name+", want "+w.Name)
		}
		if w.ID != nil && *w.ID != g.ID {
			probs = append(probs, "tool call "+itoa(i)+" id: got "+g.ID+", want "+*w.ID)
		}
		if !jsonEqual(g.Arguments, w.Arguments) {
			probs = append(probs, "tool call "+itoa(i)+" arguments: got "+string(g.Arguments)+", want "+string(w.Arguments))
		}
	}
	return probs
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// Int reads an integer at a dotted path of a usage object ("prompt_tokens_details.cached_tokens"); 0 when absent.
func Int(m map[string]any, path string) int {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return 0
		}
		cur = mm[k]
	}
	if f, ok := cur.(float64); ok {
		return int(f)
	}
	return 0
}

func quote(s string) string {
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
