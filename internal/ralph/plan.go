package ralph

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// PlanOptions describe a planning run: the Goal in the user's words and
// MaxTurns (model responses, 0: max_tool_turns).
type PlanOptions struct {
	Goal     string
	MaxTurns int
}

// PlanResult is a planning run's outcome: the proposed tasks (not saved;
// ids are provisional until [Service.SavePlan]), the session the plan was
// made in, the model's final answer and the engine's DoneInfo.
type PlanResult struct {
	Tasks     []Task
	SessionID string
	Answer    string
	Done      *agent.DoneInfo
}

// Plan runs the model in plan permission mode (read-only tools) on a
// planning prompt, in a new session, with propose_tasks, list_tasks and
// show_task, and returns the tasks it proposed. A model that writes its
// plan as a JSON list or a markdown checklist in its answer instead of
// calling propose_tasks is understood too. Engine events go to emit.
// Errors: ErrNoBackend, an empty goal, a failed model request, no tasks
// proposed.
func (s *Service) Plan(ctx context.Context, o PlanOptions, emit func(Event)) (*PlanResult, error) {
	if s.backend == nil {
		return nil, ErrNoBackend
	}
	if strings.TrimSpace(o.Goal) == "" {
		return nil, errors.New("the goal is empty: say what you want done, e.g. aidex plan \"add a login page\"")
	}
	sess, err := s.backend.NewSession(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan: new session: %w", err)
	}
	prop := NewProposal(s.store.Tasks)
	tools := append([]agent.EngineTool{prop.Tool()}, TaskTools(s.store)...)
	eng, closeEngine, err := s.backend.Engine(ctx, EngineRequest{SessionID: sess.ID, EngineTools: tools, Notes: planNotes(), MaxTurns: o.MaxTurns, Plan: true})
	if err != nil {
		return nil, err
	}
	defer closeEngine()
	forward := func(ev agent.Event) { emit(Event{Type: EventType(ev.Type), Agent: &ev}) }
	done, err := eng.Run(ctx, sess, []llm.Part{{Type: llm.PartText, Text: planPrompt(o.Goal)}}, forward)
	res := &PlanResult{SessionID: sess.ID, Done: done, Tasks: prop.Tasks()}
	if done != nil {
		res.Answer = done.Result
	}
	if err != nil {
		return res, fmt.Errorf("plan: %w", err)
	}
	if len(res.Tasks) == 0 {
		res.Tasks = tasksFromAnswer(res.Answer)
	}
	if len(res.Tasks) == 0 {
		return res, fmt.Errorf("the model proposed no tasks (session %s): try again, rephrase the goal, or use a stronger model", sess.ID)
	}
	return res, nil
}

// fencedJSON finds a ```json fenced block.
var fencedJSON = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?s)```(?:json)?\\s*\\n(.*?)\\n```")
})

// tasksFromAnswer reads a plan written in the answer: a fenced JSON block,
// else a markdown checklist.
func tasksFromAnswer(answer string) []Task {
	for _, m := range fencedJSON().FindAllStringSubmatch(answer, -1) {
		if tasks, err := ParseImport("answer", []byte(m[1])); err == nil {
			return tasks
		}
	}
	if tasks, err := ParseImport("answer", []byte(answer)); err == nil {
		return tasks
	}
	return nil
}

// SavePlan adds proposed tasks to the list. A proposed id already in use
// gets the next free one, and depends_on entries naming proposed tasks
// follow the renaming. It returns the tasks as stored.
func (s *Service) SavePlan(ctx context.Context, tasks []Task) ([]Task, error) {
	var out []Task
	err := s.store.Change(ctx, func(l *List) error {
		out = out[:0]
		rename := map[string]string{}
		proposed := &List{Tasks: append([]Task(nil), l.Tasks...)}
		for _, t := range tasks {
			t = t.Clone()
			if t.ID == "" || proposed.index(t.ID) >= 0 {
				id := proposed.NextID(t.Type)
				if t.ID != "" {
					rename[strings.ToUpper(t.ID)] = id
				}
				t.ID = id
			}
			proposed.Tasks = append(proposed.Tasks, t)
			out = append(out, t)
		}
		now := s.now().UTC()
		for i := range out {
			for j, d := range out[i].DependsOn {
				if to, ok := rename[strings.ToUpper(d)]; ok {
					out[i].DependsOn[j] = to
				}
			}
			added, err := l.add(out[i], now)
			if err != nil {
				return err
			}
			out[i] = added
		}
		for _, t := range out {
			if err := l.checkDeps(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
