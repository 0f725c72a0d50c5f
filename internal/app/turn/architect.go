package turn

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// ArchitectNote is added to the architect's system prompt (app builds the
// architect's engine with it).
const ArchitectNote = "You are the architect of this turn. Read what you need with your read-only tools, then answer with a precise plan of the changes: " +
	"which files to change or create, and what to change in each, with the exact code where it matters. " +
	"You cannot edit files or run commands: an editor model makes the edits from your plan right after you answer. " +
	"When the request needs no change (a question), answer it and say that nothing needs editing."

// editorPrompt is the user message of the editor phase.
const editorPrompt = "You are the editor of this turn. Make the changes of the architect's plan (%s's answer just above) with your tools, " +
	"exactly and completely; do not plan again or ask for confirmation. If the plan says nothing needs editing, say so and stop. " +
	"When done, say in a few lines what you changed."

// Architect is an architect turn's two engines: Plan answers the prompt
// on the architect model Spec ("PROVIDER/MODEL") with read-only tools
// (its requests offer no write or exec tool); Edit (the session's engine,
// on the editor model when one is set) makes the edits.
type Architect struct {
	Spec string
	Plan *agent.Engine
	Edit *agent.Engine
}

// Run runs the two phases of an architect turn: the architect answers
// input, then the editor gets the plan, as the last message of the
// conversation, and makes the edits. Each phase begins with a notice
// event and its events carry Phase; the stream keeps one session event
// (the architect's) and one done event (both phases summed). A phase
// that ends short (an error, a limit, a cancel) ends the turn. Errors:
// the phases' runs.
func (a *Architect) Run(ctx context.Context, sess *agent.Conversation, input []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error) {
	plan, err := a.Plan.Run(ctx, sess, input, InPhase(emit, PhaseArchitect, a.Spec, false))
	if err != nil || plan.StopReason != agent.StopDone || strings.TrimSpace(plan.Result) == "" {
		return EndPhase(emit, sess.ID, plan, err)
	}
	prompt := []llm.Part{{Type: llm.PartText, Text: fmt.Sprintf(editorPrompt, a.Spec)}}
	done, err := a.Edit.Run(ctx, sess, prompt, InPhase(emit, PhaseEditor, a.Edit.Config.Model.ID(), true))
	if done != nil {
		merged := *done
		merged.Turns += plan.Turns
		merged.Usage = plan.Usage.Add(done.Usage)
		merged.Denials += plan.Denials
		merged.HookDenials += plan.HookDenials
		merged.DeniedChanges += plan.DeniedChanges
		done = &merged
	}
	return EndPhase(emit, sess.ID, done, err)
}
