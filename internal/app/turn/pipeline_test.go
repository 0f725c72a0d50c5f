package turn

import (
	"context"
	"testing"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// answering returns an engine on model name whose model answers name.
func answering(name string) *agent.Engine {
	c := llm.ClientFunc(func(ctx context.Context, req *llm.Request, h llm.Handler) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantText(name)}, nil
	})
	return &agent.Engine{Client: c, Config: agent.Config{Model: agent.ModelInfo{Provider: "p", Name: name}}}
}

// TestRunPicksTheStrategy checks the pipeline's order: the active
// models when set, else the architect's two phases, else the engine.
func TestRunPicksTheStrategy(t *testing.T) {
	cases := []struct {
		name string
		t    Turn
		want string
	}{
		{"plain", Turn{Engine: answering("main")}, "main"},
		{"architect", Turn{Engine: answering("main"), Architect: &Architect{Spec: "p/plan", Plan: answering("plan"), Edit: answering("edit")}}, "edit"},
		{"models", Turn{Engine: answering("main"), Architect: &Architect{Spec: "p/plan", Plan: answering("plan"), Edit: answering("edit")},
			Models: &Models{Engines: []*agent.Engine{answering("a"), answering("b")}, IDs: []string{"p/a", "p/b"}, Mode: Sequential}}, "b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.t.Conversation = &agent.Conversation{ID: "s"}
			c.t.Input = []llm.Part{{Type: llm.PartText, Text: "hi"}}
			var dones int
			c.t.Emit = func(e agent.Event) {
				if e.Type == agent.EventDone {
					dones++
				}
			}
			d, err := Run(context.Background(), c.t)
			if err != nil {
				t.Fatal(err)
			}
			if d.Result != c.want || dones != 1 {
				t.Fatalf("result %q with %d done events, want %q and one done", d.Result, dones, c.want)
			}
		})
	}
}

// TestCommandApply checks that a custom command's turn gets a clone with
// the command's policy and model, and leaves the session's engine alone.
func TestCommandApply(t *testing.T) {
	base := answering("main")
	pol := &AddedRules{}
	var moved *agent.Engine
	c := &Command{Policy: pol, OnModel: func(e *agent.Engine) (*agent.Engine, error) { moved = e; return answering("cmd"), nil }}
	e, err := c.Apply(base)
	if err != nil {
		t.Fatal(err)
	}
	if moved == base || moved.Policy != agent.Policy(pol) || base.Policy != nil || e.Config.Model.Name != "cmd" {
		t.Fatalf("apply: moved %p (base %p), its policy %v, base's %v, model %q", moved, base, moved.Policy, base.Policy, e.Config.Model.Name)
	}
}
