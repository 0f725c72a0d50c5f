package openai

import "strings"

// effortStyle says how a host takes Request.ReasoningEffort.
type effortStyle uint8

const (
	// effortParam sends `reasoning_effort: "<effort>"` (OpenAI and most
	// compatible hosts: xAI, Groq, Z.ai, vLLM, llama.cpp, Ollama /v1).
	effortParam effortStyle = iota
	// effortObject sends `reasoning: {"effort": "<effort>"}` (OpenRouter,
	// Vercel AI Gateway).
	effortObject
	// effortNone sends nothing: the host rejects unknown fields.
	effortNone
)

// echoStyle says how a host wants earlier reasoning sent back on assistant
// messages.
type echoStyle uint8

const (
	// echoNone drops reasoning: most hosts ignore it, some reject the field.
	echoNone echoStyle = iota
	// echoContent sends the text as `reasoning_content` (DeepSeek, Moonshot,
	// Z.ai, whose thinking-with-tools needs it back).
	echoContent
	// echoDetails sends `reasoning_details` with signatures and encrypted
	// data (OpenRouter, Vercel AI Gateway).
	echoDetails
)

// quirks are the differences between hosts of the Chat Completions wire.
// The zero value is the OpenAI-compatible default.
type quirks struct {
	// maxCompletionTokens sends the output cap as `max_completion_tokens`
	// (required by OpenAI's reasoning models) instead of `max_tokens`.
	maxCompletionTokens bool
	effort              effortStyle
	echo                echoStyle
	// noStreamOptions leaves out `stream_options` (Mistral answers 422 to
	// it, and sends the usage chunk anyway).
	noStreamOptions bool
	// thoughtSignatures sends Gemini thought signatures back on tool calls
	// (`extra_content.google.thought_signature`).
	thoughtSignatures bool
	// apiKeyHeader sends the key as `api-key` too (Azure).
	apiKeyHeader bool
}

// hostQuirks is the table of hosts that differ from the default, matched by
// host name suffix (the host itself or a subdomain). Sources: each host's API
// reference; Mistral's 422 on stream_options:
// https://github.com/avante-corp/avante.nvim/issues/2347.
var hostQuirks = [...]struct {
	suffix string
	q      quirks
}{
	{"api.openai.com", quirks{maxCompletionTokens: true}},
	{"openai.azure.com", quirks{maxCompletionTokens: true, apiKeyHeader: true}},
	{"openrouter.ai", quirks{effort: effortObject, echo: echoDetails}},
	{"ai-gateway.vercel.sh", quirks{effort: effortObject, echo: echoDetails}},
	{"api.mistral.ai", quirks{effort: effortNone, noStreamOptions: true}},
	{"api.deepseek.com", quirks{echo: echoContent}},
	{"api.moonshot.ai", quirks{echo: echoContent}},
	{"api.moonshot.cn", quirks{echo: echoContent}},
	{"api.z.ai", quirks{echo: echoContent}},
	{"open.bigmodel.cn", quirks{echo: echoContent}},
	{"generativelanguage.googleapis.com", quirks{thoughtSignatures: true}},
}

// quirksFor returns the quirks of a host name ("" or unknown: the default).
func quirksFor(host string) quirks {
	host = strings.ToLower(host)
	for _, e := range hostQuirks {
		if host == e.suffix || strings.HasSuffix(host, "."+e.suffix) {
			return e.q
		}
	}
	return quirks{}
}
