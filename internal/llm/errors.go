package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrorKind classifies a failed model request so the engine can act on it.
type ErrorKind string

// The kinds of [APIError].
const (
	KindUnknown        ErrorKind = "unknown"
	KindAuth           ErrorKind = "auth"             // 401: missing or wrong key
	KindPermission     ErrorKind = "permission"       // 403
	KindNotFound       ErrorKind = "not_found"        // 404: usually an unknown model
	KindBadRequest     ErrorKind = "bad_request"      // 400 and other 4xx
	KindContextTooLong ErrorKind = "context_too_long" // the prompt does not fit the context window
	KindRateLimit      ErrorKind = "rate_limit"       // 429
	KindOverloaded     ErrorKind = "overloaded"       // 529, Anthropic overloaded_error
	KindServer         ErrorKind = "server"           // 500-504
	KindStream         ErrorKind = "stream"           // an error event inside a stream, or a malformed stream
	KindStreamCut      ErrorKind = "stream_cut"       // the connection ended before the answer did
	KindTimeout        ErrorKind = "timeout"          // request timeout or stream idle timeout
	KindNetwork        ErrorKind = "network"          // the connection failed after it was made (reset, TLS)
	KindUnreachable    ErrorKind = "unreachable"      // the host could not be reached at all: DNS failure, connection refused
)

// APIError is a failed model request, with the provider's own message.
//
// Status is the HTTP status (0 for in-stream and network errors), Type and
// Code the provider's error type/code strings where given, RetryAfter the
// delay the provider asked for (retry-after / retry-after-ms headers; 0 when
// absent). KeyEnv and Model, when set, make the message actionable
// ("check OPENAI_API_KEY", "model X not found: run aidex models"). Local
// marks an error from a model server on the user's machine ([Options].Local):
// its hints say so and its timeouts are not retried.
type APIError struct {
	Kind       ErrorKind
	Provider   string
	Status     int
	Type       string
	Code       string
	Message    string
	RetryAfter time.Duration
	KeyEnv     string
	Model      string
	Local      bool
	Err        error
}

// Error returns the provider, status and message, followed by a hint on how
// to fix it: "groq: HTTP 401: Invalid key (check GROQ_API_KEY)", or for an
// unreachable host "openai: cannot reach api.openai.com: lookup
// api.openai.com: no such host; check your network or choose a local
// provider with --model ollama/...".
func (e *APIError) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d: ", e.Status)
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg == "" {
		msg = string(e.Kind) + " error"
	}
	b.WriteString(msg)
	switch hint := e.hint(); {
	case hint == "":
	case e.Kind == KindUnreachable:
		b.WriteString("; ")
		b.WriteString(hint)
	default:
		b.WriteString(" (")
		b.WriteString(hint)
		b.WriteString(")")
	}
	return b.String()
}

func (e *APIError) hint() string {
	switch e.Kind {
	case KindAuth:
		if e.KeyEnv != "" {
			return "check " + e.KeyEnv
		}
		return "check the provider's API key"
	case KindNotFound:
		if e.Model != "" {
			return fmt.Sprintf("model %q not found: run `aidex models --provider %s` to list models", e.Model, e.Provider)
		}
	case KindContextTooLong:
		return "the conversation is longer than the model's context window: compact it or start a new session"
	case KindRateLimit:
		return "rate limited: wait, or pick another model or provider"
	case KindTimeout:
		if e.Local {
			return "a model on this machine can take minutes to read a long prompt: raise request_timeout"
		}
		return "raise request_timeout or stream_idle_timeout if the model is slow"
	case KindUnreachable:
		if e.Local {
			return "is the model server running? Start it (for Ollama: ollama serve) or check the provider's base_url"
		}
		return "check your network or choose a local provider with --model ollama/..."
	}
	return ""
}

// Unwrap returns the underlying error, if any.
func (e *APIError) Unwrap() error { return e.Err }

// Retryable reports whether retrying the same request may succeed: rate
// limits, overload, 5xx server errors, network failures and timeouts before
// any output. Never 400/401/403/404, never an unreachable host (offline, a
// wrong host name, a server that is not running: a retry would fail the
// same way), and never a timeout of a local server (it would start reading
// the whole prompt again).
func (e *APIError) Retryable() bool {
	switch e.Kind {
	case KindRateLimit, KindOverloaded, KindServer, KindNetwork:
		return true
	case KindTimeout:
		return !e.Local
	}
	return false
}

// KindOf returns the kind of err's [*APIError], or KindUnknown.
func KindOf(err error) ErrorKind {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return KindUnknown
}

// IsUnreachable reports whether err says the provider's host could not be
// reached at all (its name did not resolve, or the connection was refused
// or had no route): the user is offline, the host name is wrong, or a local
// server is not running. Such errors are not retried.
func IsUnreachable(err error) bool { return KindOf(err) == KindUnreachable }

