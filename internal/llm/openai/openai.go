// Package openai is aidex's client for the OpenAI Chat Completions API
// (POST {base}/chat/completions), streamed or not, and for every host that
// speaks it: OpenRouter, Groq, Cerebras, Mistral, DeepSeek, xAI, Z.ai,
// Hugging Face, the Vercel AI Gateway, Azure's v1 endpoint, vLLM, LM Studio,
// the llama.cpp server and Ollama's /v1.
//
// Wire references:
//   - request and response: https://platform.openai.com/docs/api-reference/chat
//   - stream chunks: https://platform.openai.com/docs/api-reference/chat-streaming
//   - OpenRouter reasoning and errors: https://openrouter.ai/docs/use-cases/reasoning-tokens,
//     https://openrouter.ai/docs/api-reference/errors
//   - DeepSeek reasoning_content and cache fields: https://api-docs.deepseek.com/guides/reasoning_model
//   - Gemini's OpenAI compatibility (thought signatures): https://ai.google.dev/gemini-api/docs/openai
//   - `max_tokens` "is not compatible with o-series models", `max_completion_tokens`
//     and `verbosity` (low, medium, high): https://platform.openai.com/docs/api-reference/chat/create
//   - back ends that reject `stream_options` (Mistral 422; Databricks, Azure
//     deployments): https://github.com/openai/openai-agents-python/issues/442
//
// Mapping of [llm.Request]:
//   - System becomes the first message (role system). User text and images
//     become content parts (`text`, `image_url`; image bytes as data URLs).
//   - Assistant tool calls become `tool_calls` with arguments as a JSON
//     string; tool results become one role `tool` message each, with
//     `tool_call_id`.
//   - Tools become `{"type":"function","function":{name,description,parameters}}`.
//   - When streaming, `stream_options: {"include_usage": true}` asks for the
//     usage chunk (not on Mistral, which rejects it and sends usage anyway,
//     nor where Options.StreamOptions is false).
//   - MaxTokens goes out as `max_completion_tokens` to api.openai.com and
//     Azure and for OpenAI's reasoning models (o-series, gpt-5) on every
//     host, `max_tokens` elsewhere; Verbosity as `verbosity`; ReasoningEffort as `reasoning_effort`,
//     or `reasoning: {effort}` on OpenRouter and the Vercel AI Gateway.
//     These host differences live in one table (see quirks.go).
//   - Reasoning is sent back only where the host wants it: `reasoning_details`
//     (OpenRouter, Vercel AI Gateway) or `reasoning_content` (DeepSeek,
//     Moonshot, Z.ai); other hosts reject or ignore unknown message fields.
//
// Reading the answer:
//   - Text from `content` (a string, or Mistral's list of text/thinking
//     parts); a `refusal` is reported as text.
//   - Reasoning from `reasoning_details` when it carries text, else
//     `reasoning_content` (DeepSeek, xAI, vLLM, llama.cpp), else `reasoning`
//     (OpenRouter, Groq, Ollama). Signatures and encrypted reasoning in
//     `reasoning_details` are kept on the reasoning part, to be sent back
//     unchanged: Part.Signature holds the signature, or the encrypted data
//     with Part.Redacted set; Part.ID holds "<format>|<id>" (the detail's
//     format, such as "anthropic-claude-v1", and its id).
//   - Tool calls are assembled from deltas by `index`; a missing index is
//     matched by id, a new id at a used index starts a new call, arguments
//     sent as a JSON object are accepted, and calls without an id get
//     `call_<n>` (n: the call's position in the answer). The legacy
//     `function_call` is read as a tool call. Calls are reported complete,
//     when the finish_reason (or the end of the stream) arrives.
//   - Usage from the chunk that carries it: prompt_tokens, completion_tokens,
//     prompt_tokens_details.{cached_tokens,cache_write_tokens},
//     completion_tokens_details.reasoning_tokens, and DeepSeek's
//     prompt_cache_hit_tokens / the gateways' cache_creation_input_tokens.
//   - `data: [DONE]` ends the stream; a clean end of the body after a
//     finish_reason is a complete answer too (some hosts omit [DONE]); an end
//     before either is [llm.KindStreamCut].
//   - An `{"error":{...}}` chunk or `finish_reason: "error"` (OpenRouter) is
//     an error, with the partial answer kept.
package openai

