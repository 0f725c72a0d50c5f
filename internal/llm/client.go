package llm

import (
	"context"
	"net/http"
	"time"
)

// Client sends requests to one model host in one wire format (the model
// client of a provider; catalog.Provider describes the provider itself).
//
// Generate sends req, reports the answer to h as it arrives (streamed or not)
// and returns the complete response. On error it returns the response
// assembled so far (the partial text and the tool calls already complete,
// never nil) together with an error that is an [*APIError] for provider and
// transport failures, or ctx.Err() when the context was cancelled.
type Client interface {
	Generate(ctx context.Context, req *Request, h Handler) (*Response, error)
}

// ClientFunc adapts a function to [Client].
type ClientFunc func(ctx context.Context, req *Request, h Handler) (*Response, error)

// Generate calls f.
func (f ClientFunc) Generate(ctx context.Context, req *Request, h Handler) (*Response, error) {
	return f(ctx, req, h)
}

// Options configures a wire-format client.
//
// Name is the provider's name in messages ("openai", "groq", ...). BaseURL is
// the API root including its version path where the API has one
// ("https://api.openai.com/v1", "https://api.anthropic.com/v1",
// "https://generativelanguage.googleapis.com/v1beta"); Ollama's native API
// root has none ("http://localhost:11434").
// The client appends its endpoint path ("/chat/completions", "/responses",
// "/messages", "/models/{model}:generateContent", "/api/chat").
// KeyEnv names the key's variable for error hints. RequestTimeout bounds the
// time until the first byte of the response body arrives (0: no limit): a
// model reading a long prompt sends nothing until it starts to answer, so
// that whole wait is the request's. IdleTimeout bounds the silence between
// two reads of the body once its first byte has arrived (0: no limit).
// Local marks a server on the user's machine (Ollama, the llama.cpp server,
// LM Studio, any loopback address): its errors say so, and its timeouts are
// not retried (the server would start reading the whole prompt again).
// Headers are added to every request. HTTPClient defaults to a client
// without a global timeout (the timeouts above apply instead).
type Options struct {
	Name           string
	BaseURL        string
	APIKey         string
	KeyEnv         string
	Headers        map[string]string
	HTTPClient     *http.Client
	RequestTimeout time.Duration
	IdleTimeout    time.Duration
	Local          bool
}

// Client returns o.HTTPClient or a default client.
func (o *Options) Client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{}
}
