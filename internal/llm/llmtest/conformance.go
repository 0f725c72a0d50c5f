package llmtest

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// Case is one replayed exchange as a per-wire check sees it: the fixture
// (after any [AdjustFixture]), the request given to the client, the one
// HTTP request the client sent, and what Generate returned and emitted.
type Case struct {
	Fixture  Fixture
	Request  *llm.Request
	Sent     Recorded
	Response *llm.Response
	Err      error
	Events   []llm.Event
}

// ConformanceOption tunes [Conformance] for one wire format.
type ConformanceOption func(*conformance)

type conformance struct {
	min    int
	skips  []func(Fixture) string
	adjust []func(*Fixture)
	checks []func(*testing.T, Case)
}

// MinFixtures makes the run fail when fewer than n exchanges of the wire
// format are found (a shrunken corpus would pass unnoticed otherwise).
func MinFixtures(n int) ConformanceOption {
	return func(c *conformance) { c.min = n }
}

// SkipFixture skips, on purpose, each exchange for which reason returns a
// non-empty reason; the reason is the subtest's skip message and the
// skipped exchanges are counted in the run's summary line.
func SkipFixture(reason func(Fixture) string) ConformanceOption {
	return func(c *conformance) { c.skips = append(c.skips, reason) }
}

// AdjustFixture changes each exchange before it is replayed: corrected
// expectations, ids the client generates where the host gave none. fix may
// change f.Expect in place (each exchange is replayed once).
func AdjustFixture(fix func(f *Fixture)) ConformanceOption {
	return func(c *conformance) { c.adjust = append(c.adjust, fix) }
}

// ExtraCheck adds a per-wire check run on every replayed exchange after the
// shared ones: the request's path and headers, the body the client sent,
// response fields only this wire fills.
func ExtraCheck(check func(t *testing.T, c Case)) ConformanceOption {
	return func(c *conformance) { c.checks = append(c.checks, check) }
}

// Conformance replays every recorded exchange of wire format wire (see
// [Load]) as one subtest named by the fixture's path. Each exchange is
// served by [Serve] to the client newClient returns for the server's base
// URL, with [Request]. Shared checks: a non-nil response; [Check] against
// the expectation (wantUsage maps the provider's usage object); exactly
// one POST request; an error is an *llm.APIError (its kind known); the
// events add up to the response (text and reasoning deltas, the tool calls
// in order, the finish reason) and every reported tool call has an id.
// Exchanges with no expectation are skipped. It logs "P/N <wire> exchanges
// pass, S skipped on purpose".
func Conformance(t *testing.T, wire string, newClient func(baseURL string) llm.Client, wantUsage func(map[string]any) llm.Usage, opts ...ConformanceOption) {
	t.Helper()
	var cfg conformance
	for _, o := range opts {
		o(&cfg)
	}
	fixtures := Load(t, wire)
	if len(fixtures) < cfg.min {
		t.Fatalf("only %d %s fixtures found, want at least %d", len(fixtures), wire, cfg.min)
	}
	passed, skipped := 0, 0
	for _, f := range fixtures {
		t.Run(f.Path, func(t *testing.T) {
			if reason := cfg.skipReason(f); reason != "" {
				skipped++
				t.Skip(reason)
			}
			for _, fix := range cfg.adjust {
				fix(&f)
			}
			c := replay(t, f, newClient)
			for _, p := range Check(f, c.Response, c.Err, wantUsage) {
				t.Error(p)
			}
			if c.Err != nil && llm.KindOf(c.Err) == llm.KindUnknown {
				t.Errorf("error is not an *llm.APIError: %v", c.Err)
			}
			CheckEvents(t, c.Events, c.Response)
			for _, check := range cfg.checks {
				check(t, c)
			}
			if !t.Failed() {
				passed++
			}
		})
	}
	t.Logf("%d/%d %s exchanges pass, %d skipped on purpose", passed, len(fixtures), wire, skipped)
}

func (cfg *conformance) skipReason(f Fixture) string {
	if f.Expect == nil {
		return "no expectation recorded"
	}
	for _, reason := range cfg.skips {
		if r := reason(f); r != "" {
			return r
		}
	}
	return ""
}

// replay serves f to a new client and returns what happened; the test
// stops when the response is nil or the client did not send exactly one
// POST request.
func replay(t *testing.T, f Fixture, newClient func(string) llm.Client) Case {
	t.Helper()
	srv := Serve(t, f)
	c := Case{Fixture: f, Request: Request(f)}
	c.Response, c.Err = newClient(srv.URL).Generate(context.Background(), c.Request, func(e llm.Event) { c.Events = append(c.Events, e) })
	if c.Response == nil {
		t.Fatal("nil response")
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	c.Sent = reqs[0]
	if c.Sent.Method != http.MethodPost {
		t.Errorf("request method %s, want POST", c.Sent.Method)
	}
	return c
}

// CheckEvents checks that events told the same story as resp: the text and
// reasoning deltas add up to the response's, the tool-call events are the
// response's tool calls in order, each with an id, and the last finish
// event carries the response's finish reason ("" when there was none).
func CheckEvents(t testing.TB, events []llm.Event, resp *llm.Response) {
	t.Helper()
	var text, reasoning string
	var calls []llm.ToolCall
	finish := ""
	for _, e := range events {
		switch e.Type {
		case llm.EventText:
			text += e.Text
		case llm.EventReasoning:
			reasoning += e.Text
		case llm.EventToolCall:
			calls = append(calls, *e.ToolCall)
		case llm.EventFinish:
			finish = e.FinishReason
		}
	}
	if text != resp.Message.Text() || reasoning != resp.Message.Reasoning() {
		t.Errorf("events and response differ: text %q vs %q, reasoning %q vs %q", text, resp.Message.Text(), reasoning, resp.Message.Reasoning())
	}
	if got := resp.Message.ToolCalls(); len(calls) != len(got) || len(calls) > 0 && !reflect.DeepEqual(calls, got) {
		t.Errorf("tool call events %+v, response %+v", calls, got)
	}
	for _, c := range calls {
		if c.ID == "" {
			t.Errorf("tool call %s has no id", c.Name)
		}
	}
	if finish != resp.FinishReason {
		t.Errorf("finish event %q, response %q", finish, resp.FinishReason)
	}
}
