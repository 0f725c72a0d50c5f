// Package longsession builds the long sessions of issue 21's benchmarks: a
// conversation of n messages made of exchanges (a user prompt, four tool
// calls each answered by a 4 KiB result, a text answer), in memory or
// written into a session store. The benchmarks beside it measure resume
// time, the engine's per-turn overhead and memory as the session grows;
// gen/ is a program that writes such a session for `aidex -c` by hand.
package longsession

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
)

// ResultBytes is the size of each tool result, in bytes.
const ResultBytes = 4 << 10

// CallsPerExchange is how many tool calls (each with its result) an
// exchange holds between the user's prompt and the text answer.
const CallsPerExchange = 4

// Result returns a tool result of ResultBytes bytes: numbered source-like
// lines, different for each seed.
func Result(seed int) string {
	var b strings.Builder
	for line := 1; b.Len() < ResultBytes; line++ {
		fmt.Fprintf(&b, "%5d\tfunc handler%d_%d(w http.ResponseWriter, r *http.Request) { serve(w, r, %d) }\n", line, seed, line, seed*line)
	}
	return b.String()[:ResultBytes]
}

// Messages returns a valid conversation of exactly n messages (n ≥ 1):
// exchanges of a user prompt, CallsPerExchange pairs of an assistant tool
// call (read_file) and its tool result, and an assistant answer. The last
// exchange is cut at n, so it may end on a tool result or a call; a cut
// right after a call drops that call so none is left unanswered.
func Messages(n int) []llm.Message {
	msgs := make([]llm.Message, 0, n)
	for ex := 0; len(msgs) < n; ex++ {
		msgs = append(msgs, llm.UserText(fmt.Sprintf("Step %d: read the next handler file and fix its error handling.", ex+1)))
		for c := 0; c < CallsPerExchange && len(msgs) < n; c++ {
			id := fmt.Sprintf("call_%d_%d", ex, c)
			args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("internal/handlers/h%d_%d.go", ex, c)})
			if len(msgs) == n-1 {
				msgs = append(msgs, llm.AssistantText("Reading the handlers."))
				break
			}
			msgs = append(msgs,
				llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall,
					ToolCall: &llm.ToolCall{ID: id, Name: "read_file", Arguments: args}}}},
				llm.ToolResults(llm.ToolResult{CallID: id, Name: "read_file", Content: Result(ex*CallsPerExchange + c)}))
		}
		if len(msgs) < n {
			msgs = append(msgs, llm.AssistantText(fmt.Sprintf("Done with step %d: the handlers now return their errors.", ex+1)))
		}
	}
	return msgs[:n]
}

// Write creates a session of workspace (an absolute path) in store with the
// conversation of [Messages](n), so that it is the workspace's latest
// session (what `aidex -c` resumes). Errors: the store's.
func Write(ctx context.Context, store *session.Store, workspace string, n int) (*agent.Conversation, error) {
	sess, err := store.Create(ctx, workspace, "fake", "scripted")
	if err != nil {
		return nil, fmt.Errorf("create long session: %w", err)
	}
	msgs := Messages(n)
	if err := store.AppendMessage(ctx, sess.ID, msgs[0], nil); err != nil {
		return nil, fmt.Errorf("write long session: %w", err)
	}
	if err := store.ReplaceMessages(ctx, sess.ID, msgs); err != nil {
		return nil, fmt.Errorf("write long session: %w", err)
	}
	sess.Messages = msgs
	return sess, nil
}
