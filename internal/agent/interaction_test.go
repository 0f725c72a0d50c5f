package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// fakeAsker answers every interaction with ans (its ID filled in) and
// records what it was asked.
type fakeAsker struct {
	ans   InteractionAnswer
	asked []InteractionInfo
}

func (f *fakeAsker) Ask(_ context.Context, info InteractionInfo) (InteractionAnswer, error) {
	f.asked = append(f.asked, info)
	return f.ans, nil
}

const dbQuestion = `{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres"},{"label":"SQLite","description":"embedded"}]}]}`

func runAsk(t *testing.T, asker Asker, args string) (*script, []Event) {
	t.Helper()
	sc := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{call("c1", "ask_user", args), say("ok")}}
	e := &Engine{Client: sc, Tools: &fakeTools{}, Policy: &policy{}, Asker: asker}
	var evs []Event
	if _, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(ev Event) { evs = append(evs, ev) }); err != nil {
		t.Fatal(err)
	}
	return sc, evs
}

func lastToolResult(t *testing.T, sc *script) llm.ToolResult {
	t.Helper()
	msgs := sc.reqs[len(sc.reqs)-1].Messages
	for _, p := range msgs[len(msgs)-1].Parts {
		if p.ToolResult != nil {
			return *p.ToolResult
		}
	}
	t.Fatalf("no tool result in the last request: %+v", msgs[len(msgs)-1])
	return llm.ToolResult{}
}

func TestAskUserPausesOnInteractionAndResumesWithAnswer(t *testing.T) {
	a := &fakeAsker{ans: InteractionAnswer{Answers: map[string]Reply{"Which database?": TextReply("SQLite")}}}
	sc, evs := runAsk(t, a, dbQuestion)
	if len(a.asked) != 1 || a.asked[0].Questions[0].Kind != KindChoice || a.asked[0].CallID != "c1" {
		t.Fatalf("asked %+v", a.asked)
	}
	var seen []string
	for _, ev := range evs {
		if ev.Type == EventInteraction {
			seen = append(seen, ev.Interaction.ID)
			if ev.Interaction.ID != a.asked[0].ID {
				t.Errorf("interaction event id %q, asked %q", ev.Interaction.ID, a.asked[0].ID)
			}
		}
	}
	if len(seen) != 2 {
		t.Fatalf("want the request and the answer as interaction events, got %d", len(seen))
	}
	tr := lastToolResult(t, sc)
	if tr.IsError || !strings.Contains(tr.Content, `"Which database?": "SQLite"`) {
		t.Fatalf("tool result %+v", tr)
	}
	if !strings.Contains(toolNames(sc.reqs[0]), "ask_user") {
		t.Fatalf("ask_user not offered with an Asker: %s", toolNames(sc.reqs[0]))
	}
}

func toolNames(req *llm.Request) string {
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, ",")
}

func TestAskUserNotOfferedWithoutAsker(t *testing.T) {
	sc, _ := runAsk(t, nil, dbQuestion)
	if strings.Contains(toolNames(sc.reqs[0]), "ask_user") {
		t.Fatalf("ask_user offered without an Asker: %s", toolNames(sc.reqs[0]))
	}
	if tr := lastToolResult(t, sc); !tr.IsError {
		t.Fatalf("a call of the absent tool should fail: %+v", tr)
	}
}

func TestAskUserDeclined(t *testing.T) {
	sc, _ := runAsk(t, &fakeAsker{ans: InteractionAnswer{Declined: true}}, dbQuestion)
	tr := lastToolResult(t, sc)
	if !tr.IsError || !strings.Contains(tr.Content, "declined") || !strings.Contains(tr.Content, "Decide yourself") {
		t.Fatalf("tool result %+v", tr)
	}
}

