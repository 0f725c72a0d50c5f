package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/zelvior/aidex/internal/llm"
)

// ModelRef is a model other than the run's own (a fallback, the small
// model): its "PROVIDER/MODEL" id, and Open, which makes it ready the
// first time a run needs it (a model the run never falls back to costs
// nothing). Open's errors (a provider without its key) skip the model.
type ModelRef struct {
	ID   string
	Open func(ctx context.Context) (*OpenModel, error)
}

// OpenModel is a model ready for requests: everything of an engine that
// follows the model it runs on. Client is its client (retries included);
// Info what the engine knows of it (prices in USD per 1M tokens, context
// window in tokens); Store the session store pricing the messages it
// writes at its own prices (nil: the engine's Store); Tools the tool set
// as this model sees it (its memory folder, image input; nil: the
// engine's Tools). CommandBlocks is the model's text tool-call mode
// ([Config.CommandBlocks]); ReasoningEffort, ThinkingBudget (tokens) and
// Verbosity are its reasoning settings ([llm.Request]'s fields of the
// same names; zero values: none).
//
// [Engine.WithModel] and a run's fallback apply it the same way
// (applyModel), so an engine on another model never keeps a setting of
// the model it was made from.
type OpenModel struct {
	Client          llm.Client
	Info            ModelInfo
	Store           Store
	Tools           Tools
	CommandBlocks   bool
	ReasoningEffort string
	ThinkingBudget  int
	Verbosity       string
}

// applyModel puts the model-dependent settings of m on cfg.
func applyModel(cfg *Config, m *OpenModel) {
	cfg.Model = m.Info
	cfg.CommandBlocks = m.CommandBlocks
	cfg.Request.ReasoningEffort, cfg.Request.ThinkingBudget, cfg.Request.Verbosity = m.ReasoningEffort, m.ThinkingBudget, m.Verbosity
}

// routing is the part of a run's state that a fallback changes: the
// client, store and tool set of the model in use (its ModelInfo and
// settings are in run.cfg), its id for event labels, and the fallbacks
// not tried yet.
type routing struct {
	client    llm.Client
	store     Store
	tools     Tools
	label     atomic.Pointer[string]
	fallbacks []ModelRef
}

// initRouting starts the run on the engine's model, with every
// configured fallback but the model itself.
func (r *run) initRouting() {
	r.client, r.store, r.tools = r.e.Client, r.e.Store, r.e.Tools
	id := r.cfg.Model.ID()
	r.label.Store(&id)
	r.fallbacks = nil
	for _, f := range r.cfg.Fallbacks {
		if f.Open != nil && f.ID != id {
			r.fallbacks = append(r.fallbacks, f)
		}
	}
}

// modelID returns the id of the model the run uses now.
func (r *run) modelID() string { return *r.label.Load() }

// FallbackWorthy reports whether err lets a turn continue on a fallback
// model: a rate limit (429) or an exhausted quota or credit (OpenAI's
// insufficient_quota, Gemini's RESOURCE_EXHAUSTED, HTTP 402), an overload
// (529, Anthropic's overloaded_error, a 503), or an unknown model (404,
// model_not_found). The client has already retried what it retries.
// Key, permission and request errors are not: another model would not
// fix them, or the user must.
func FallbackWorthy(err error) bool {
	var ae *llm.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.Kind {
	case llm.KindRateLimit, llm.KindOverloaded, llm.KindNotFound:
		return true
	case llm.KindServer:
		return ae.Status == http.StatusServiceUnavailable
	}
	text := strings.ToLower(ae.Type + " " + ae.Code + " " + ae.Message)
	return ae.Status == http.StatusPaymentRequired || strings.Contains(text, "quota") ||
		strings.Contains(text, "resource_exhausted") || strings.Contains(text, "model_not_found") ||
		strings.Contains(text, "credit balance")
}

// fallBack moves the run to the next fallback model that opens, after
// the request failed with err, and reports whether it did: the caller
// sends the same request again, so the turn goes on. Nothing happens when
// the failure is not FallbackWorthy, ctx ended, or part of the answer had
// already arrived (resp kept it; a second model would repeat it). Each
// switch, and each fallback that cannot be opened, is a notice event.
func (r *run) fallBack(ctx context.Context, resp *llm.Response, err error) bool {
	if ctx.Err() != nil || !FallbackWorthy(err) || resp != nil && len(resp.Message.Parts) > 0 {
		return false
	}
	from := r.cfg.Model.ID()
	for len(r.fallbacks) > 0 {
		ref := r.fallbacks[0]
		r.fallbacks = r.fallbacks[1:]
		m, oerr := ref.Open(ctx)
		if oerr != nil {
			r.notice(fmt.Sprintf("fallback %s cannot be used: %v", ref.ID, oerr),
				&NoticeInfo{Kind: NoticeFallback, From: ref.ID, Reason: oerr.Error()})
			continue
		}
		r.useModel(m)
		kind := string(llm.KindOf(err))
		r.notice(fmt.Sprintf("%s failed (%s): continuing on %s", from, describeKind(kind), m.Info.ID()),
			&NoticeInfo{Kind: NoticeFallback, From: from, To: m.Info.ID(), Reason: err.Error(), ErrorKind: kind})
		// The failed request is not a turn of its own.
		r.turns--
		return true
	}
	return false
}

// useModel makes m the model of the rest of the run.
func (r *run) useModel(m *OpenModel) {
	r.client = m.Client
	applyModel(&r.cfg, m)
	if m.Store != nil {
		r.store = m.Store
	}
	if m.Tools != nil {
		r.tools = m.Tools
	}
	id := m.Info.ID()
	r.label.Store(&id)
}

// notice emits a notice event with text as its line.
func (r *run) notice(text string, info *NoticeInfo) {
	r.emit(Event{Type: EventNotice, SessionID: r.s.ID, Text: text, Notice: info})
}

// describeKind names an error kind for a notice line.
func describeKind(kind string) string {
	switch llm.ErrorKind(kind) {
	case llm.KindRateLimit:
		return "rate limited"
	case llm.KindOverloaded:
		return "overloaded"
	case llm.KindNotFound:
		return "model not found"
	case llm.KindServer:
		return "unavailable"
	}
	return "quota or credit exhausted"
}

// summariser returns the client, model and base request of a compaction
// summary: the small model's when one is configured and opens (no tools,
// no reasoning settings: they are the main model's), else the run's own
// (its system prompt kept, so the provider's prompt cache still hits).
func (r *run) summariser(ctx context.Context) (llm.Client, ModelInfo, llm.Request) {
	if sm := r.cfg.SmallModel; sm != nil && sm.Open != nil && sm.ID != r.cfg.Model.ID() {
		if m, err := sm.Open(ctx); err == nil {
			req := llm.Request{Model: m.Info.Name, MaxTokens: r.cfg.Request.MaxTokens, Stream: r.cfg.Request.Stream,
				System: "You summarise a coding agent's conversation so that the agent can continue the work from the summary alone."}
			return m.Client, m.Info, req
		}
	}
	req := r.cfg.Request
	req.Model, req.System, req.Tools = r.cfg.Model.Name, r.cfg.System, nil
	return r.client, r.cfg.Model, req
}
