// Package responses is aidex's client for the OpenAI Responses API wire
// format (https://platform.openai.com/docs/api-reference/responses; stream
// events: https://platform.openai.com/docs/api-reference/responses-streaming),
// as OpenAI, Azure OpenAI and compatible hosts serve it.
//
// Requests go to `POST {BaseURL}/responses` with `Authorization: Bearer`.
// aidex keeps the conversation itself, so every request is stateless:
// `store: false`, the whole history in `input`, and reasoning carried from
// turn to turn as encrypted content (`include: ["reasoning.encrypted_content"]`).
//
// Mapping to the provider-neutral [llm] types:
//   - [llm.Request.System] becomes `instructions`; user messages are
//     `message` items of input_text/input_image content; assistant text is a
//     `message` item of output_text content; tool calls are `function_call`
//     items and tool results `function_call_output` items (by call_id).
//   - A reasoning item becomes an [llm.PartReasoning] with its summary (or
//     reasoning text) as Text, its encrypted_content as Signature and its id
//     as ID. It is sent back as a `reasoning` item with summary and
//     encrypted_content but without the id: with store false the server
//     keeps no items, and an id makes it look one up ("Item with id 'rs_…'
//     not found"). Reasoning parts without encrypted content, or not from
//     this API (no id), are not sent back.
//   - Tools are `{type: "function", name, description, parameters, strict:
//     false}`; ReasoningEffort becomes `reasoning: {effort, summary: "detailed"}`;
//     MaxTokens becomes `max_output_tokens`.
//   - Usage: InputTokens = input_tokens, OutputTokens = output_tokens,
//     CacheReadTokens = input_tokens_details.cached_tokens, ReasoningTokens =
//     output_tokens_details.reasoning_tokens.
//   - The finish reason is the response's status ("completed"), or for an
//     incomplete response the incomplete_details.reason ("max_output_tokens",
//     "content_filter"). A stream is complete at response.completed or
//     response.incomplete; one that ends before is a stream cut.
package responses

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// DefaultBaseURL is the API root used when [llm.Options.BaseURL] is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// defaultName is the provider name in error messages when Options.Name is
// empty.
const defaultName = "openai"

// Client sends requests in the Responses API wire format. It is safe for
// concurrent use. The zero value is not usable; use [New].
type Client struct {
	opts  llm.Options
	cache *llm.WireCache // each message's encoding, reused by later requests
}

// New returns a client for o. An empty o.Name becomes "openai" and an empty
// o.BaseURL becomes [DefaultBaseURL]; o.APIKey, when set, is sent as
// `Authorization: Bearer <key>` unless o.Headers sets Authorization itself
// (hosts such as Azure take their key in o.Headers, e.g. `api-key`).
func New(o llm.Options) *Client {
	if o.Name == "" {
		o.Name = defaultName
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	return &Client{opts: o, cache: &llm.WireCache{}}
}

// Generate sends req and reports the answer to h as it arrives (see
// [llm.Client]). Errors are [*llm.APIError] values: HTTP failures by
// status; for response.failed and `error` events the kind their code implies
// (rate limit, context too long, server) or KindStream; KindStream for a
// malformed event; KindStreamCut when the stream ends before
// response.completed; KindBadRequest when req cannot be expressed in this
// wire format. ctx.Err() when ctx was cancelled. The response assembled so
// far is always returned.
func (c *Client) Generate(ctx context.Context, req *llm.Request, h llm.Handler) (*llm.Response, error) {
	st := newState(llm.NewAccumulatorFor(req, h), c.opts.Name)
	body, err := buildBody(req, c.cache)
	if err != nil {
		return st.result(ctx, req, &llm.APIError{Provider: c.opts.Name, Kind: llm.KindBadRequest, Message: err.Error(), Err: err})
	}
	extra := map[string]string{}
	if c.opts.APIKey != "" && !hasHeader(c.opts.Headers, "Authorization") {
		extra["Authorization"] = "Bearer " + c.opts.APIKey
	}
	if req.Stream {
		extra["Accept"] = "text/event-stream"
	}
	b, _, err := llm.PostSpliced(ctx, &c.opts, c.opts.BaseURL+"/responses", body, extra)
	if err != nil {
		return st.result(ctx, req, err)
	}
	defer b.Close()
	if req.Stream {
		err = st.readStream(b)
	} else {
		err = st.readBody(b)
	}
	return st.result(ctx, req, err)
}

// hasHeader reports whether h sets name (case-insensitively).
func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
