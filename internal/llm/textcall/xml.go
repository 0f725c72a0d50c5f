package textcall

import (
	"encoding/json"
	"sort"
	"strings"
)

// function parses a <function=NAME>...</function> block starting at pos. It
// returns the call (its Name is set even on failure when it could be read),
// the offset just past the block, and a reason when the block is not usable.
// On failure the offset is len(s) when the call runs to the end of the
// output, else 0 (the caller decides where the failed call ends).
func (p *parser) function(pos int) (Call, int, string) {
	s := p.s
	name, body, cutOff, ok := tagName(s, pos+len(tagFunction))
	switch {
	case cutOff:
		return Call{}, len(s), "the <function=NAME> tag is not closed with '>' (the output was cut off?)"
	case !ok || !validName(name):
		return Call{}, 0, "the tool name in <function=" + excerpt(name, 40) + "> is missing, too long, or contains spaces, quotes or tags"
	}
	call := Call{Name: name, Format: FormatQwenXML}
	q := skipWS(s, body)
	switch {
	case strings.HasPrefix(s[q:], tagParam):
		return p.params(call, q)
	case strings.HasPrefix(s[q:], tagFunctionEnd):
		call.Arguments = json.RawMessage("{}")
		return call, q + len(tagFunctionEnd), ""
	case q == len(s):
		return call, len(s), "the output ended inside <function=" + name + "> (cut off?)"
	}
	vEnd, next, ok := findFunctionEnd(s, body)
	if !ok {
		return call, len(s), "the value of <function=" + name + "> is not closed with </function> (the output was cut off?)"
	}
	args, reason := p.lazyArgs(name, s[body:vEnd])
	if reason != "" {
		return call, 0, reason
	}
	call.Arguments = args
	return call, next, ""
}

// params parses the <parameter=KEY>VALUE</parameter> blocks of a function
// starting at q.
func (p *parser) params(call Call, q int) (Call, int, string) {
	s := p.s
	sch := p.schema(call.Name)
	var args objBuilder
	pos := q
	for {
		key, vStart, cutOff, ok := tagName(s, pos+len(tagParam))
		switch {
		case cutOff:
			return call, len(s), "the <parameter=KEY> tag is not closed with '>' (the output was cut off?)"
		case !ok || !validName(key):
			return call, 0, "the parameter name in <parameter=" + excerpt(key, 40) + "> is missing, too long, or contains spaces, quotes or tags"
		}
		vEnd, next, ok := findValueEnd(s, vStart)
		if !ok {
			return call, len(s), "the value of parameter " + quote(key) + " is not closed with </parameter> (the output was cut off?)"
		}
		args.set(key, sch.convert(key, s[vStart:vEnd]))
		pos = skipWS(s, next)
		switch {
		case pos == len(s): // </function> missing at the end of the output
		case strings.HasPrefix(s[pos:], tagParam):
			continue
		case strings.HasPrefix(s[pos:], tagFunctionEnd):
			pos += len(tagFunctionEnd)
		case hasAnyPrefix(s[pos:], tagToolCallEnd, tagToolCall, tagFunction): // </function> left out
		default:
			return call, 0, "unexpected text " + quote(excerpt(s[pos:], 40)) + " after parameter " + quote(key) +
				"; expected <parameter=KEY> or </function>"
		}
		call.Arguments = args.bytes()
		return call, pos, ""
	}
}