func TestAskUserBadQuestionsGoBackToModel(t *testing.T) {
	cases := map[string]string{
		`{"questions":[]}`: "1 to 4 questions",
		`{"questions":[{"question":"a"},{"question":"b"},{"question":"c"},{"question":"d"},{"question":"e"}]}`: "not 5",
		`{"questions":[{"question":"Pick","options":[{"label":"only"}]}]}`:                                     "2 to 6 options",
		`{"questions":[{"question":"Pick","kind":"choice"}]}`:                                                  "2 to 6 options",
		`{"questions":[{"question":"Sure?","kind":"confirm","options":[{"label":"a"},{"label":"b"}]}]}`:        "takes no options",
		`{"questions":[{"question":"Q","kind":"radio"}]}`:                                                      `kind "radio"`,
		`{"questions":[{"question":"Q"},{"question":"Q"}]}`:                                                    "repeats",
	}
	for args, want := range cases {
		a := &fakeAsker{}
		sc, _ := runAsk(t, a, args)
		tr := lastToolResult(t, sc)
		if !tr.IsError || !strings.Contains(tr.Content, "validation") || !strings.Contains(tr.Content, want) {
			t.Errorf("%s: tool result %q, want %q", args, tr.Content, want)
		}
		if len(a.asked) != 0 {
			t.Errorf("%s: asked the user about invalid questions", args)
		}
	}
}

func TestCheckAnswer(t *testing.T) {
	info := InteractionInfo{ID: "ia", Questions: []Question{
		{Question: "db", Kind: KindChoice, Options: []Option{{Label: "a"}, {Label: "b"}}},
		{Question: "feat", Kind: KindChoice, MultiSelect: true, Options: []Option{{Label: "x"}, {Label: "y"}}},
		{Question: "ok", Kind: KindConfirm},
		{Question: "files", Kind: KindFiles},
	}}
	good := `{"id":"ia","answers":{"db":"a","feat":["x","y"],"ok":"yes","files":"main.go"}}`
	var a InteractionAnswer
	if err := json.Unmarshal([]byte(good), &a); err != nil {
		t.Fatal(err)
	}
	got, err := CheckAnswer(info, a)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(got)
	if want := `{"id":"ia","answers":{"db":"a","feat":["x","y"],"files":["main.go"],"ok":"yes"}}`; string(out) != want {
		t.Fatalf("normalised %s, want %s", out, want)
	}
	bad := map[string]string{
		`{"answers":{"db":"c","feat":["x"],"ok":"yes","files":[]}}`:             `"c" is not an option`,
		`{"answers":{"db":"a","feat":[],"ok":"yes","files":[]}}`:                "at least one",
		`{"answers":{"db":"a","feat":["x"],"ok":"maybe","files":[]}}`:           `"yes" or "no"`,
		`{"answers":{"db":"a","feat":["x"],"ok":"yes"}}`:                        `no answer to "files"`,
		`{"answers":{"db":["a"],"feat":["x"],"ok":"yes","files":[]}}`:           "not a list",
		`{"answers":{"db":"a","feat":["x"],"ok":"yes","files":[],"other":"z"}}`: "not one of the questions",
		`{"id":"ib","answers":{"db":"a","feat":["x"],"ok":"yes","files":[]}}`:   `not "ia"`,
		`{"answers":{"db":"a","feat":["x","x"],"ok":"yes","files":[]}}`:         "picked twice",
		`{"answers":{"db":"a","feat":["x"],"ok":"yes","files":["  "]}}`:         "empty",
	}
	for in, want := range bad {
		var a InteractionAnswer
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		_, err := CheckAnswer(info, a)
		if !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
	if _, err := CheckAnswer(info, InteractionAnswer{Declined: true}); err != nil {
		t.Fatalf("a decline needs no answers: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"answers":{"db":3}}`), &a); err == nil {
		t.Fatal("a number answer was accepted")
	}
}

// failingAsker cannot ask (a front end's failure, not a cancellation).
type failingAsker struct{}

func (failingAsker) Ask(context.Context, InteractionInfo) (InteractionAnswer, error) {
	return InteractionAnswer{}, errors.New("no token")
}

func TestAskUserAskerFailureIsReported(t *testing.T) {
	sc, evs := runAsk(t, failingAsker{}, dbQuestion)
	if tr := lastToolResult(t, sc); !tr.IsError || !strings.Contains(tr.Content, "decide yourself") {
		t.Fatalf("tool result %+v", tr)
	}
	var reported bool
	for _, ev := range evs {
		if ev.Type == EventError && strings.Contains(ev.Error.Message, "no token") {
			reported = true
		}
	}
	if !reported {
		t.Fatal("the asker's failure is not shown to the user")
	}
}
