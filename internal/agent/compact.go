package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/llm"
)

// errNothingToCompact: the conversation is too short to summarise.
var errNothingToCompact = errors.New("nothing to compact: the conversation has too few exchanges")

// keepRecent is how many of the latest exchanges (a user prompt and all
// that answered it) compaction keeps verbatim.
const keepRecent = 2

// trimmedOutput is how much of an old tool result survives trimming, in bytes.
const trimmedOutput = 300

const summaryPrompt = `Summarise the conversation so far for yourself, to continue the work with less context. Keep, as short bullet lists:
- the user's task and requirements, in their words where it matters;
- decisions taken and why;
- files read, created or changed (paths) and what changed;
- commands run and their outcome (tests passing or failing);
- what remains to do next.
Write only the summary.`

// needsCompaction reports whether the next request would pass the
// configured share of the context window.
func (r *run) needsCompaction() bool {
	w := r.cfg.Model.ContextWindow
	return w > 0 && float64(r.s.promptTokens(r.cfg.System)) > r.cfg.CompactAt*float64(w)
}

// Compact summarises the older exchanges of s now (the `compact` command),
// with focus as an optional instruction on what to keep.
func (e *Engine) Compact(ctx context.Context, s *Conversation, focus string, emit func(Event)) error {
	if err := e.acquire(s.ID); err != nil {
		return err
	}
	defer e.release(s.ID)
	r := &run{e: e, s: s, emit: emit, cfg: e.Config, manualCompact: true}
	r.normalize()
	return r.compact(ctx, focus)
}

// compact first trims old tool outputs; when that is not enough (or focus
// asks for a summary) it replaces the exchanges before the last keepRecent
// ones with a model-written summary. The result is saved through the store.
func (r *run) compact(ctx context.Context, focus string) error {
	cut := recentCut(r.s.Messages, keepRecent)
	if cut <= 0 {
		return errNothingToCompact
	}
	if r.e.Hooks != nil {
		trigger := "auto"
		if r.manualCompact {
			trigger = "manual"
		}
		r.hookMessages(r.e.Hooks.Compact(ctx, r.s, trigger, focus))
	}
	msgs := trimToolOutputs(r.s.Messages, cut)
	if focus == "" && r.cfg.Model.ContextWindow > 0 &&
		float64(estimateTokens(r.cfg.System, msgs)) < 0.6*float64(r.cfg.Model.ContextWindow) {
		return r.replace(ctx, msgs)
	}
	summary, err := r.summarise(ctx, msgs[:cut], focus)
	if err != nil {
		return err
	}
	head := llm.UserText(summaryHead(r.s.Messages, summary))
	out := append([]llm.Message{head}, msgs[cut:]...)
	if out[1].Role == llm.RoleUser {
		out = mergeUser(out[0], out[1], out[2:])
	}
	return r.replace(ctx, out)
}

func mergeUser(a, b llm.Message, rest []llm.Message) []llm.Message {
	merged := llm.Message{Role: llm.RoleUser, Parts: append(append([]llm.Part(nil), a.Parts...), b.Parts...)}
	return append([]llm.Message{merged}, rest...)
}

// usageSaver is the optional store method that records usage of a model
// response kept as no message (a compaction's summary, an empty answer):
// session.Store.AddUsage (tokens; cost in USD).
type usageSaver interface {
	AddUsage(ctx context.Context, sessionID string, u llm.Usage, costUSD float64) error
}

// saveUsage records u (and its price) in the store when the store can;
// a failure is reported, not fatal.
func (r *run) saveUsage(ctx context.Context, u llm.Usage) {
	r.saveUsageOf(ctx, u, r.cfg.Model)
}

// saveUsageOf is saveUsage for a response of model m (priced at m's
// prices): the run's model or the small model.
func (r *run) saveUsageOf(ctx context.Context, u llm.Usage, m ModelInfo) {
	us, ok := r.store.(usageSaver)
	if !ok || u == (llm.Usage{}) {
		return
	}
	if err := r.addUsage(context.WithoutCancel(ctx), us, u, m); err != nil {
		r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: "save usage: " + err.Error(), Kind: "engine"}})
	}
}