// findValueEnd finds where a parameter value starting at v ends. It returns
// the end of the value, the offset to continue from, and false when the value
// is never closed (cut-off output).
//
// Values may themselves contain tags (a file being written, say), so a tag
// only ends the value when what follows it is structural:
//   - </parameter> followed by <parameter=, </function>, </tool_call> or the end;
//   - <parameter= at the start of a line (the model left out </parameter>);
//   - </function> or </tool_call> followed by the end, <tool_call>,
//     <function= or, for </function>, </tool_call>.
//
// Failing those, the first </parameter> or </function> ends the value.
func findValueEnd(s string, v int) (int, int, bool) {
	loose, looseNext := -1, -1
	for i := v; i < len(s); i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			break
		}
		i += j
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, tagParamEnd):
			next := i + len(tagParamEnd)
			a := skipWS(s, next)
			if a == len(s) || hasAnyPrefix(s[a:], tagParam, tagFunctionEnd, tagToolCallEnd) {
				return i, next, true
			}
			if loose < 0 {
				loose, looseNext = i, next
			}
		case strings.HasPrefix(rest, tagParam):
			if atLineStart(s, v, i) {
				return i, i, true
			}
		case strings.HasPrefix(rest, tagFunctionEnd):
			a := skipWS(s, i+len(tagFunctionEnd))
			if a == len(s) || hasAnyPrefix(s[a:], tagToolCallEnd, tagToolCall, tagFunction) {
				return i, i, true
			}
			if loose < 0 {
				loose, looseNext = i, i
			}
		case strings.HasPrefix(rest, tagToolCallEnd):
			a := skipWS(s, i+len(tagToolCallEnd))
			if a == len(s) || hasAnyPrefix(s[a:], tagToolCall, tagFunction) {
				return i, i, true
			}
		}
	}
	if loose >= 0 {
		return loose, looseNext, true
	}
	return 0, 0, false
}

// findFunctionEnd finds where the value of a lazy <function=NAME>VALUE block
// starting at v ends, with the same rules as findValueEnd for </function>.
func findFunctionEnd(s string, v int) (int, int, bool) {
	loose := -1
	for i := v; i < len(s); i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			break
		}
		i += j
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, tagFunctionEnd):
			next := i + len(tagFunctionEnd)
			a := skipWS(s, next)
			if a == len(s) || hasAnyPrefix(s[a:], tagToolCallEnd, tagToolCall, tagFunction) {
				return i, next, true
			}
			if loose < 0 {
				loose = i
			}
		case strings.HasPrefix(rest, tagToolCallEnd):
			a := skipWS(s, i+len(tagToolCallEnd))
			if a == len(s) || hasAnyPrefix(s[a:], tagToolCall, tagFunction) {
				return i, i, true
			}
		}
	}
	if loose >= 0 {
		return loose, loose + len(tagFunctionEnd), true
	}
	return 0, 0, false
}

// atLineStart reports whether only spaces or tabs separate offset i from the
// previous newline, or from the value start v.
func atLineStart(s string, v, i int) bool {
	k := i - 1
	for k >= v && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r') {
		k--
	}
	return k < v || s[k] == '\n'
}

// lazyArgs builds the arguments of <function=NAME>VALUE</function>: VALUE goes
// to the tool's only required parameter (or only parameter, or, when all
// are optional, the first declared). NAME may be an alias of an offered
// tool (Options.Canonical). A VALUE that is
// itself a JSON object of arguments (the Llama 3.1 <function=NAME>{...}
// form) is taken as the arguments.
func (p *parser) lazyArgs(name, value string) (json.RawMessage, string) {
	sch := p.schema(name)
	param, ok := sch.lazyParam()
	if t := strings.TrimSpace(value); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		if !ok || sch.propType(param).name != "object" || hasOnlyKey(t, param) {
			return compact(json.RawMessage(t)), ""
		}
	}
	if !ok {
		return nil, lazyReason(name, sch)
	}
	var b objBuilder
	b.set(param, sch.convert(param, value))
	return b.bytes(), ""
}

// lazyReason explains why a bare value cannot be placed.
func lazyReason(name string, sch *schemaInfo) string {
	if !sch.known {
		return "the bare value in <function=" + name + ">VALUE</function> cannot be placed: the tool is unknown, " +
			"so name the parameter with <parameter=PARAM>VALUE</parameter>"
	}
	names := make([]string, 0, len(sch.props))
	for k := range sch.props {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "the tool " + quote(name) + " takes no parameters; write <function=" + name + "></function>"
	}
	return "the tool " + quote(name) + " has several parameters (" + strings.Join(names, ", ") +
		"), so a bare value cannot be placed; name each one with <parameter=PARAM>VALUE</parameter>"
}

// hasOnlyKey reports whether the JSON object obj has exactly one key, key.
func hasOnlyKey(obj, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(obj), &m) != nil || len(m) != 1 {
		return false
	}
	_, ok := m[key]
	return ok
}
