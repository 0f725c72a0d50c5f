package config

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// maxFileSize bounds the size of a config file, in bytes.
const maxFileSize = 1 << 20

// FileError is a problem at a place in a config file. Error() gives "FILE:LINE: MESSAGE"
// (without ":LINE" when the line is unknown), e.g.
// `/home/u/.config/aidex/config.toml:7: unknown key "modle" (did you mean "model"?)`.
type FileError struct {
	File    string // path of the config file; or "env AIDEX_X" / "flag X"
	Line    int    // 1-based; 0 when unknown
	Key     string // dotted key, when the problem concerns one
	Message string
}

// Error implements error.
func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	}
	return e.File + ": " + e.Message
}

// setting is one key's typed value from one source.
type setting struct {
	spec     keySpec
	provider string // provider name, for provider keys
	value    any    // string, bool, int, float64 or []string
	file     string // config file path, or SourceEnv / SourceFlag
	line     int
}

func (s setting) key() string { return dottedKey(s.spec, s.provider) }

func (s setting) source() string {
	if s.line > 0 {
		return fmt.Sprintf("%s:%d", s.file, s.line)
	}
	return s.file
}

// fileDoc is a decoded config file.
type fileDoc struct {
	file      string
	settings  []setting      // sorted by line
	providers map[string]int // provider tables named in the file -> line of first mention
	mcp       map[string]MCPServer
	notices   []Warning // old key names read as aliases (one each); MCP server keys dropped
	prices    []modelPrice
}

// parseFile decodes a config file strictly. Every problem (syntax, unknown key, wrong type,
// invalid value) is a *FileError; several are joined with errors.Join, in line order.
func parseFile(file string, data []byte) (*fileDoc, error) {
	return parseFileWith(file, data, specs())
}

// parseFileWith is parseFile checking values against the key specs ss.
func parseFileWith(file string, data []byte, ss []keySpec) (*fileDoc, error) {
	if len(data) > maxFileSize {
		return nil, &FileError{File: file, Message: fmt.Sprintf("file is larger than %d bytes; is it a config file?", maxFileSize)}
	}
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		return nil, decodeErr(file, err)
	}
	lines := keyLines(data)
	d := &fileDoc{file: file, providers: map[string]int{}}
	var errs []*FileError
	if v, ok := m["mcp_servers"]; ok {
		delete(m, "mcp_servers")
		var (
			mcpErrs  []*FileError
			mcpWarns []Warning
		)
		d.mcp, mcpErrs, mcpWarns = decodeMCPServers(file, v, lines)
		errs = append(errs, mcpErrs...)
		d.notices = append(d.notices, mcpWarns...)
	}
	walkTable(d, ss, lines, nil, m, &errs)
	sort.SliceStable(d.settings, func(i, j int) bool { return d.settings[i].line < d.settings[j].line })
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		joined := make([]error, len(errs))
		for i, e := range errs {
			joined[i] = e
		}
		return nil, errors.Join(joined...)
	}
	return d, nil
}

// decodeErr turns go-toml's syntax errors into a *FileError with the line.
func decodeErr(file string, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &FileError{File: file, Line: line, Key: strings.Join(de.Key(), "."), Message: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return &FileError{File: file, Message: err.Error()}
}

func walkTable(d *fileDoc, ss []keySpec, lines map[string]int, path []string, m map[string]any, errs *[]*FileError) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(path) == 0 && k == "hooks" {
			continue // [[hooks.EVENT]] tables: internal/hooks reads and checks them
		}
		p := append(slices.Clone(path), k)
		line := lines[lineKey(p)]
		fail := func(format string, args ...any) {
			*errs = append(*errs, &FileError{File: d.file, Line: line, Key: displayPath(p), Message: fmt.Sprintf(format, args...)})
		}
		v := m[k]
		if sub, ok := v.(map[string]any); ok && len(p) == 3 && p[0] == "providers" && p[2] == "models" {
			modelTables(d, ss, lines, p, sub, errs)
			continue
		}
		if isTablePath(p) {
			sub, ok := v.(map[string]any)
			if !ok {
				fail("%q must be a table, not %s", displayPath(p), describeValue(v))
				continue
			}
			if len(p) == 2 {
				if k == "" {
					fail("empty provider name")
					continue
				}
				d.providers[k] = line
			}
			walkTable(d, ss, lines, p, sub, errs)
			continue
		}
		s, provider, ok := lookupSpec(ss, p)
		if np, alias := aliasPath(p); !ok && alias {
			if s, provider, ok = lookupSpec(ss, np); ok {
				d.notices = append(d.notices, Warning{File: d.file, Line: line, Key: displayPath(p), Message: DeprecationNotice(displayPath(p), displayPath(np))})
			}
		}
		if !ok {
			fail("%s", unknownKeyMessage(ss, p))
			continue
		}
		tv, err := fromDecoded(s.kind, v)
		if err == nil {
			err = validate(s, tv)
		}
		if err != nil {
			fail("%s %s", displayPath(p), err)
			continue
		}
		d.settings = append(d.settings, setting{spec: s, provider: provider, value: tv, file: d.file, line: line})
	}
}

