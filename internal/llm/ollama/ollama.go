// Package ollama is aidex's client for Ollama's native chat API
// (POST {base}/api/chat), streamed as NDJSON or not.
//
// Wire reference: https://github.com/ollama/ollama/blob/main/docs/api.md
// ("Generate a chat completion"), and the Go types of the server,
// https://github.com/ollama/ollama/blob/main/api/types.go.
//
// Ollama also serves the OpenAI wire at {base}/v1 (use package openai for
// that). Its /api/generate endpoint (prompt in, `response` text out) is not a
// wire aidex uses for chat: it has no messages, tools or tool calls, so this
// client does not speak it, and the recorded `ollama_generate` exchanges are
// not replayed.
//
// Mapping of [llm.Request]:
//   - System becomes the first message (role system). Images travel as
//     base64 `images` on their message; Ollama does not fetch URLs, so only
//     image bytes (or data: URLs) can be sent.
//   - Assistant tool calls become `tool_calls[].function.{name,arguments}`
//     with arguments as a JSON object; assistant reasoning goes back as
//     `thinking`. Tool results become role `tool` messages with `tool_name`
//     and `tool_call_id`.
//   - MaxTokens becomes `options.num_predict`, Temperature
//     `options.temperature`, [Options].NumCtx `options.num_ctx`.
//   - ReasoningEffort or ThinkingBudget turns on `think: true` (gpt-oss
//     models take the effort level itself: "low", "medium", "high").
//
// Reading the answer: `message.content` is text, `message.thinking`
// reasoning; `message.tool_calls` arrive whole and are reported at once, with
// Ollama's id when it gives one, else `call_<n>` (n: the call's position in
// the answer). The chunk with `done: true` carries `done_reason` (the finish
// reason) and `prompt_eval_count` / `eval_count` (usage). A line
// `{"error": "..."}` is an error; a body that ends before `done: true` is
// [llm.KindStreamCut].
package ollama

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// DefaultBaseURL is the API root used when Options.BaseURL is empty: a local
// Ollama server.
const DefaultBaseURL = "http://localhost:11434"

// Options configures a [Client]: the shared [llm.Options] plus Ollama's own.
//
// NumCtx is the context window to load the model with, in tokens
// (`options.num_ctx`); 0 leaves Ollama's default, which is small (2048 to
// 8192 tokens depending on the version) and silently truncates long
// conversations, so callers should set it from the model's context window.
type Options struct {
	llm.Options
	NumCtx int
}

// Client is an [llm.Client] speaking Ollama's /api/chat. It holds no
// mutable state and is safe for concurrent use.
type Client struct {
	opts  Options
	url   string
	cache *llm.WireCache // each message's encoding, reused by later requests
}

// New returns a client for opts. An empty Name becomes "ollama" and an empty
// BaseURL [DefaultBaseURL]; a trailing slash, or a trailing "/v1" or "/api"
// (the roots of Ollama's other APIs), is dropped. APIKey, when set (Ollama's
// cloud, or a proxy in front of a server), is sent as `Authorization: Bearer`.
func New(opts Options) *Client {
	if opts.Name == "" {
		opts.Name = "ollama"
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	base := strings.TrimRight(opts.BaseURL, "/")
	for _, suffix := range []string{"/v1", "/api"} {
		base = strings.TrimSuffix(base, suffix)
	}
	opts.BaseURL = base
	return &Client{opts: opts, url: base + "/api/chat", cache: &llm.WireCache{}}
}

// Generate sends req to {base}/api/chat and reports the answer to h as it
// arrives (see [llm.Client]). It returns the response assembled so far
// together with an [*llm.APIError] on provider and transport failures: HTTP
// errors by status and `{"error": ...}` body (an unknown model is
// [llm.KindNotFound]), an error line inside the stream as [llm.KindStream]
// (or the kind its code names), a line that is not JSON as
// [llm.KindStream], a body that ends before `done: true` as
// [llm.KindStreamCut], silence longer than IdleTimeout as [llm.KindTimeout],
// and a request that cannot be built (no model, an image URL) as
// [llm.KindBadRequest]. A cancelled ctx gives ctx.Err().
func (c *Client) Generate(ctx context.Context, req *llm.Request, h llm.Handler) (*llm.Response, error) {
	acc := llm.NewAccumulatorFor(req, h)
	wr, err := buildBody(req, c.opts.NumCtx, c.cache)
	if err != nil {
		return llm.Finish(ctx, acc, req, &llm.APIError{Provider: c.opts.Name, Kind: llm.KindBadRequest, Message: err.Error(), Err: err})
	}
	var extra map[string]string
	if c.opts.APIKey != "" {
		extra = map[string]string{"Authorization": "Bearer " + c.opts.APIKey}
	}
	body, _, err := llm.PostSpliced(ctx, &c.opts.Options, c.url, wr, extra)
	if err != nil {
		return llm.Finish(ctx, acc, req, err)
	}
	defer body.Close()
	err = readStream(body, acc, c.opts.Name)
	return llm.Finish(ctx, acc, req, err)
}
