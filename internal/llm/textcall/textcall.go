// Package textcall parses tool calls that open-weight and local models write
// as plain text in the assistant message instead of using the provider's
// native tool-calling field.
//
// Three shapes are understood, and a fourth on request (Options.Commands):
//
//   - Hermes JSON, also the Python AIdex's own format
//     (https://github.com/NousResearch/Hermes-Function-Calling):
//     <tool_call>{"name": "NAME", "arguments": {...}}</tool_call>
//   - Qwen3-Coder XML
//     (https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct/blob/main/qwen3coder_tool_parser.py,
//     https://docs.vllm.ai/en/latest/features/tool_calling.html):
//     <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>
//   - the lazy single-parameter form <function=NAME>VALUE</function>;
//   - iptic-memex's assistant command blocks, %%CMD%% command="PROGRAM"
//     arguments="ARGS" ... %%END%% and %%BLOCK:name%% ... %%END%%
//     (commands.go).
//
// The package has no dependency on the rest of aidex: it takes tool schemas
// as raw JSON and returns arguments as raw JSON objects.
package textcall

import (
	"encoding/json"
	"strings"
)

// Tags of the text tool-call formats.
const (
	tagToolCall    = "<tool_call>"
	tagToolCallEnd = "</tool_call>"
	tagFunction    = "<function="
	tagFunctionEnd = "</function>"
	tagParam       = "<parameter="
	tagParamEnd    = "</parameter>"
)

// maxNameLen is the longest tool or parameter name accepted, in bytes.
const maxNameLen = 256

// Format names the text tool-call format a call or error was written in.
// The values match the "format" field of the shared parser fixtures.
type Format string

const (
	// FormatHermesJSON is <tool_call>{"name": ..., "arguments": {...}}</tool_call>.
	FormatHermesJSON Format = "hermes_json"
	// FormatQwenXML is the Qwen3-Coder XML form, including the lazy
	// <function=NAME>VALUE</function> form.
	FormatQwenXML Format = "qwen3_xml"
	// FormatCommand is iptic-memex's assistant command block:
	// %%CMD%% command="PROGRAM" arguments="ARGS" ... %%END%% (a shell
	// command), or %%TOOL_NAME%% param="value" ... %%END%%.
	FormatCommand Format = "assistant_command"
)

// Tool describes a tool offered to the model: its name and the JSON Schema of
// its arguments object ({"type":"object","properties":{...},"required":[...]}).
// Schema may be empty or invalid; values are then kept as strings.
type Tool struct {
	Name   string
	Schema json.RawMessage
}

// Call is one tool call found in the text.
//
// Arguments is a JSON object in every case but one: a Hermes call whose
// "arguments" is a bare non-JSON string (or another non-object value) for a
// tool whose single parameter cannot be determined keeps that JSON value as
// given, so the engine's schema validation reports it. The tool name is not
// checked against the offered tools: the engine decides about unknown tools.
type Call struct {
	Name      string
	Arguments json.RawMessage
	Format    Format
}

// CallError is a tool call the model tried to write but that could not be
// parsed (malformed JSON, output cut off, a bare value for a tool with several
// parameters, ...). Its Error text names the cause and shows the correct
// format, so the engine can send it back to the model as a tool result.
type CallError struct {
	// Raw is the text of the failed call, from its opening tag to its end
	// (or to the end of the output when it was cut off).
	Raw string
	// Reason says what is wrong, in one clause, without the format hint.
	Reason string
	// Format is the format the model appeared to use.
	Format Format
	// Name is the tool name when it could be read, else "".
	Name string
}

