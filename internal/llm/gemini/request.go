package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// Wire types of the request body
// (https://ai.google.dev/api/generate-content#request-body).

type request struct {
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Contents          []content         `json:"contents"`
	Tools             []toolSet         `json:"tools,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string    `json:"role,omitempty"`
	Parts []outPart `json:"parts"`
}

// outPart is a request part. Text is a pointer so that an empty text part
// carrying a thought signature is still sent.
type outPart struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FileData         *fileData         `json:"fileData,omitempty"`
	FunctionCall     *outFunctionCall  `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
}

type blob struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"`
}

type fileData struct {
	MIMEType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type outFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type toolSet struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	Parameters           map[string]any  `json:"parameters,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
	IncludeThoughts bool   `json:"includeThoughts"`
}

// skipSignature is the value Google documents for function calls whose
// thought signature is unknown (history from another model), so that Gemini 3
// does not reject the request
// (https://ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
const skipSignature = "skip_thought_signature_validator"

// effortBudget maps a reasoning effort to a thinking budget in tokens for
// models that take thinkingBudget (Gemini 2.5): within the range every 2.5
// model accepts (Pro cannot turn thinking off, so "minimal" is not 0).
func effortBudget(effort string) (int, bool) {
	switch effort {
	case "minimal":
		return 512, true
	case "low":
		return 2048, true
	case "medium":
		return 8192, true
	case "high":
		return 24576, true
	}
	return 0, false
}

// buildRequest converts req to the wire request; openAPI selects the
// `parameters` (OpenAPI subset) form of tool schemas over
// `parametersJsonSchema`.
func buildRequest(req *llm.Request, openAPI bool) (*request, error) {
	if req.Model == "" {
		return nil, errors.New("no model given: set the model in the configuration or with --model")
	}
	contents := buildContents(req.Messages, isGemini3Plus(req.Model))
	if len(contents) == 0 {
		return nil, errNoContents
	}
	out, err := buildHead(req, openAPI)
	if err != nil {
		return nil, err
	}
	out.Contents = contents
	return out, nil
}

// errNoContents is the error of a request without any content.
var errNoContents = errors.New("the request has no message content to send: Gemini needs at least one user message")

// buildBody is [buildRequest] with the conversation encoded message by
// message through caches (one per signature rule; nil: no cache): the
// body of the request sent. A message with a tool result that does not
// name its tool (found from the earlier call) is encoded afresh.
func buildBody(req *llm.Request, openAPI bool, caches *[2]llm.WireCache) (*llm.Spliced, error) {
	if req.Model == "" {
		return nil, errors.New("no model given: set the model in the configuration or with --model")
	}
	strict := isGemini3Plus(req.Model)
	var cache *llm.WireCache
	if caches != nil {
		cache = &caches[0]
		if strict {
			cache = &caches[1]
		}
	}
	encode := func(msgs []llm.Message) ([]byte, error) { return llm.MarshalList(buildContents(msgs, strict)) }
	items, err := cache.Encode(req.Messages, func(m *llm.Message) ([]byte, error) { return encode([]llm.Message{*m}) })
	if err != nil {
		return nil, err
	}
	var names map[string]string
	for i := range req.Messages {
		if !namelessResult(&req.Messages[i]) {
			continue
		}
		if names == nil {
			names = callNames(req.Messages)
		}
		if c := contentOf(req.Messages[i], strict, names); len(c.Parts) > 0 {
			b, err := llm.MarshalJSON(c)
			if err != nil {
				return nil, err
			}
			items[i] = llm.WireBytes(b)
		}
	}
	if !slices.ContainsFunc(items, func(it llm.Wire) bool { return it.Len() > 0 }) {
		return nil, errNoContents
	}
	out, err := buildHead(req, openAPI)
	if err != nil {
		return nil, err
	}
	return &llm.Spliced{Head: out, Field: "contents", Items: items}, nil
}

// namelessResult reports whether m holds a tool result without its tool's
// name.
func namelessResult(m *llm.Message) bool {
	for _, p := range m.Parts {
		if p.Type == llm.PartToolResult && p.ToolResult != nil && p.ToolResult.Name == "" {
			return true
		}
	}
	return false
}

// buildHead is the request but its contents.
func buildHead(req *llm.Request, openAPI bool) (*request, error) {
	out := &request{}
	if req.System != "" {
		out.SystemInstruction = &content{Parts: []outPart{{Text: ptr(req.System)}}}
	}
	tools, err := buildTools(req.Tools, openAPI)
	if err != nil {
		return nil, err
	}
	out.Tools = tools
	gc, err := buildGenerationConfig(req)
	if err != nil {
		return nil, err
	}
	out.GenerationConfig = gc
	return out, nil
}

func ptr(s string) *string { return &s }

// buildContents converts the conversation. Messages that convert to no parts
// are left out (Gemini rejects empty contents).
func buildContents(msgs []llm.Message, strictSignatures bool) []content {
	names := callNames(msgs)
	var out []content
	for _, m := range msgs {
		if c := contentOf(m, strictSignatures, names); len(c.Parts) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// callNames maps the id of each tool call of msgs to its tool's name.
func callNames(msgs []llm.Message) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == llm.PartToolCall && p.ToolCall != nil {
				names[p.ToolCall.ID] = p.ToolCall.Name
			}
		}
	}
	return names
}

// contentOf converts one message (no parts: nothing to send).
func contentOf(m llm.Message, strictSignatures bool, callNames map[string]string) content {
	if m.Role == llm.RoleAssistant {
		c := content{Role: "model", Parts: modelParts(m.Parts)}
		if strictSignatures {
			ensureCallSignature(c.Parts)
		}
		return c
	}
	return content{Role: "user", Parts: userParts(m.Parts, callNames)} // user and tool messages
}

// userParts converts the parts of a user or tool message.
func userParts(parts []llm.Part, callNames map[string]string) []outPart {
	var out []outPart
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				out = append(out, outPart{Text: ptr(p.Text)})
			}
		case llm.PartImage:
			if ip, ok := imagePart(p); ok {
				out = append(out, ip)
			}
		case llm.PartDocument:
			// https://ai.google.dev/gemini-api/docs/document-processing: inline PDF data.
			if len(p.Data) > 0 {
				out = append(out, outPart{InlineData: &blob{MIMEType: p.MIMEType, Data: p.Data}})
			}
		case llm.PartToolResult:
			if p.ToolResult != nil {
				out = append(out, outPart{FunctionResponse: toolResult(*p.ToolResult, callNames)})
			}
		}
	}
	return out
}

func imagePart(p llm.Part) (outPart, bool) {
	switch {
	case len(p.Data) > 0:
		mime := p.MIMEType
		if mime == "" {
			mime = "image/png"
		}
		return outPart{InlineData: &blob{MIMEType: mime, Data: p.Data}}, true
	case p.URL != "":
		return outPart{FileData: &fileData{MIMEType: p.MIMEType, FileURI: p.URL}}, true
	}
	return outPart{}, false
}

// toolResult converts one tool result. The function name comes from the
// result, or from the call it answers; the id is sent only when the API gave
// the call one.
func toolResult(r llm.ToolResult, callNames map[string]string) *functionResponse {
	name := r.Name
	if name == "" {
		name = callNames[r.CallID]
	}
	fr := &functionResponse{Name: name, Response: map[string]any{"output": r.Content}}
	if r.IsError {
		fr.Response = map[string]any{"error": r.Content}
	}
	if r.CallID != "" && !isGeneratedID(r.CallID) {
		fr.ID = r.CallID
	}
	return fr
}

// modelParts converts the parts of an assistant message, keeping every
// thought signature on its part.
func modelParts(parts []llm.Part) []outPart {
	var out []outPart
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" || p.Signature != "" {
				out = append(out, outPart{Text: ptr(p.Text), ThoughtSignature: p.Signature})
			}
		case llm.PartReasoning:
			// Redacted (Anthropic) and id-carrying (OpenAI Responses) reasoning
			// came from another provider: its signature means nothing here.
			if p.Redacted || p.ID != "" || (p.Text == "" && p.Signature == "") {
				continue
			}
			out = append(out, outPart{Text: ptr(p.Text), Thought: true, ThoughtSignature: p.Signature})
		case llm.PartImage:
			if ip, ok := imagePart(p); ok {
				out = append(out, ip)
			}
		case llm.PartToolCall:
			if p.ToolCall != nil {
				out = append(out, callPart(*p.ToolCall))
			}
		}
	}
	return out
}

func callPart(tc llm.ToolCall) outPart {
	args := tc.Arguments
	if tc.ArgsError != "" || !isJSONObject(args) {
		args = json.RawMessage("{}")
	}
	fc := &outFunctionCall{Name: tc.Name, Args: args}
	if tc.ID != "" && !isGeneratedID(tc.ID) {
		fc.ID = tc.ID
	}
	return outPart{FunctionCall: fc, ThoughtSignature: tc.Signature}
}

func isJSONObject(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

// ensureCallSignature gives the first function call of a model turn the
// documented placeholder signature when none of its calls has one, so that a
// conversation begun with another model still validates on Gemini 3.
func ensureCallSignature(parts []outPart) {
	first := -1
	for i, p := range parts {
		if p.FunctionCall == nil {
			continue
		}
		if p.ThoughtSignature != "" {
			return
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		parts[first].ThoughtSignature = skipSignature
	}
}

// buildTools converts the tool definitions into one functionDeclarations
// set, with each schema as parametersJsonSchema (see [CleanJSONSchema]) or,
// with openAPI, as parameters (see [ConvertSchema]).
func buildTools(tools []llm.Tool, openAPI bool) ([]toolSet, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	decls := make([]functionDeclaration, 0, len(tools))
	for _, t := range tools {
		if t.Name == "" {
			return nil, errors.New("a tool has no name: every tool offered to the model needs one")
		}
		d := functionDeclaration{Name: t.Name, Description: t.Description}
		var err error
		if openAPI {
			d.Parameters, err = ConvertSchema(t.Parameters)
		} else {
			d.ParametersJSONSchema, err = CleanJSONSchema(t.Parameters)
		}
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		decls = append(decls, d)
	}
	return []toolSet{{FunctionDeclarations: decls}}, nil
}

// buildGenerationConfig maps the output cap, temperature and thinking
// settings; nil when none is set.
func buildGenerationConfig(req *llm.Request) (*generationConfig, error) {
	gc := &generationConfig{Temperature: req.Temperature}
	if req.MaxTokens > 0 {
		gc.MaxOutputTokens = req.MaxTokens
	}
	tc, err := buildThinking(req)
	if err != nil {
		return nil, err
	}
	gc.ThinkingConfig = tc
	if gc.MaxOutputTokens == 0 && gc.Temperature == nil && gc.ThinkingConfig == nil {
		return nil, nil
	}
	return gc, nil
}

// buildThinking maps ThinkingBudget (tokens) or ReasoningEffort to
// thinkingConfig (https://ai.google.dev/gemini-api/docs/thinking): a budget
// is sent as thinkingBudget; an effort becomes thinkingLevel on Gemini 3 and
// later models and a thinkingBudget (see effortBudget) on earlier ones.
// Thoughts are always asked for (includeThoughts) when thinking is
// configured.
func buildThinking(req *llm.Request) (*thinkingConfig, error) {
	if req.ThinkingBudget > 0 {
		b := req.ThinkingBudget
		return &thinkingConfig{ThinkingBudget: &b, IncludeThoughts: true}, nil
	}
	effort := strings.ToLower(req.ReasoningEffort)
	if effort == "" {
		return nil, nil
	}
	budget, ok := effortBudget(effort)
	if !ok {
		return nil, fmt.Errorf("unknown reasoning effort %q: use minimal, low, medium or high", req.ReasoningEffort)
	}
	if isGemini3Plus(req.Model) {
		return &thinkingConfig{ThinkingLevel: effort, IncludeThoughts: true}, nil
	}
	return &thinkingConfig{ThinkingBudget: &budget, IncludeThoughts: true}, nil
}

// isGemini3Plus reports whether model is "gemini-<major>..." with major >= 3
// (those models take thinkingLevel and validate thought signatures strictly).
func isGemini3Plus(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	rest, ok := strings.CutPrefix(m, "gemini-")
	if !ok {
		return false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	major, err := strconv.Atoi(rest[:end])
	return err == nil && major >= 3
}
