package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// recordingApprover answers "always" and keeps the requests it saw.
type recordingApprover struct{ seen []ApprovalInfo }

func (a *recordingApprover) Approve(_ context.Context, req ApprovalInfo) (Answer, string, error) {
	a.seen = append(a.seen, req)
	return AnswerAlways, "", nil
}

// TestAlwaysWithoutRuleSavesNothing: when the policy suggests no rule (a
// call no rule may allow), "always" allows this call once and saves
// nothing; it never saves the bare tool name, which would allow every
// call of the tool. The approval shown carries no rule either.
func TestAlwaysWithoutRuleSavesNothing(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
			acc.ToolCall(llm.ToolCall{ID: "1", Name: "write", Arguments: json.RawMessage(`{}`)})
			return nil
		},
		say("done"),
	}}
	ap := &recordingApprover{}
	e, tools, _, pol := newEngine(p, ap)
	pol.noRule = true
	if _, err := e.Run(context.Background(), &Conversation{ID: "s1"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(tools.ran) != 1 || len(pol.remembered) != 0 {
		t.Fatalf("ran %v, remembered %v: want the call run once and no rule saved", tools.ran, pol.remembered)
	}
	if len(ap.seen) != 1 || ap.seen[0].Suggested != "" {
		t.Fatalf("approval requests %+v: want one with no suggested rule", ap.seen)
	}
}

// TestAlwaysSavesTheRuleShown: "always" saves exactly the rule the
// approval request showed.
func TestAlwaysSavesTheRuleShown(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
			acc.ToolCall(llm.ToolCall{ID: "1", Name: "write", Arguments: json.RawMessage(`{}`)})
			return nil
		},
		say("done"),
	}}
	ap := &recordingApprover{}
	e, _, _, pol := newEngine(p, ap)
	if _, err := e.Run(context.Background(), &Conversation{ID: "s1"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(ap.seen) != 1 || len(pol.remembered) != 1 || pol.remembered[0] != "always:"+ap.seen[0].Suggested {
		t.Fatalf("shown %+v, saved %v: want the rule shown saved", ap.seen, pol.remembered)
	}
}
