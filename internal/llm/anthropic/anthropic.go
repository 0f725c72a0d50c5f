// Package anthropic is aidex's client for the Anthropic Messages API
// (POST {base}/messages), streamed or not.
//
// Wire references:
//   - request and response: https://docs.anthropic.com/en/api/messages
//   - streaming events: https://docs.anthropic.com/en/docs/build-with-claude/streaming
//   - extended thinking: https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
//   - prompt caching: https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
//   - errors: https://docs.anthropic.com/en/api/errors
//
// Mapping of [llm.Request]:
//   - System becomes one text block of the `system` list; Tools become
//     `{name, description, input_schema}`.
//   - Messages keep their parts in order. Tool results (role tool) travel as
//     `tool_result` blocks in a user message; consecutive messages of the same
//     wire role are merged into one (tool results first, as the API requires).
//   - Assistant reasoning parts are sent back unchanged as `thinking` blocks
//     (text and signature) or `redacted_thinking` blocks (data); reasoning
//     without a signature (from another provider) is dropped, since the API
//     rejects unsigned thinking.
//   - max_tokens is required: [DefaultMaxTokens] when Request.MaxTokens is 0.
//   - Extended thinking (`thinking: {type: "enabled", budget_tokens}`) is on
//     when Request.ThinkingBudget > 0 or Request.ReasoningEffort is set; see
//     [ThinkingBudget] for the effort mapping. With thinking on, max_tokens is
//     raised above the budget when needed and temperature is not sent (the
//     API accepts only the default then).
//   - Request.CacheControl puts `cache_control: {"type":"ephemeral"}` on the
//     system block, the last tool and the last block of the last two user
//     messages: at most 4 breakpoints, the API's limit.
//
// Server tools (web search and the like: `server_tool_use` and
// `*_tool_result` blocks) run on Anthropic's side; they are not reported as
// tool calls, since aidex must not run them, and they are not sent back.
// Their text answer (with citations dropped) is kept.
package anthropic

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// Wire constants of the Messages API.
const (
	// DefaultBaseURL is the API root used when Options.BaseURL is empty.
	DefaultBaseURL = "https://api.anthropic.com/v1"
	// APIVersion is the `anthropic-version` header value sent on every request.
	APIVersion = "2023-06-01"
	// DefaultMaxTokens is the output cap, in tokens, sent when
	// Request.MaxTokens is 0 (the API requires one).
	DefaultMaxTokens = 8192
	// MinThinkingBudget is the smallest thinking budget, in tokens, the API
	// accepts; smaller budgets are raised to it.
	MinThinkingBudget = 1024
)

// Client is an [llm.Client] speaking the Anthropic Messages API. It holds
// no mutable state and is safe for concurrent use.
type Client struct {
	opts  llm.Options
	cache *llm.WireCache // each message's encoding, reused by later requests
}

// New returns a client for opts. An empty opts.Name becomes "anthropic" and
// an empty opts.BaseURL becomes [DefaultBaseURL]; a trailing slash of the
// base URL is ignored. opts.APIKey is sent as the `x-api-key` header when
// set.
func New(opts llm.Options) *Client {
	if opts.Name == "" {
		opts.Name = "anthropic"
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	return &Client{opts: opts, cache: &llm.WireCache{}}
}

// Generate sends req to {base}/messages and reports the answer to h as it
// arrives (see [llm.Client]). It returns the response assembled so far
// together with an [*llm.APIError] on provider and transport failures: HTTP
// errors by status and the error body's type (529/overloaded_error is
// [llm.KindOverloaded]), an in-stream `event: error` by its error type, a
// stream that ends before `message_stop` as [llm.KindStreamCut], a malformed
// body as [llm.KindStream], and a request that cannot be built (an unknown
// reasoning effort) as [llm.KindBadRequest]. A cancelled ctx gives ctx.Err().
func (c *Client) Generate(ctx context.Context, req *llm.Request, h llm.Handler) (*llm.Response, error) {
	acc := llm.NewAccumulatorFor(req, h)
	wr, err := buildBody(req, c.cache)
	if err != nil {
		return llm.Finish(ctx, acc, req, &llm.APIError{Provider: c.opts.Name, Kind: llm.KindBadRequest, Message: err.Error(), Err: err})
	}
	body, _, err := llm.PostSpliced(ctx, &c.opts, c.opts.BaseURL+"/messages", wr, c.headers())
	if err != nil {
		return llm.Finish(ctx, acc, req, err)
	}
	defer body.Close()
	if req.Stream {
		err = readStream(body, acc, c.opts.Name)
	} else {
		err = readMessage(body, acc, c.opts.Name)
	}
	return llm.Finish(ctx, acc, req, err)
}

// headers returns the per-request headers: the API version and the key.
func (c *Client) headers() map[string]string {
	h := map[string]string{"anthropic-version": APIVersion}
	if c.opts.APIKey != "" {
		h["x-api-key"] = c.opts.APIKey
	}
	return h
}

// ThinkingBudget returns the extended-thinking budget in tokens for req, and
// 0 when thinking is off. A positive Request.ThinkingBudget wins (raised to
// [MinThinkingBudget]); otherwise Request.ReasoningEffort maps as
// minimal → 1024, low → 4096, medium → 8192, high → 24576 (case-insensitive;
// "" → off). The low/medium/high steps follow the common "think" /
// "think hard" / "think harder" budgets of coding agents, kept under 32 K so
// that budget + answer fits every thinking model's output limit. It returns
// an error naming the valid values for any other effort.
func ThinkingBudget(req *llm.Request) (int, error) {
	if req.ThinkingBudget > 0 {
		return max(req.ThinkingBudget, MinThinkingBudget), nil
	}
	switch strings.ToLower(strings.TrimSpace(req.ReasoningEffort)) {
	case "":
		return 0, nil
	case "minimal":
		return MinThinkingBudget, nil
	case "low":
		return 4096, nil
	case "medium":
		return 8192, nil
	case "high":
		return 24576, nil
	}
	return 0, fmt.Errorf("unknown reasoning effort %q: use minimal, low, medium or high (or a thinking budget in tokens)", req.ReasoningEffort)
}

// MaxTokens returns the max_tokens value sent for req given its thinking
// budget (0: off): Request.MaxTokens or [DefaultMaxTokens]; when that does
// not exceed the budget, budget + that value, so the answer keeps room after
// the thinking (the API requires budget_tokens < max_tokens).
func MaxTokens(req *llm.Request, budget int) int {
	n := req.MaxTokens
	if n <= 0 {
		n = DefaultMaxTokens
	}
	if budget > 0 && n <= budget {
		n += budget
	}
	return n
}
