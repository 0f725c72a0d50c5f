package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// fail answers with err and nothing else (as a client does after its
// retries ran out).
func fail(err error) func(context.Context, *llm.Request, *llm.Accumulator) error {
	return func(context.Context, *llm.Request, *llm.Accumulator) error { return err }
}

// pricedStore is a memStore that records the model of each message.
type pricedStore struct {
	memStore
	label string
	saved []string
}

func (p *pricedStore) AppendMessage(ctx context.Context, id string, m llm.Message, u *llm.Usage) error {
	p.saved = append(p.saved, p.label+":"+m.Model)
	return p.memStore.AppendMessage(ctx, id, m, u)
}

func ref(id string, m *OpenModel, opened *int) ModelRef {
	return ModelRef{ID: id, Open: func(context.Context) (*OpenModel, error) {
		*opened++
		return m, nil
	}}
}

func TestFallbackContinuesTurnOnNextModel(t *testing.T) {
	rateLimited := &llm.APIError{Kind: llm.KindRateLimit, Provider: "p", Status: 429, Message: "slow down"}
	main := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		call("1", "read", `{"path":"a"}`),
		fail(rateLimited),
	}}
	backup := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{say("answered by backup")}}
	e, _, _, _ := newEngine(main, nil)
	store := &pricedStore{label: "main"}
	e.Store = store
	e.Config.Model = ModelInfo{Provider: "p", Name: "big", InputPrice: 1, OutputPrice: 2}
	backupStore := &pricedStore{label: "backup"}
	opened := 0
	e.Config.Fallbacks = []ModelRef{ref("q/small", &OpenModel{Client: backup, Store: backupStore,
		Info: ModelInfo{Provider: "q", Name: "small", InputPrice: 10, OutputPrice: 20}}, &opened)}
	rec := &recorder{}
	s := &Conversation{ID: "s"}
	done, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err != nil || done.Result != "answered by backup" || done.StopReason != StopDone {
		t.Fatalf("done %+v err %v", done, err)
	}
	if opened != 1 || done.Turns != 2 {
		t.Fatalf("opened %d, turns %d", opened, done.Turns)
	}
	last := s.Messages[len(s.Messages)-1]
	if last.Model != "q/small" || last.Text() != "answered by backup" {
		t.Fatalf("last message %+v", last)
	}
	if len(backupStore.saved) != 1 || backupStore.saved[0] != "backup:q/small" {
		t.Fatalf("the fallback's store saved %v (main saved %v)", backupStore.saved, store.saved)
	}
	// The backup's request is the same turn: it carries the tool result.
	if n := len(backup.reqs[0].Messages); n != 3 || backup.reqs[0].Model != "small" {
		t.Fatalf("backup request: model %q, %d messages", backup.reqs[0].Model, n)
	}
	var notice *Event
	for i, ev := range rec.events {
		if ev.Type == EventNotice {
			notice = &rec.events[i]
		}
		if ev.Type == EventText && ev.Model != "q/small" {
			t.Errorf("text event labelled %q", ev.Model)
		}
	}
	if notice == nil || notice.Notice.From != "p/big" || notice.Notice.To != "q/small" || notice.Notice.ErrorKind != "rate_limit" ||
		!strings.Contains(notice.Text, "continuing on q/small") {
		t.Fatalf("notice %+v", notice)
	}
	// Priced at each model's prices: 100 in + 10 out per response (the
	// script reports usage on the failed response too).
	want := 2*(100*1+10*2)/1e6 + (100*10+10*20)/1e6
	if diff := done.CostUSD - want; diff > 1e-12 || diff < -1e-12 {
		t.Fatalf("cost %v, want %v", done.CostUSD, want)
	}
}

func TestFallbackNotForOtherErrors(t *testing.T) {
	main := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		fail(&llm.APIError{Kind: llm.KindAuth, Status: 401, Message: "bad key"}),
	}}
	e, _, _, _ := newEngine(main, nil)
	opened := 0
	e.Config.Fallbacks = []ModelRef{ref("q/small", &OpenModel{Client: &script{}}, &opened)}
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
	if err == nil || done.StopReason != StopError || opened != 0 {
		t.Fatalf("done %+v err %v opened %d", done, err, opened)
	}
}

