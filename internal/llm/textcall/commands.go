package textcall

import (
	"strconv"
	"strings"
)

// Assistant command blocks (iptic-memex), parsed with Options.Commands:
//
//	%%CMD%% command="ls" arguments="-la src"
//	...optional input lines (given to the command on standard input)...
//	%%END%%
//
//	%%BLOCK:note%%
//	text referenced by block="note"
//	%%END%%
//
//	%%WRITE_FILE%% path="a.txt"
//	content of the one parameter the attributes leave open
//	%%END%%
//
// An opening line counts only at the start of a line, outside fenced code
// (``` or ~~~) and outside quoted lines (> ...): a model that shows the
// syntax in an example does not run it. %%NAME%% lines that name neither
// CMD, BLOCK:... nor an offered tool (the %%DONE%% finish sentinel, say)
// stay text.
const (
	cmdMark = "%%"
	cmdEnd  = "%%END%%"
	// CommandTool is the tool a %%CMD%% block calls, with its command
	// line in the "command" parameter.
	CommandTool = "run_command"
	cmdBlock    = "BLOCK:"
)

// cmdSpan is one command or content block found in the text.
type cmdSpan struct {
	start, end int    // the block, opening line to past its %%END%% line
	tag        string // CMD, BLOCK:name or a tool name, as written
	attrs      string // the rest of the opening line
	content    string // the lines between the opening line and %%END%%
	reason     string // why the block is unusable ("" when fine)
}

// withCommands parses the command blocks of p.s and the other formats in
// the text between them, in the order written.
func (p *parser) withCommands() {
	spans := p.commandSpans()
	blocks := map[string]string{}
	for _, sp := range spans {
		if name, ok := strings.CutPrefix(sp.tag, cmdBlock); ok && sp.reason == "" {
			blocks[name] = sp.content
		}
	}
	pos := 0
	for _, sp := range spans {
		p.scanPart(p.s[pos:sp.start])
		pos = sp.end
		switch {
		case sp.reason != "":
			p.addError(sp.start, sp.end, FormatCommand, cmdCallName(sp.tag), sp.reason)
		case strings.HasPrefix(sp.tag, cmdBlock): // content for a command, not a call
		default:
			call, reason := p.commandCall(sp, blocks)
			if reason != "" {
				p.addError(sp.start, sp.end, FormatCommand, call.Name, reason)
			} else {
				p.res.Calls = append(p.res.Calls, call)
			}
		}
	}
	p.scanPart(p.s[pos:])
}

// scanPart parses the Hermes and Qwen calls in part, a piece of p.s.
func (p *parser) scanPart(part string) {
	if strings.TrimSpace(part) == "" {
		return
	}
	sub := parser{s: part, tools: p.tools, opts: p.opts, schemas: p.schemas}
	sub.scan()
	p.res.Calls = append(p.res.Calls, sub.res.Calls...)
	p.res.Errors = append(p.res.Errors, sub.res.Errors...)
	p.content = append(p.content, sub.content...)
}

// commandSpans finds the command and content blocks of p.s.
func (p *parser) commandSpans() []cmdSpan {
	s := p.s
	var spans []cmdSpan
	fence := ""
	for ls := 0; ls < len(s); {
		le, next := lineEnd(s, ls)
		line := strings.TrimLeft(s[ls:le], " \t")
		if f := fenceMark(line); f != "" && (fence == "" || strings.HasPrefix(f, fence)) {
			if fence == "" {
				fence = f
			} else {
				fence = ""
			}
			ls = next
			continue
		}
		tag, attrs, ok := cmdOpen(line)
		if fence != "" || !ok || !p.isCommandTag(tag) {
			ls = next
			continue
		}
		sp := p.commandBody(ls, next, tag, attrs)
		spans = append(spans, sp)
		ls = sp.end
	}
	return spans
}

