package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// Side jobs are the small model's work (small_model, see
// modelRoom.smallModel): a session's title, the /summary of a
// conversation. Compaction summaries are the engine's (agent.Config
// SmallModel). None of them is ever the answer.

// titleTimeout bounds the background title request.
const titleTimeout = 60 * time.Second

// titleSystem asks for a session title.
const titleSystem = "You name coding sessions. Write a title of at most 8 words for the session that starts with the user's request below: " +
	"what the user wants done, in the request's language. Answer with the title only, on one line, without quotes or a final full stop."

// summarySystem asks for a /summary.
const summarySystem = "You summarise a session between a user and a coding agent for the user. Write, as short bullet lists: " +
	"what the user asked for; what was done (files changed, commands run and their outcome); decisions taken; what is left to do. " +
	"Use only what the transcript says."

// maxTitlePrompt is how much of the first prompt the title request
// sends, in bytes; maxTranscript how much of a conversation /summary
// sends (its latest part), in bytes.
const (
	maxTitlePrompt = 4000
	maxTranscript  = 60000
)

// sideJobs is a live session's small-model work: a new conversation's
// title in the background (under the session's jobsCtx, waited for by
// Close) and /summary's answer.
type sideJobs struct{ ls *Session }

// sideJob asks the small model once, without tools: system and one user
// message holding text. Its usage is added to session id's totals at the
// small model's prices, recorded under the small model's id (per-model
// breakdowns). It returns the answer and the small model's id.
// Errors: the small model cannot be opened (its provider's key), the
// request failed, its usage could not be recorded, the answer was empty.
func (j sideJobs) sideJob(ctx context.Context, id, system, text string) (string, string, error) {
	ls := j.ls
	ls.mu.Lock()
	rt := ls.rt
	ls.mu.Unlock()
	spec, _ := rt.modelRoom().smallModel()
	m, err := rt.modelRoom().openModel(spec, "small_model", engineOptions{Client: ls.opts.Client}, nil)
	if err != nil {
		return "", spec, err
	}
	req := llm.Request{Model: m.Info.Name, System: system, Messages: []llm.Message{llm.UserText(text)}}
	resp, err := m.Client.Generate(ctx, &req, nil)
	if resp != nil && resp.Usage != (llm.Usage{}) {
		uerr := ls.svc.store.AddModelUsage(context.WithoutCancel(ctx), id, m.Info.ID(), resp.Usage, m.Info.Cost(resp.Usage))
		if err == nil && uerr != nil {
			err = fmt.Errorf("record its usage: %w", uerr)
		}
	}
	if err != nil {
		return "", m.Info.ID(), fmt.Errorf("%s: %w", m.Info.ID(), err)
	}
	out := strings.TrimSpace(resp.Message.Text())
	if out == "" {
		return "", m.Info.ID(), fmt.Errorf("%s answered nothing", m.Info.ID())
	}
	return out, m.Info.ID(), nil
}

// wantsTitle reports whether a prompt gets a title from the small model:
// not when the prompt is a title already (one line of at most 8 words and
// 60 characters), nor when the small model would be a local provider's
// main model (small_model unset): it would wait behind the answer, or load
// a second model.
func wantsTitle(rt *Runtime, prompt string) bool {
	if _, src := rt.modelRoom().smallModel(); src == "main" && isLocal(rt.Provider) {
		return false
	}
	short := !strings.Contains(prompt, "\n") && len(strings.Fields(prompt)) <= 8 && utf8.RuneCountInString(prompt) <= 60
	return strings.TrimSpace(prompt) != "" && !short
}

// titleLater starts, for the first prompt of a new conversation, the
// small model's title in the background. The session keeps the prompt's
// text (cut to 80 runes) as its title at once; the small model's title
// replaces it when it comes, unless another replaced it first. Close
// cancels a title still being written.
func (j sideJobs) titleLater(sess *agent.Conversation, input []llm.Part) {
	ls := j.ls
	if len(sess.Messages) > 0 {
		return
	}
	var b strings.Builder
	for _, p := range input {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	prompt := b.String()
	ls.mu.Lock()
	rt := ls.rt
	ls.mu.Unlock()
	if ls.jobsCtx.Err() != nil || !wantsTitle(rt, prompt) {
		return
	}
	ls.jobs.Add(1)
	go func() {
		defer ls.jobs.Done()
		ctx, cancel := context.WithTimeout(ls.jobsCtx, titleTimeout)
		defer cancel()
		title, _, err := j.sideJob(ctx, sess.ID, titleSystem, truncateBytes(prompt, maxTitlePrompt))
		if err == nil {
			title, _, _ = strings.Cut(strings.Trim(title, "\"'` \t"), "\n")
			_, _ = ls.svc.store.Retitle(context.WithoutCancel(ctx), sess.ID, prompt, strings.TrimRight(title, "."))
		}
	}()
}

// jobGrace is how long Close lets background side jobs finish before it
// cancels them (a headless run's exit waits at most that long).
const jobGrace = 2 * time.Second

// endJobs waits up to jobGrace for the background side jobs, then
// cancels those left and waits for them to return.
func (j sideJobs) endJobs() {
	ls := j.ls
	done := make(chan struct{})
	go func() {
		ls.jobs.Wait()
		close(done)
	}()
	t := time.NewTimer(jobGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	ls.stopJobs()
	<-done
}

// Summarize asks the small model for a summary of the conversation (for
// /summary): what was asked, what was done, what is left. It returns the
// summary and the small model's id. The conversation goes as a
// transcript (its latest 60 KB), so any model can read it; the summary
// is not added to the conversation. Errors: an empty conversation, the
// small model's.
func (ls *Session) Summarize(ctx context.Context) (string, string, error) {
	sess := ls.Info()
	text := transcript(sess.Messages, maxTranscript)
	if text == "" {
		return "", "", errors.New("nothing to summarise: the conversation is empty")
	}
	return sideJobs{ls}.sideJob(ctx, sess.ID, summarySystem, text)
}

// transcript writes msgs as plain text, one block a message ("[user]",
// "[assistant]", "[tool NAME]" with its output cut to 500 bytes), keeping
// the latest max bytes.
func transcript(msgs []llm.Message, max int) string {
	var b strings.Builder
	for _, m := range msgs {
		if t := strings.TrimSpace(m.Text()); t != "" && m.Role != llm.RoleTool {
			fmt.Fprintf(&b, "[%s] %s\n\n", m.Role, t)
		}
		for _, c := range m.ToolCalls() {
			fmt.Fprintf(&b, "[%s calls %s] %s\n\n", m.Role, c.Name, truncateBytes(string(c.Arguments), 500))
		}
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				fmt.Fprintf(&b, "[tool result] %s\n\n", truncateBytes(p.ToolResult.Content, 500))
			}
		}
	}
	s := b.String()
	if len(s) > max {
		cut := len(s) - max
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		s = "[… earlier part left out]\n" + s[cut:]
	}
	return strings.TrimSpace(s)
}

// truncateBytes cuts s to at most n bytes at a rune boundary.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
