// Package llm holds aidex's provider-neutral model types and the machinery
// every wire-format client shares.
//
// A conversation is a list of [Message] values made of [Part]s (text, image,
// reasoning, tool call, tool result). A [Request] carries the conversation,
// the system prompt and the tools offered (JSON Schema). A [Client] sends a
// request and reports what the model produces as a stream of [Event]s to a
// [Handler]; it also returns the complete [Response] (the assistant message,
// the finish reason and the token [Usage]). Clients for the individual wire
// formats live in sub-packages (openai, responses, anthropic, gemini, ollama).
//
// Each wire client keeps a [WireCache] of every message's encoding and
// sends a [Spliced] body: only the messages new or changed since the last
// request are encoded, so a turn of a long session costs about the same as
// an early one (issue 40), with the bytes sent unchanged.
//
// Failures are [*APIError] values with a [ErrorKind] the engine can act on
// (authentication, rate limit, context too long, stream cut, ...). [Retry]
// wraps a Provider with exponential backoff and jitter.
package llm