import (
	"context"
	"net/url"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// DefaultBaseURL is the API root used when Options.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configures a [Client]: the shared [llm.Options] plus this wire
// format's own switches.
//
// SplitThinkTags moves text the model writes between `<think>` and
// `</think>` in its content (Qwen3, DeepSeek-R1 and other open models on
// hosts that do not separate reasoning) into reasoning. It is off by default:
// content is then reported exactly as the host sent it.
type Options struct {
	llm.Options
	SplitThinkTags bool
	// StreamOptions, when not nil, says whether a streamed request sends
	// `stream_options: {"include_usage": true}`; nil leaves it to the host
	// table (everywhere but Mistral). False is for compatible back ends
	// that reject the field ([providers.NAME] stream_options = false).
	StreamOptions *bool
}

// Client is an [llm.Client] speaking OpenAI Chat Completions. It holds no
// mutable state and is safe for concurrent use.
type Client struct {
	opts   Options
	url    string
	quirks quirks
	cache  *llm.WireCache // each message's encoding, reused by later requests
}

// New returns a client for opts. An empty Name becomes "openai" and an empty
// BaseURL [DefaultBaseURL]; a trailing slash of the base URL is ignored. The
// host of the base URL selects the host quirks (see quirks.go). APIKey, when
// set, is sent as `Authorization: Bearer` (and as `api-key` to Azure).
func New(opts Options) *Client {
	if opts.Name == "" {
		opts.Name = "openai"
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	host := ""
	if u, err := url.Parse(opts.BaseURL); err == nil {
		host = u.Hostname()
	}
	q := quirksFor(host)
	if opts.StreamOptions != nil {
		q.noStreamOptions = !*opts.StreamOptions
	}
	return &Client{opts: opts, url: opts.BaseURL + "/chat/completions", quirks: q, cache: &llm.WireCache{}}
}

// Generate sends req to {base}/chat/completions and reports the answer to h
// as it arrives (see [llm.Client]). It returns the response assembled so
// far together with an [*llm.APIError] on provider and transport failures:
// HTTP errors by status and error body, an in-stream error chunk or
// `finish_reason: "error"` as [llm.KindStream] (or the kind its code names,
// such as rate limit), a chunk or body that is not valid JSON as
// [llm.KindStream] ([llm.KindStreamCut] when it is cut short), a stream
// that ends early as [llm.KindStreamCut], silence longer than
// IdleTimeout as [llm.KindTimeout], and a request that cannot be built (no
// model, an image without bytes or URL) as [llm.KindBadRequest]. A cancelled
// ctx gives ctx.Err(). The body is read by its first byte, not by req.Stream
// or Content-Type: `{` is one whole completion (a host that ignored
// `stream`), an SSE field is a stream, anything else (an HTML page from a
// wrong base URL) is [llm.KindStream].
func (c *Client) Generate(ctx context.Context, req *llm.Request, h llm.Handler) (*llm.Response, error) {
	acc := llm.NewAccumulatorFor(req, h)
	wr, err := buildBody(req, c.quirks, c.cache)
	if err != nil {
		return llm.Finish(ctx, acc, req, &llm.APIError{Provider: c.opts.Name, Kind: llm.KindBadRequest, Message: err.Error(), Err: err})
	}
	body, _, err := llm.PostSpliced(ctx, &c.opts.Options, c.url, wr, c.headers())
	if err != nil {
		return llm.Finish(ctx, acc, req, err)
	}
	defer body.Close()
	err = newDecoder(acc, c.opts.Name, c.opts.SplitThinkTags).read(body)
	return llm.Finish(ctx, acc, req, err)
}

// headers returns the per-request headers: the key, as a bearer token (and
// as `api-key` where the host wants that).
func (c *Client) headers() map[string]string {
	h := map[string]string{}
	if c.opts.APIKey != "" {
		h["Authorization"] = "Bearer " + c.opts.APIKey
		if c.quirks.apiKeyHeader {
			h["api-key"] = c.opts.APIKey
		}
	}
	return h
}
