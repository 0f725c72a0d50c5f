package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// Todo is one item of the model's plan. Status is pending, in_progress or
// completed.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

const todoSchema = `{"type":"object","properties":{"todos":{"type":"array","description":"The whole plan; replaces the previous one.","items":{"type":"object","properties":{"content":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","completed"]}},"required":["content","status"]}}},"required":["todos"]}`

// todoToolName is the name of the model's plan tool.
const todoToolName = "todo_write"

// todoTool is todo_write: the model's plan, kept on the session and shown
// by every front end.
func todoTool(r *run) EngineTool {
	return EngineTool{
		Spec: llm.Tool{
			Name:        todoToolName,
			Description: "Write your task plan for multi-step work: the full list of items, each pending, in_progress (one at a time) or completed. Update it as you go.",
			Parameters:  json.RawMessage(todoSchema),
		},
		Run: func(ctx context.Context, s *Conversation, args json.RawMessage) ToolResultInfo {
			todos, err := parseTodos(args)
			if err != nil {
				return ToolResultInfo{Error: err.Error(), Category: "validation"}
			}
			s.Todos = todos
			if r.e.Store != nil {
				if err := r.e.Store.SaveTodos(context.WithoutCancel(ctx), s.ID, todos); err != nil {
					return ToolResultInfo{Error: "could not save the plan: " + err.Error(), Category: "execution"}
				}
			}
			r.emit(Event{Type: EventTodos, SessionID: s.ID, Todos: todos})
			return ToolResultInfo{OK: true, Output: summarizeTodos(todos)}
		},
	}
}

func parseTodos(args json.RawMessage) ([]Todo, error) {
	var in struct {
		Todos []Todo `json:"todos"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("todo_write takes {\"todos\": [{\"content\": \"...\", \"status\": \"pending|in_progress|completed\"}]}: %v", err)
	}
	for i, t := range in.Todos {
		if strings.TrimSpace(t.Content) == "" {
			return nil, fmt.Errorf("todo %d has no content", i+1)
		}
		switch t.Status {
		case "pending", "in_progress", "completed":
		case "":
			in.Todos[i].Status = "pending"
		default:
			return nil, fmt.Errorf("todo %d has status %q; use pending, in_progress or completed", i+1, t.Status)
		}
	}
	return in.Todos, nil
}

func summarizeTodos(todos []Todo) string {
	done := 0
	for _, t := range todos {
		if t.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("plan saved: %d items, %d completed", len(todos), done)
}
