// Package gemini is aidex's client for the Gemini API's generateContent
// wire format (https://ai.google.dev/api/generate-content): Google AI Studio
// (generativelanguage.googleapis.com) and hosts that speak the same shape
// (Vertex AI answers with the same response objects).
//
// Requests go to `POST {BaseURL}/models/{model}:generateContent`, or
// `:streamGenerateContent?alt=sse` when streaming, with the API key in the
// `x-goog-api-key` header. Streams are Server-Sent Events of
// GenerateContentResponse objects; a JSON array of them (what the endpoint
// sends without `alt=sse`) is accepted as well.
//
// Mapping to the provider-neutral [llm] types:
//   - [llm.Request.System] becomes `systemInstruction`; user messages are
//     `user` contents, assistant messages `model` contents, tool results
//     `user` contents of functionResponse parts (named after the call, with
//     the call id when the API gave one; output under `output`, failures
//     under `error`).
//   - Parts marked `thought: true` are reasoning ([llm.PartReasoning]).
//   - A `thoughtSignature` stays on the part it came with: on
//     [llm.ToolCall.Signature] for function calls, on [llm.Part.Signature] of
//     the text or reasoning part otherwise (an empty text part carrying only a
//     signature is kept as an empty [llm.PartText] with Signature). The next
//     request sends each signature back on the same part, unchanged, as
//     https://ai.google.dev/gemini-api/docs/thought-signatures requires.
//   - Gemini gives function calls no id on most models; those calls get
//     generated ids "call_<n>" (unique per [Client]) that are never sent back
//     to the API.
//   - Tool schemas are sent as JSON Schema in `parametersJsonSchema` (see
//     [CleanJSONSchema]), the form Google recommends for JSON Schema input;
//     [WithOpenAPISchemas] sends them converted to the OpenAPI 3.0 subset of
//     the older `parameters` field instead (see [ConvertSchema]), for hosts
//     and models without parametersJsonSchema.
//   - Usage: InputTokens = promptTokenCount, OutputTokens =
//     candidatesTokenCount + thoughtsTokenCount, CacheReadTokens =
//     cachedContentTokenCount, ReasoningTokens = thoughtsTokenCount.
//   - The finish reason is the candidate's finishReason string ("STOP",
//     "MAX_TOKENS", "SAFETY", ...; hosts that encode enums as numbers get
//     them reported by name). A stream is complete when a finishReason was
//     seen; one that ends without it is a stream cut. A prompt refused with
//     promptFeedback.blockReason is an error.
//   - Function calls streamed in pieces (Vertex AI partialArgs/willContinue)
//     are assembled and reported once complete.
package gemini

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/zelvior/aidex/internal/llm"
)

// DefaultBaseURL is the Gemini API root used when [llm.Options.BaseURL] is
// empty.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// defaultName is the provider name in error messages when Options.Name is
// empty.
const defaultName = "gemini"

// Client sends requests in the Gemini generateContent wire format. It is safe
// for concurrent use. The zero value is not usable; use [New].
type Client struct {
	opts    llm.Options
	openAPI bool
	ids     atomic.Uint64
	caches  *[2]llm.WireCache // each message's encoding (without and with Gemini 3's signature rule)
}

// Option changes how a [Client] builds requests.
type Option func(*Client)

// WithOpenAPISchemas makes the client send tool schemas as
// FunctionDeclaration.parameters, converted by [ConvertSchema], instead of
// parametersJsonSchema.
func WithOpenAPISchemas() Option {
	return func(c *Client) { c.openAPI = true }
}

// New returns a client for o. An empty o.Name becomes "gemini" and an empty
// o.BaseURL becomes [DefaultBaseURL]; o.APIKey, when set, is sent in the
// `x-goog-api-key` header.
func New(o llm.Options, opts ...Option) *Client {
	if o.Name == "" {
		o.Name = defaultName
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	c := &Client{opts: o, caches: &[2]llm.WireCache{}}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// Generate sends req and reports the answer to h as it arrives (see
// [llm.Client]). Errors are [*llm.APIError] values: HTTP failures by
// status, KindStream for an in-stream error or a malformed chunk,
// KindStreamCut when the stream ends without a finishReason, KindBadRequest
// when the prompt was blocked (promptFeedback.blockReason) or req cannot be
// expressed in this wire format; ctx.Err() when ctx was cancelled. The
// response assembled so far is always returned.
func (c *Client) Generate(ctx context.Context, req *llm.Request, h llm.Handler) (*llm.Response, error) {
	st := newState(llm.NewAccumulatorFor(req, h), c.opts.Name, c.nextID)
	body, err := buildBody(req, c.openAPI, c.caches)
	if err != nil {
		return st.result(ctx, req, &llm.APIError{Provider: c.opts.Name, Kind: llm.KindBadRequest, Message: err.Error(), Err: err})
	}
	var extra map[string]string
	if c.opts.APIKey != "" {
		extra = map[string]string{"x-goog-api-key": c.opts.APIKey}
	}
	b, _, err := llm.PostSpliced(ctx, &c.opts, c.endpoint(req), body, extra)
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

// endpoint returns the URL for req's model and stream mode.
func (c *Client) endpoint(req *llm.Request) string {
	model := strings.TrimPrefix(req.Model, "models/")
	u := c.opts.BaseURL + "/models/" + url.PathEscape(model)
	if req.Stream {
		return u + ":streamGenerateContent?alt=sse"
	}
	return u + ":generateContent"
}

// nextID returns a new generated tool call id.
func (c *Client) nextID() string {
	return generatedIDPrefix + strconv.FormatUint(c.ids.Add(1), 10)
}

// generatedIDPrefix starts the ids aidex makes up for calls the API gave no
// id; such ids are not sent back to the API.
const generatedIDPrefix = "call_"

// isGeneratedID reports whether id has the form "call_<digits>".
func isGeneratedID(id string) bool {
	rest, ok := strings.CutPrefix(id, generatedIDPrefix)
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return false
		}
	}
	return true
}