func TestFallbackSkipsUnusableAndStopsWhenNoneLeft(t *testing.T) {
	overloaded := &llm.APIError{Kind: llm.KindOverloaded, Status: 529, Message: "overloaded"}
	main := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{fail(overloaded)}}
	second := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		fail(&llm.APIError{Kind: llm.KindNotFound, Status: 404, Message: "no such model"})}}
	e, _, _, _ := newEngine(main, nil)
	opened := 0
	e.Config.Fallbacks = []ModelRef{
		{ID: "nokey/x", Open: func(context.Context) (*OpenModel, error) { return nil, errors.New("no key") }},
		ref("r/second", &OpenModel{Client: second, Info: ModelInfo{Provider: "r", Name: "second"}}, &opened),
	}
	rec := &recorder{}
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err == nil || done.StopReason != StopError || llm.KindOf(err) != llm.KindNotFound {
		t.Fatalf("done %+v err %v", done, err)
	}
	if got := rec.types(); got != "session,waiting,notice,notice,waiting,error,done" {
		t.Fatalf("events %s", got)
	}
}

func TestFallbackWorthy(t *testing.T) {
	cases := map[string]struct {
		err  error
		want bool
	}{
		"429":       {&llm.APIError{Kind: llm.KindRateLimit, Status: 429}, true},
		"quota 400": {&llm.APIError{Kind: llm.KindBadRequest, Status: 400, Code: "insufficient_quota"}, true},
		"credit":    {&llm.APIError{Kind: llm.KindBadRequest, Status: 400, Message: "Your credit balance is too low"}, true},
		"402":       {&llm.APIError{Kind: llm.KindBadRequest, Status: 402}, true},
		"503":       {&llm.APIError{Kind: llm.KindServer, Status: 503}, true},
		"500":       {&llm.APIError{Kind: llm.KindServer, Status: 500}, false},
		"auth":      {&llm.APIError{Kind: llm.KindAuth, Status: 401}, false},
		"plain":     {errors.New("boom"), false},
	}
	for name, c := range cases {
		if got := FallbackWorthy(c.err); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}

func TestSmallModelWritesCompactionSummary(t *testing.T) {
	big := strings.Repeat("x", 6000)
	main := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		call("1", "read", `{"path":"1"}`),
		call("2", "read", `{"path":"2"}`),
		say("finished"),
	}}
	small := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{say("SUMMARY by small")}}
	e, _, _, _ := newEngine(main, nil)
	e.Config.Model.ContextWindow = 1500
	opened := 0
	e.Config.SmallModel = &ModelRef{ID: "p/tiny", Open: func(context.Context) (*OpenModel, error) {
		opened++
		return &OpenModel{Client: small, Info: ModelInfo{Provider: "p", Name: "tiny", InputPrice: 0.1}}, nil
	}}
	s := &Conversation{ID: "s", Messages: []llm.Message{llm.UserText("old task " + big), llm.AssistantText("old answer")}}
	rec := &recorder{}
	done, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "new task"}}, rec.emit)
	if err != nil || done.Result != "finished" {
		t.Fatalf("done %+v err %v", done, err)
	}
	if len(small.reqs) == 0 || small.reqs[0].Model != "tiny" || len(small.reqs[0].Tools) != 0 {
		t.Fatalf("small model requests: %d", len(small.reqs))
	}
	for _, r := range main.reqs {
		if strings.Contains(r.Messages[len(r.Messages)-1].Text(), "Summarise the conversation") {
			t.Fatal("the main model was asked for the summary")
		}
	}
	if !strings.Contains(s.Messages[0].Text(), "SUMMARY by small") {
		t.Fatalf("summary not in the session: %q", s.Messages[0].Text())
	}
	labelled := false
	for _, ev := range rec.events {
		if ev.Type == EventUsage && ev.Model == "p/tiny" {
			labelled = true
		}
	}
	if !labelled {
		t.Fatal("no usage event of the small model")
	}
}