// commandBody finds the content and %%END%% of the block whose opening
// line runs from start to body.
func (p *parser) commandBody(start, body int, tag, attrs string) cmdSpan {
	s := p.s
	sp := cmdSpan{start: start, tag: tag, attrs: strings.TrimSpace(attrs)}
	for ls := body; ls < len(s); {
		le, next := lineEnd(s, ls)
		if strings.TrimSpace(s[ls:le]) == cmdEnd {
			sp.content = strings.TrimSuffix(s[body:ls], "\n")
			sp.content = strings.TrimSuffix(sp.content, "\r")
			sp.end = next
			return sp
		}
		// An opening line ends a command left without %%END%%; a content
		// block is data and runs to its %%END%% whatever it holds.
		if t, _, ok := cmdOpen(strings.TrimLeft(s[ls:le], " \t")); ok && p.isCommandTag(t) && !strings.HasPrefix(tag, cmdBlock) {
			sp.end = ls
			break
		}
		ls = next
	}
	if sp.end == 0 {
		sp.end = len(s)
	}
	if strings.TrimSpace(s[body:sp.end]) == "" && !strings.HasPrefix(tag, cmdBlock) {
		return sp // a command without content may leave out %%END%%
	}
	sp.reason = "the %%" + tag + "%% block is not closed with a line %%END%% (the output was cut off?)"
	return sp
}

// lineEnd returns the end of the line starting at ls (without its '\n')
// and the start of the next line.
func lineEnd(s string, ls int) (int, int) {
	if i := strings.IndexByte(s[ls:], '\n'); i >= 0 {
		return ls + i, ls + i + 1
	}
	return len(s), len(s)
}