// IsContextTooLong reports whether err says the prompt exceeded the model's
// context window.
func IsContextTooLong(err error) bool { return KindOf(err) == KindContextTooLong }

// contextTooLongMarkers are lowercase fragments of the messages providers use
// when a prompt does not fit (OpenAI context_length_exceeded, Anthropic
// "prompt is too long", Gemini "exceeds the maximum number of tokens",
// llama.cpp/vLLM/Ollama variants).
var contextTooLongMarkers = [...]string{
	"context_length_exceeded", "context length", "context window", "prompt is too long",
	"maximum context", "too many tokens", "exceeds the maximum number of tokens",
	"input is too long", "reduce the length", "request too large", "string_above_max_length",
	"exceed_context_size", "exceeds the context",
}

func looksContextTooLong(s string) bool {
	s = strings.ToLower(s)
	for _, m := range contextTooLongMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// errorBody matches the error shapes providers send: OpenAI and compatible
// hosts `{"error":{"message","type","code"}}`, Anthropic
// `{"type":"error","error":{"type","message"}}`, Gemini
// `{"error":{"code","message","status"}}`, Ollama `{"error":"..."}`, and
// `{"message": "..."}` / `{"detail": "..."}` from some hosts.
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
	Detail  json.RawMessage `json:"detail"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Status  string          `json:"status"`
}

// ParseErrorBody extracts the message, type and code from an error body of
// any provider. When the body is not JSON, a trimmed prefix of it becomes
// the message.
func ParseErrorBody(body []byte) (msg, typ, code string) {
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil {
		if len(eb.Error) > 0 {
			var obj errorObject
			if json.Unmarshal(eb.Error, &obj) == nil {
				code = strings.Trim(string(obj.Code), `"`)
				typ = obj.Type
				if typ == "" {
					typ = obj.Status
				}
				if obj.Message != "" {
					return obj.Message, typ, code
				}
			}
			var s string
			if json.Unmarshal(eb.Error, &s) == nil && s != "" {
				return s, typ, code
			}
		}
		if eb.Message != "" {
			return eb.Message, typ, code
		}
		var s string
		if len(eb.Detail) > 0 && json.Unmarshal(eb.Detail, &s) == nil && s != "" {
			return s, typ, code
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s, typ, code
}

// NewHTTPError builds the [*APIError] for a non-2xx response from its status,
// headers and body.
func NewHTTPError(provider string, status int, header http.Header, body []byte) *APIError {
	msg, typ, code := ParseErrorBody(body)
	if msg == "" {
		msg = http.StatusText(status)
	}
	e := &APIError{Provider: provider, Status: status, Type: typ, Code: code, Message: msg}
	e.RetryAfter = RetryAfter(header)
	e.Kind = classify(status, typ+" "+code, msg)
	return e
}

func classify(status int, typeCode, msg string) ErrorKind {
	tc := strings.ToLower(typeCode)
	switch {
	case strings.Contains(tc, "overloaded") || status == 529:
		return KindOverloaded
	case looksContextTooLong(tc) || (status == 400 || status == 413 || status == 422) && looksContextTooLong(msg):
		return KindContextTooLong
	case status == 401:
		return KindAuth
	case status == 403:
		return KindPermission
	case status == 404:
		return KindNotFound
	case status == 408:
		return KindTimeout
	case status == 429 || strings.Contains(tc, "rate_limit"):
		return KindRateLimit
	case status >= 500 && status <= 599:
		return KindServer
	case status >= 400:
		return KindBadRequest
	}
	return KindUnknown
}

// NewStreamError builds the [*APIError] for an error event inside a stream
// (OpenRouter's `{"error":{...}}` chunk, Anthropic's `event: error`), from
// the event's JSON payload.
func NewStreamError(provider string, payload []byte) *APIError {
	msg, typ, code := ParseErrorBody(payload)
	e := &APIError{Provider: provider, Kind: KindStream, Type: typ, Code: code, Message: msg}
	switch k := classify(0, typ+" "+code, msg); k {
	case KindOverloaded, KindRateLimit, KindContextTooLong:
		e.Kind = k
	default:
		if looksContextTooLong(msg) {
			e.Kind = KindContextTooLong
		}
	}
	if st, err := strconv.Atoi(code); err == nil && st >= 400 {
		if k := classify(st, typ, msg); k != KindBadRequest {
			e.Kind = k
		}
	}
	return e
}

// RetryAfter reads the delay a response asks for: `retry-after-ms`
// (milliseconds, OpenAI), then `retry-after` (seconds or an HTTP date).
// It returns 0 when neither is present or parsable.
func RetryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