func (r *run) replace(ctx context.Context, msgs []llm.Message) error {
	r.s.Messages = msgs
	if r.e.Store != nil {
		if err := r.e.Store.ReplaceMessages(context.WithoutCancel(ctx), r.s.ID, msgs); err != nil {
			return fmt.Errorf("save compacted session: %w", err)
		}
	}
	return nil
}

// summarise asks the model, without tools, to summarise msgs.
func (r *run) summarise(ctx context.Context, msgs []llm.Message, focus string) (string, error) {
	prompt := summaryPrompt
	if focus != "" {
		prompt += "\nFocus on: " + focus
	}
	client, model, req := r.summariser(ctx)
	req.Messages = append(append([]llm.Message(nil), msgs...), llm.UserText(prompt))
	resp, err := client.Generate(ctx, &req, nil)
	if err != nil && model.ID() != r.cfg.Model.ID() && ctx.Err() == nil {
		// The small model failed: the run's own model writes it.
		r.notice(fmt.Sprintf("the small model %s could not summarise (%v): %s does", model.ID(), err, r.cfg.Model.ID()),
			&NoticeInfo{Kind: NoticeFallback, From: model.ID(), To: r.cfg.Model.ID(), Reason: err.Error(), ErrorKind: string(llm.KindOf(err))})
		req = r.cfg.Request
		req.Model, req.System, req.Tools = r.cfg.Model.Name, r.cfg.System, nil
		req.Messages = append(append([]llm.Message(nil), msgs...), llm.UserText(prompt))
		client, model = r.client, r.cfg.Model
		resp, err = client.Generate(ctx, &req, nil)
	}
	if err != nil {
		return "", fmt.Errorf("summarise with %s: %w", model.ID(), err)
	}
	r.saveUsageOf(ctx, resp.Usage, model)
	r.accountOf(resp.Usage, model)
	text := strings.TrimSpace(resp.Message.Text())
	if text == "" {
		return "", errors.New("summarise: the model returned an empty summary")
	}
	return text, nil
}

// maxTaskEcho is the longest first user message repeated verbatim in a
// summary, in bytes.
const maxTaskEcho = 4000

// summaryHead is the user message that replaces the compacted exchanges: the
// original task (verbatim when short) and the summary.
func summaryHead(msgs []llm.Message, summary string) string {
	var b strings.Builder
	b.WriteString("[The earlier conversation was compacted to save context.]\n")
	if len(msgs) > 0 && msgs[0].Role == llm.RoleUser {
		if task := msgs[0].Text(); task != "" && len(task) <= maxTaskEcho {
			b.WriteString("The original request:\n")
			b.WriteString(task)
			b.WriteString("\n\n")
		}
	}
	b.WriteString("Summary of the work so far:\n")
	b.WriteString(summary)
	return b.String()
}

// recentCut returns where the verbatim tail of the conversation starts: the
// keep-th latest exchange (from a user message with text, not tool
// results); within one long exchange, the second latest assistant message. It returns
// 0 when the conversation is too short to compact.
func recentCut(msgs []llm.Message, keep int) int {
	users, assistants := 0, 0
	for i := len(msgs) - 1; i > 0; i-- {
		switch msgs[i].Role {
		case llm.RoleUser:
			if msgs[i].Text() != "" {
				if users++; users == keep {
					return i
				}
			}
		case llm.RoleAssistant:
			if assistants++; assistants == 2 && users == 0 && i > 1 {
				return i
			}
		}
	}
	return 0
}

// trimToolOutputs shortens tool results before index cut.
func trimToolOutputs(msgs []llm.Message, cut int) []llm.Message {
	out := make([]llm.Message, len(msgs))
	copy(out, msgs)
	for i := 0; i < cut; i++ {
		if out[i].Role != llm.RoleTool {
			continue
		}
		parts := make([]llm.Part, len(out[i].Parts))
		copy(parts, out[i].Parts)
		for j, p := range parts {
			if p.ToolResult != nil && len(p.ToolResult.Content) > trimmedOutput {
				tr := *p.ToolResult
				tr.Content = truncateUTF8(tr.Content, trimmedOutput) + "\n[older output trimmed to save context]"
				parts[j].ToolResult = &tr
			}
		}
		out[i].Parts = parts
	}
	return out
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