// fenceMark returns the fence that opens or closes a fenced code block on
// line (``` or ~~~, three or more), else "".
func fenceMark(line string) string {
	for _, c := range []string{"`", "~"} {
		n := 0
		for n < len(line) && line[n] == c[0] {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// cmdOpen reads an opening line %%TAG%% attributes. Quoted lines ("> ...")
// never open a block.
func cmdOpen(line string) (tag, attrs string, ok bool) {
	rest, ok := strings.CutPrefix(line, cmdMark)
	if !ok {
		return "", "", false
	}
	end := strings.Index(rest, cmdMark)
	if end <= 0 || end > maxNameLen {
		return "", "", false
	}
	tag = rest[:end]
	if strings.ContainsAny(tag, " \t\r\"'<>%") || tag == "END" {
		return "", "", false
	}
	return tag, rest[end+len(cmdMark):], true
}

// isCommandTag reports whether tag opens a block: CMD, BLOCK:name, or the
// name of an offered tool (any case, aliases through Options.Canonical).
func (p *parser) isCommandTag(tag string) bool {
	if strings.EqualFold(tag, "CMD") {
		return true
	}
	if name, ok := strings.CutPrefix(tag, cmdBlock); ok {
		return validName(name)
	}
	_, ok := p.tool(strings.ToLower(tag))
	return ok && validName(tag)
}

// commandCall builds the call of a command block.
func (p *parser) commandCall(sp cmdSpan, blocks map[string]string) (Call, string) {
	attrs, reason := parseAttrs(sp.attrs)
	if reason != "" {
		return Call{Name: cmdCallName(sp.tag)}, reason
	}
	content := sp.content
	if name, ok := attrs.take("block"); ok {
		b, found := blocks[name]
		switch {
		case !found:
			return Call{Name: cmdCallName(sp.tag)}, "block=" + quote(name) + " names no %%BLOCK:" + name + "%% ... %%END%% block in this answer"
		case strings.TrimSpace(content) != "":
			return Call{Name: cmdCallName(sp.tag)}, "the block has both content lines and block=" + quote(name) + "; give one of them"
		}
		content = b
	}
	if strings.EqualFold(sp.tag, "CMD") {
		return p.shellCall(attrs, content)
	}
	return p.toolCall(strings.ToLower(sp.tag), attrs, content)
}

func cmdCallName(tag string) string {
	if strings.EqualFold(tag, "CMD") {
		return CommandTool
	}
	if strings.HasPrefix(tag, cmdBlock) {
		return ""
	}
	return strings.ToLower(tag)
}

// shellCall builds the CommandTool call of %%CMD%%: the command line is
// command and arguments; content lines become the command's standard
// input (a quoted here-document, so nothing in them is expanded).
func (p *parser) shellCall(attrs attrList, content string) (Call, string) {
	call := Call{Name: CommandTool, Format: FormatCommand}
	prog, ok := attrs.take("command")
	if !ok || strings.TrimSpace(prog) == "" {
		return call, `%%CMD%% needs command="PROGRAM" (and optionally arguments="ARGS")`
	}
	line := strings.TrimSpace(prog)
	if args, ok := attrs.take("arguments"); ok && strings.TrimSpace(args) != "" {
		line += " " + strings.TrimSpace(args)
	}
	if content != "" {
		delim := "AIDEX_EOF"
		for n := 1; strings.Contains(content, delim); n++ {
			delim = "AIDEX_EOF_" + strconv.Itoa(n)
		}
		line += " <<'" + delim + "'\n" + content + "\n" + delim
	}
	sch := p.schema(CommandTool)
	var b objBuilder
	b.set("command", jsonString(line))
	for _, a := range attrs {
		b.set(a.key, sch.convert(a.key, a.val))
	}
	call.Arguments = b.bytes()
	return call, ""
}

// toolCall builds the call of %%TOOL_NAME%%: attributes are parameters,
// typed by the schema; content goes to the parameter they leave open.
func (p *parser) toolCall(name string, attrs attrList, content string) (Call, string) {
	call := Call{Name: name, Format: FormatCommand}
	sch := p.schema(name)
	var b objBuilder
	for _, a := range attrs {
		b.set(a.key, sch.convert(a.key, a.val))
	}
	if content != "" {
		param, ok := contentParam(sch, attrs)
		if !ok {
			return call, "the content lines of %%" + strings.ToUpper(name) + "%% fit no parameter; " +
				"give every parameter as PARAM=\"VALUE\" on the opening line"
		}
		b.set(param, sch.convert(param, content))
	}
	call.Arguments = b.bytes()
	return call, ""
}

// contentParam is the parameter content lines fill: "content" when the
// tool has it and no attribute gave it, else the one required parameter
// no attribute gave, else (all optional) the first declared one left.
func contentParam(sch *schemaInfo, given attrList) (string, bool) {
	if _, ok := sch.props["content"]; ok && !given.has("content") {
		return "content", true
	}
	var open []string
	for _, r := range sch.required {
		if !given.has(r) {
			open = append(open, r)
		}
	}
	if len(open) == 1 {
		return open[0], true
	}
	if len(sch.required) > 0 {
		return "", false
	}
	for _, k := range sch.order {
		if !given.has(k) {
			return k, true
		}
	}
	return "", false
}

// attr is one key="value" attribute of an opening line.
type attr struct{ key, val string }

type attrList []attr

func (l attrList) has(key string) bool {
	for _, a := range l {
		if a.key == key {
			return true
		}
	}
	return false
}

// take removes the attribute key and returns its value.
func (l *attrList) take(key string) (string, bool) {
	for i, a := range *l {
		if a.key == key {
			*l = append((*l)[:i], (*l)[i+1:]...)
			return a.val, true
		}
	}
	return "", false
}

// parseAttrs reads key="value" key='value' key=value ..., in that order;
// in double quotes \" and \\ are a quote and a backslash.
func parseAttrs(s string) (attrList, string) {
	var out attrList
	for i := skipWS(s, 0); i < len(s); i = skipWS(s, i) {
		eq := strings.IndexByte(s[i:], '=')
		if eq <= 0 || !validName(s[i:i+eq]) {
			return nil, "expected PARAM=\"VALUE\" attributes on the opening line, found " + quote(excerpt(s[i:], 40))
		}
		key := s[i : i+eq]
		i += eq + 1
		val, next, ok := attrValue(s, i)
		if !ok {
			return nil, "the value of " + key + " is not closed with its quote"
		}
		out = append(out, attr{key, val})
		i = next
	}
	return out, ""
}

// attrValue reads a quoted or bare value starting at i.
func attrValue(s string, i int) (string, int, bool) {
	if i >= len(s) || (s[i] != '"' && s[i] != '\'') {
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		return s[i:j], j, true
	}
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == q:
			return b.String(), j + 1, true
		case c == '\\' && q == '"' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\'):
			b.WriteByte(s[j+1])
			j++
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}