// Error returns the reason, an excerpt of the raw text and how to write the
// call correctly.
func (e CallError) Error() string {
	var b strings.Builder
	b.WriteString("could not parse the tool call")
	if e.Name != "" {
		b.WriteString(" to ")
		b.WriteString(quote(e.Name))
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if ex := excerpt(e.Raw, 160); ex != "" {
		b.WriteString(" (in ")
		b.WriteString(quote(ex))
		b.WriteString(")")
	}
	b.WriteString(". ")
	b.WriteString(formatHint(e.Format, e.Name))
	return b.String()
}

// formatHint tells the model how to write a call in format f.
func formatHint(f Format, name string) string {
	if name == "" {
		name = "TOOL_NAME"
	}
	if f == FormatCommand {
		return `Write a command as a line %%CMD%% command="PROGRAM" arguments="ARGS", then any input lines, ` +
			`then a line %%END%%; or call a tool as %%` + name + `%% PARAM="VALUE" ... with the content lines and %%END%%.`
	}
	if f == FormatQwenXML {
		return "Write each tool call as <tool_call>\n<function=" + name +
			">\n<parameter=PARAM>\nVALUE\n</parameter>\n</function>\n</tool_call> " +
			"with one closed <parameter=PARAM>...</parameter> block per argument."
	}
	return `Write each tool call as <tool_call>{"name": "` + name +
		`", "arguments": {"PARAM": "VALUE"}}</tool_call> with one complete, valid JSON object per call ` +
		`("arguments" a JSON object, strings double-quoted, newlines escaped as \n).`
}

// Result is what Parse found in one assistant message.
type Result struct {
	// Calls are the parsed tool calls, in the order written.
	Calls []Call
	// Content is the text left once calls and failed calls are removed:
	// each remaining piece trimmed of surrounding white space, pieces joined
	// with a blank line ("" when nothing is left).
	Content string
	// Errors are the calls that could not be parsed, in the order written.
	Errors []CallError
}

// Contains reports whether text may hold a text tool call (it contains
// "<tool_call>", "<function=" or "%%"). It is cheap: use it to decide
// whether to call Parse.
func Contains(text string) bool {
	return strings.Contains(text, tagToolCall) || strings.Contains(text, tagFunction) || strings.Contains(text, cmdMark)
}

// Parse extracts the text tool calls from a complete assistant message.
// tools gives the JSON Schemas used to type Qwen XML parameter values and to
// place the value of the lazy form; it may be nil. Parse never panics and
// never fails as a whole: calls it cannot read are reported in
// Result.Errors and removed from Result.Content.
func Parse(text string, tools []Tool) Result {
	return ParseWith(text, tools, Options{})
}

// Options adjust ParseWith. The zero value is Parse's behaviour.
type Options struct {
	// Canonical maps a tool name the model wrote to the name of the
	// offered tool it stands for ("run_shell_command" → "run_command"),
	// or "" when it knows none; the schema of that tool then types the
	// call's values and places a bare value. Call.Name stays the name
	// the model wrote (the engine resolves it again). Nil: names match
	// exactly.
	Canonical func(name string) string
	// Commands also parses iptic-memex assistant command blocks
	// (%%CMD%% ... %%END%%, FormatCommand). Enable it only for models
	// configured to call tools in text.
	Commands bool
}

// ParseWith is Parse with options.
func ParseWith(text string, tools []Tool, o Options) Result {
	p := parser{s: text, tools: tools, opts: o, schemas: map[string]*schemaInfo{}}
	if o.Commands && strings.Contains(text, cmdMark) {
		p.withCommands()
	} else {
		p.scan()
	}
	p.res.Content = strings.Join(p.content, "\n\n")
	return p.res
}

// scan parses the tags of the Hermes and Qwen formats in all of p.s.
func (p *parser) scan() {
	text := p.s
	var next opener
	pos := 0
	for pos < len(text) {
		i := next.at(text, pos)
		if i < 0 {
			break
		}
		p.addContent(text[pos:i])
		end := p.parseAt(i)
		if end <= i { // cannot happen; guards against an endless loop
			end = i + 1
		}
		pos = end
	}
	if pos < len(text) {
		p.addContent(text[pos:])
	}
}

// parser holds the state of one Parse call.
type parser struct {
	s       string
	tools   []Tool
	opts    Options
	schemas map[string]*schemaInfo
	content []string
	res     Result
}

func (p *parser) addContent(seg string) {
	if t := strings.TrimSpace(seg); t != "" {
		p.content = append(p.content, t)
	}
}

func (p *parser) addError(start, end int, f Format, name, reason string) {
	p.res.Errors = append(p.res.Errors, CallError{Raw: p.s[start:end], Reason: reason, Format: f, Name: name})
}

// parseAt parses the call opening at i and returns the offset just past it.
func (p *parser) parseAt(i int) int {
	if strings.HasPrefix(p.s[i:], tagToolCall) {
		return p.wrapper(i)
	}
	return p.bareFunction(i)
}

// wrapper parses <tool_call>...</tool_call> starting at start. All calls in
// one wrapper succeed or fail together.
func (p *parser) wrapper(start int) int {
	s := p.s
	q := skipWS(s, start+len(tagToolCall))
	var (
		calls  []Call
		end    int
		reason string
		name   string
		f      = FormatHermesJSON
	)
	switch {
	case q == len(s):
		end, reason = len(s), "the output ended right after <tool_call> (cut off?)"
	case s[q] == '{' || s[q] == '[':
		calls, end, reason = p.hermes(q)
	case strings.HasPrefix(s[q:], tagFunction):
		f = FormatQwenXML
		calls, end, name, reason = p.xmlInWrapper(q)
	default:
		reason = "the text after <tool_call> is neither a JSON object nor a <function=NAME> block"
	}
	if reason != "" {
		errEnd := failEnd(s, start, end, tagToolCallEnd, tagToolCall)
		p.addError(start, errEnd, f, name, reason)
		return errEnd
	}
	p.res.Calls = append(p.res.Calls, calls...)
	return end
}

// xmlInWrapper parses one or more <function=...> blocks inside a wrapper.
func (p *parser) xmlInWrapper(q int) ([]Call, int, string, string) {
	s := p.s
	var calls []Call
	pos := q
	for {
		call, end, reason := p.function(pos)
		if reason != "" {
			return nil, end, call.Name, reason
		}
		calls = append(calls, call)
		pos = skipWS(s, end)
		switch {
		case pos == len(s):
			return calls, pos, "", ""
		case strings.HasPrefix(s[pos:], tagToolCallEnd):
			return calls, pos + len(tagToolCallEnd), "", ""
		case strings.HasPrefix(s[pos:], tagFunction):
			continue
		default:
			return calls, pos, "", "" // the rest is content
		}
	}
}

// bareFunction parses a <function=...> block written without a <tool_call>
// wrapper, starting at start.
func (p *parser) bareFunction(start int) int {
	s := p.s
	call, end, reason := p.function(start)
	if reason != "" {
		errEnd := failEnd(s, start, end, tagFunctionEnd, tagFunction)
		if k := skipWS(s, errEnd); strings.HasPrefix(s[k:], tagToolCallEnd) {
			errEnd = k + len(tagToolCallEnd)
		}
		p.addError(start, errEnd, FormatQwenXML, call.Name, reason)
		return errEnd
	}
	p.res.Calls = append(p.res.Calls, call)
	// A closing </tool_call> whose opening tag was left out.
	if k := skipWS(s, end); strings.HasPrefix(s[k:], tagToolCallEnd) {
		end = k + len(tagToolCallEnd)
	}
	return end
}

// opener finds the next "<tool_call>" or "<function=". It remembers the
// positions found so that a long text is scanned once for each tag, not once
// per call.
type opener struct {
	call, fn     int // offsets of the next tags; -1 when there are no more
	callOK, fnOK bool
}

// at returns the offset of the first opening tag at or after pos, or -1.
func (o *opener) at(s string, pos int) int {
	o.call, o.callOK = nextTag(s, pos, tagToolCall, o.call, o.callOK)
	o.fn, o.fnOK = nextTag(s, pos, tagFunction, o.fn, o.fnOK)
	switch {
	case o.call < 0:
		return o.fn
	case o.fn < 0 || o.call < o.fn:
		return o.call
	default:
		return o.fn
	}
}

// nextTag returns the offset of tag at or after pos, reusing the previous
// answer prev while it is still ahead of pos (or was -1: none left).
func nextTag(s string, pos int, tag string, prev int, ok bool) (int, bool) {
	if ok && (prev < 0 || prev >= pos) {
		return prev, true
	}
	i := strings.Index(s[pos:], tag)
	if i < 0 {
		return -1, true
	}
	return pos + i, true
}

// spanEnd returns where a failed call opening at start ends: at the next
// openTag, or just past the first closeTag before it, or at the end of s.
func spanEnd(s string, start int, closeTag, openTag string) int {
	from := start + 1
	end := len(s)
	if i := strings.Index(s[from:], openTag); i >= 0 {
		end = from + i
	}
	if i := strings.Index(s[from:end], closeTag); i >= 0 {
		end = from + i + len(closeTag)
	}
	return end
}

// failEnd returns the end of a failed call: end when the parser knows it (the
// call runs to the end of the output), else spanEnd.
func failEnd(s string, start, end int, closeTag, openTag string) int {
	if end > start {
		return end
	}
	return spanEnd(s, start, closeTag, openTag)
}

// tagName reads the name of a <function=NAME> or <parameter=NAME> tag whose
// name starts at from. It returns the name, the offset just past '>', and a
// reason when there is no '>' (cutOff reports the output ended first).
func tagName(s string, from int) (name string, next int, cutOff bool, ok bool) {
	window := s[from:min(len(s), from+maxNameLen+2)]
	gt := strings.IndexByte(window, '>')
	if gt < 0 {
		return "", 0, from+len(window) == len(s), false
	}
	return strings.TrimSpace(window[:gt]), from + gt + 1, false, true
}

// skipWS returns the offset of the first non-white-space byte at or after i.
func skipWS(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r'
}

// hasAnyPrefix reports whether s starts with one of prefixes.
func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(s, pre) {
			return true
		}
	}
	return false
}

// validName reports whether a tool or parameter name read from a tag is usable.
func validName(n string) bool {
	return n != "" && len(n) <= maxNameLen && !strings.ContainsAny(n, "<> \t\r\n\"'")
}

// quote returns s in double quotes with JSON escaping.
func quote(s string) string {
	return string(jsonString(s))
}

// excerpt returns at most max bytes of s, cut at a rune boundary, with "..."
// appended when shortened.
func excerpt(s string, max int) string {
	s = strings.TrimSpace(s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not at the start of a UTF-8 sequence
		cut--
	}
	return s[:cut] + "..."
}
