// Package llmtest replays the recorded provider exchanges in
// ../shared/fixtures/recorded (see that folder's README.md) against aidex's
// wire-format clients, for conformance tests.
package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/sharedtest"
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
	FinishReason FinishReason   `json:"finish_reason"`
	Usage        map[string]any `json:"usage"`
	Errors       []ErrorText    `json:"errors"`
}

// ErrorText is one expected error: a message string, or the JSON text of an
// error object as some hosts (OpenRouter, Gemini) record.
type ErrorText string

// UnmarshalJSON accepts a JSON string, or any other JSON value (kept as its
// JSON text).
func (e *ErrorText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*e = ErrorText(s)
		return nil
	}
	*e = ErrorText(b)
	return nil
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

// FixturesDir finds ../shared/fixtures/recorded beside the repository
// root (the directory holding go.mod). It returns "" when it is missing.
func FixturesDir() string { return sharedtest.Find("fixtures/recorded") }

// Load returns every recorded exchange of the given wire format, sorted by
// path. When the fixtures are missing the test fails under CI and is
// skipped otherwise (sharedtest.Require).
func Load(t testing.TB, wire string) []Fixture {
	t.Helper()
	dir := sharedtest.Require(t, "fixtures/recorded", "conformance fixtures")
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

// LoadFile returns one recorded exchange by its path below the fixtures
// folder ("fantasy/name.json"). When the fixtures or that file are
// missing the test fails under CI and is skipped otherwise; it fails when
// the file is not a fixture.
func LoadFile(t testing.TB, path string) Fixture {
	t.Helper()
	dir := sharedtest.Require(t, "fixtures/recorded", "conformance fixtures")
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
	if err != nil {
		sharedtest.Require(t, "fixtures/recorded/"+path, "fixture "+path)
		t.Fatalf("fixture %s: %v", path, err)
	}
	var f Fixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	f.Path = filepath.FromSlash(path)
	return f
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

// Server answers requests with canned replies and records the requests it
// received: the n-th request (from 0) gets replies[n], and requests beyond
// the last reply get the last one again.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []Reply
	requests []Recorded
}

// Reply is one canned HTTP answer. Status 0 means 200; Header is set as
// given (a missing Content-Type is left to net/http).
type Reply struct {
	Status int
	Header map[string]string
	Body   string
}

// Recorded is one request the server received.
type Recorded struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// Serve starts a server answering every request with the fixture's
// recorded response (status, content type and body); it is closed when the
// test ends.
func Serve(t testing.TB, f Fixture) *Server {
	rep := Reply{Status: f.Status, Header: map[string]string{}, Body: f.Body}
	for k, v := range f.Headers {
		if strings.EqualFold(k, "Content-Type") {
			rep.Header["Content-Type"] = v
		}
	}
	return ServeReplies(t, rep)
}

// ServeBody starts a server answering every request with status, content
// type ct and body; it is closed when the test ends.
func ServeBody(t testing.TB, status int, ct, body string) *Server {
	return ServeReplies(t, Reply{Status: status, Header: map[string]string{"Content-Type": ct}, Body: body})
}

// ServeReplies starts a server answering requests with replies in order (the
// last one repeats), for status sequences such as a 503 then a stream. At
// least one reply is needed. It is closed when the test ends.
func ServeReplies(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	if len(replies) == 0 {
		t.Fatal("llmtest.ServeReplies: no replies")
	}
	s := &Server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	rep := s.replies[min(len(s.requests), len(s.replies)-1)]
	s.requests = append(s.requests, Recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
	s.mu.Unlock()
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, rep.Body)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Calls returns how many requests were received so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// LastBody decodes the body of the last request received as a JSON object;
// the test fails when there is none or it is not JSON.
func (s *Server) LastBody(t testing.TB) map[string]any {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request received")
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, reqs[len(reqs)-1].Body)
	}
	return m
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
