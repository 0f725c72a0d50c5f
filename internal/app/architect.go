package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	turns "github.com/zelvior/aidex/internal/app/turn"
	"github.com/zelvior/aidex/internal/llm"
)

// architectNote is added to the architect's system prompt.
const architectNote = "You are the architect of this turn. Read what you need with your read-only tools, then answer with a precise plan of the changes: " +
	"which files to change or create, and what to change in each, with the exact code where it matters. " +
	"You cannot edit files or run commands: an editor model makes the edits from your plan right after you answer. " +
	"When the request needs no change (a question), answer it and say that nothing needs editing."

// editorPrompt is the user message of the editor phase.
const editorPrompt = "You are the editor of this turn. Make the changes of the architect's plan (%s's answer just above) with your tools, " +
	"exactly and completely; do not plan again or ask for confirmation. If the plan says nothing needs editing, say so and stop. " +
	"When done, say in a few lines what you changed."

// Architect returns the architect and editor models of architect mode
// ("PROVIDER/MODEL"; editor "" is the main model), and on false when
// architect mode is off (architect_model unset or "off").
func (rt *Runtime) Architect() (architect, editor string, on bool) {
	a := strings.TrimSpace(rt.Config.ArchitectModel)
	if a == "" || a == "off" {
		return "", "", false
	}
	if other, err := rt.modelRoom().withModel(a, "architect_model"); err == nil {
		a = other.modelRoom().modelID()
	}
	e := rt.modelRoom().modelID()
	if s := strings.TrimSpace(rt.Config.EditorModel); s != "" {
		if other, err := rt.modelRoom().withModel(s, "editor_model"); err == nil {
			e = other.modelRoom().modelID()
		}
	}
	return a, e, true
}

// SetArchitect turns architect mode on for the sessions' next runs, with
// architect planning and editor ("" for the main model) editing, or off
// with architect "off". The choice is kept as command-line flags, so it
// outlasts reloads. Errors: a model whose provider needs a key it does
// not have, the reload's.
func (s *Service) SetArchitect(ctx context.Context, architect, editor string) (*Runtime, error) {
	architect, editor = strings.TrimSpace(architect), strings.TrimSpace(editor)
	rt := s.Runtime()
	if architect != "off" {
		if _, err := rt.modelRoom().withModel(architect, "architect"); err != nil {
			return nil, err
		}
		if editor != "" {
			if _, err := rt.modelRoom().withModel(editor, "editor"); err != nil {
				return nil, err
			}
		}
	} else {
		editor = ""
	}
	return s.Reload(ctx, map[string]string{"architect_model": architect, "editor_model": editor})
}

// runTurn runs one prompt on eng: in architect mode as an architect
// phase then an editor phase (architectTurn), else as one engine run.
func (ls *Session) runTurn(ctx context.Context, eng *agent.Engine, sess *agent.Conversation, input []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error) {
	ls.mu.Lock()
	rt := ls.rt
	ls.mu.Unlock()
	if _, _, on := rt.Architect(); !on {
		return eng.Run(ctx, sess, input, emit)
	}
	return ls.architectTurn(ctx, rt, eng, sess, input, emit)
}

// architectTurn runs the two phases of an architect turn in the session:
// the architect model answers the prompt with read-only tools (its
// request offers no write or exec tool), then the editor model (eng with
// the editor's client) gets the plan, as the last message of the
// conversation, and makes the edits. Each phase begins with a notice
// event and its events carry Phase; the stream keeps one session event
// (the architect's) and one done event (both phases summed). A phase
// that ends short (an error, a limit, a cancel) ends the turn.
func (ls *Session) architectTurn(ctx context.Context, rt *Runtime, eng *agent.Engine, sess *agent.Conversation, input []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error) {
	archSpec, _, _ := rt.Architect()
	arch, err := ls.architectEngine(ctx, rt, sess.ID)
	if err != nil {
		return nil, err
	}
	editor, err := ls.editorEngine(rt, eng)
	if err != nil {
		return nil, err
	}
	plan, err := arch.Run(ctx, sess, input, turns.InPhase(emit, turns.PhaseArchitect, archSpec, false))
	if err != nil || plan.StopReason != agent.StopDone || strings.TrimSpace(plan.Result) == "" {
		return turns.EndPhase(emit, sess.ID, plan, err)
	}
	prompt := []llm.Part{{Type: llm.PartText, Text: fmt.Sprintf(editorPrompt, archSpec)}}
	done, err := editor.Run(ctx, sess, prompt, turns.InPhase(emit, turns.PhaseEditor, editor.Config.Model.ID(), true))
	if done != nil {
		merged := *done
		merged.Turns += plan.Turns
		merged.Usage = plan.Usage.Add(done.Usage)
		merged.Denials += plan.Denials
		merged.HookDenials += plan.HookDenials
		merged.DeniedChanges += plan.DeniedChanges
		done = &merged
	}
	return turns.EndPhase(emit, sess.ID, done, err)
}

// architectEngine returns the architect's engine: the session's options
// with only the tools of kind read (subagents too), on the architect's
// model, its system prompt told its role. It is built once per session
// engine (runtime generation), as the session's own engine is.
func (ls *Session) architectEngine(ctx context.Context, rt *Runtime, sessionID string) (*agent.Engine, error) {
	return ls.derivedOf().architect(ctx, func(ctx context.Context) (*agent.Engine, func(), error) {
		art, err := rt.modelRoom().withModel(rt.Config.ArchitectModel, "architect_model")
		if err != nil {
			return nil, nil, err
		}
		o := ls.engineOptions(sessionID)
		o.ReadOnly = true
		o.AppendSystem = strings.TrimSpace(o.AppendSystem + "\n\n" + architectNote)
		return art.Engine(ctx, o)
	})
}

// editorEngine returns eng (the session's engine: its tools, policy,
// hooks and this run's changes) on the editor's model when editor_model
// is set.
func (ls *Session) editorEngine(rt *Runtime, eng *agent.Engine) (*agent.Engine, error) {
	if strings.TrimSpace(rt.Config.EditorModel) == "" {
		return eng, nil
	}
	ert, err := rt.modelRoom().withModel(rt.Config.EditorModel, "editor_model")
	if err != nil {
		return nil, err
	}
	return ls.derivedOf().model(ert, eng, ls.opts.Client, ls.svc.store)
}