// unknownKeyMessage is `unknown key "modle" (did you mean "model"?)`.
func unknownKeyMessage(ss []keySpec, p []string) string {
	msg := fmt.Sprintf("unknown key %q", displayPath(p))
	if sug := suggest(p[len(p)-1], siblingNames(ss, p)); sug != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", displayPath(append(slices.Clone(p[:len(p)-1]), sug)))
	}
	return msg
}

// displayPath joins a key path with dots, quoting parts that are not bare keys.
func displayPath(p []string) string {
	parts := make([]string, len(p))
	for i, s := range p {
		parts[i] = quoteKey(s)
	}
	return strings.Join(parts, ".")
}

// lineKey is the map key of keyLines for a path.
func lineKey(p []string) string { return strings.Join(p, "\x00") }

// keyLines maps every key path of a syntactically valid document (tables, dotted keys,
// keys inside inline tables) to the 1-based line where it first appears.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			it := e.Key()
			table = keyParts(it)
			first := e.Key()
			if first.Next() {
				recordPrefixes(lines, nil, table, p.Shape(first.Node().Raw).Start.Line)
			}
		case unstable.KeyValue:
			kvLines(&p, lines, table, e)
		}
	}
	return lines
}

func kvLines(p *unstable.Parser, lines map[string]int, prefix []string, kv *unstable.Node) {
	line := p.Shape(kv.Raw).Start.Line
	path := append(slices.Clone(prefix), keyParts(kv.Key())...)
	recordPrefixes(lines, prefix, path[len(prefix):], line)
	if v := kv.Value(); v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if n := it.Node(); n.Kind == unstable.KeyValue {
				kvLines(p, lines, path, n)
			}
		}
	}
}

// recordPrefixes records line for prefix+rest[:1], prefix+rest[:2], ... unless already known.
func recordPrefixes(lines map[string]int, prefix, rest []string, line int) {
	p := slices.Clone(prefix)
	for _, part := range rest {
		p = append(p, part)
		if _, ok := lines[lineKey(p)]; !ok {
			lines[lineKey(p)] = line
		}
	}
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// decodeTOMLValue decodes a single TOML value written as text (`["a", "b"]`, `"x"`, `5`).
func decodeTOMLValue(text string) (any, error) {
	if strings.ContainsAny(text, "\r\n") && !strings.HasPrefix(strings.TrimSpace(text), "[") {
		return nil, errors.New("value must be on one line")
	}
	var m map[string]any
	if err := toml.Unmarshal([]byte("v = "+text+"\n"), &m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			return nil, errors.New(strings.TrimPrefix(de.Error(), "toml: "))
		}
		return nil, err
	}
	if len(m) != 1 {
		return nil, errors.New("not a single value")
	}
	return m["v"], nil
}

// suggest returns the candidate closest to s by edit distance (transpositions count 1),
// or "" when none is close enough to be a likely typo.
func suggest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := levenshtein.ComputeDistance(strings.ToLower(s), c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= max(2, len(s)/4) && bestD < len(s) {
		return best
	}
	return wordsSuggestion(strings.ToLower(s), candidates)
}

// wordsSuggestion returns the shortest candidate that holds every
// underscore-separated word of s, in order ("max_turns" →
// "max_tool_turns"), or "" (also when s is a single word).
func wordsSuggestion(s string, candidates []string) string {
	words := strings.Split(s, "_")
	if len(words) < 2 || slices.Contains(words, "") {
		return ""
	}
	best := ""
	for _, c := range candidates {
		rest := strings.Split(c, "_")
		for _, w := range words {
			i := slices.Index(rest, w)
			if i < 0 {
				rest = nil
				break
			}
			rest = rest[i+1:]
		}
		if rest != nil && (best == "" || len(c) < len(best)) {
			best = c
		}
	}
	return best
}
