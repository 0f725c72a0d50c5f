package config

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// AddMCPServer appends an [mcp_servers.NAME] table for s to the TOML file at path
// (created when missing), for `aidex mcp add`. The rest of the file, comments
// included, is kept; the file is written atomically with mode 0600.
//
// Errors: a server of that name already in the file, an invalid server (see
// MCPServer.Validate), a file that does not parse or would not load after the
// edit, and I/O failures.
func AddMCPServer(path string, s MCPServer) error {
	if !validMCPName(s.Name) {
		return fmt.Errorf("config: MCP server name %q may contain only letters, digits, _ and -", s.Name)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	data, err := readForEdit(path)
	if err != nil {
		return err
	}
	if len(data) > 0 {
		doc, err := parseFile(path, data)
		if err != nil {
			return err
		}
		if _, ok := doc.mcp[s.Name]; ok {
			return fmt.Errorf("config: MCP server %q is already in %s: remove it first (aidex mcp remove %s)", s.Name, path, s.Name)
		}
	}
	return appendTable(path, data, mcpTable(s))
}

// mcpTable writes a server as a TOML table.
func mcpTable(s MCPServer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", quoteKey(s.Name))
	kv := func(k, v string) { fmt.Fprintf(&b, "%s = %s\n", k, v) }
	if s.Command != "" {
		kv("command", tomlString(s.Command))
		if len(s.Args) > 0 {
			kv("args", tomlArray(s.Args))
		}
	}
	if s.URL != "" {
		kv("url", tomlString(s.URL))
	}
	if s.Transport != "" {
		kv("transport", tomlString(s.Transport))
	}
	if len(s.Env) > 0 {
		kv("env", inlineTable(s.Env))
	}
	if len(s.HTTPHeaders) > 0 {
		kv("http_headers", inlineTable(s.HTTPHeaders))
	}
	if s.BearerTokenEnvVar != "" {
		kv("bearer_token_env_var", tomlString(s.BearerTokenEnvVar))
	}
	if s.StartupTimeoutSec > 0 {
		kv("startup_timeout_sec", strconv.FormatFloat(s.StartupTimeoutSec, 'g', -1, 64))
	}
	return b.String()
}

func inlineTable(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, quoteKey(k)+" = "+tomlString(m[k]))
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// RemoveMCPServer deletes the [mcp_servers.NAME] table (and its sub-tables) from
// the TOML file at path, for `aidex mcp remove`, keeping the rest of the file,
// comments included; the file is written atomically.
//
// Errors: no such server in the file (the message lists the ones there), a server
// not written as its own table (edit the file by hand), a file that does not
// parse, and I/O failures.
func RemoveMCPServer(path, name string) error {
	data, err := readForEdit(path)
	if err != nil {
		return err
	}
	doc, err := parseFile(path, data)
	if err != nil {
		return err
	}
	if _, ok := doc.mcp[name]; !ok {
		return fmt.Errorf("config: no MCP server %q in %s (servers there: %s)", name, path, strings.Join(sortedKeys(doc.mcp), ", "))
	}
	spans := tableSpans(data)
	var keep []byte
	pos := 0
	for _, sp := range spans {
		if len(sp.key) >= 2 && sp.key[0] == "mcp_servers" && sp.key[1] == name {
			keep = append(keep, data[pos:sp.start]...)
			pos = sp.end
		}
	}
	keep = append(keep, data[pos:]...)
	out := bytes.TrimRight(keep, "\n")
	if len(out) > 0 {
		out = append(out, '\n')
	}
	after, err := parseFile(path, out)
	if err != nil {
		return fmt.Errorf("config: not written, the edit would leave %s invalid: %w", path, err)
	}
	if _, ok := after.mcp[name]; ok {
		return fmt.Errorf("config: MCP server %q in %s is not written as its own [mcp_servers.%s] table: remove it by hand", name, path, name)
	}
	return writeFileAtomic(path, out)
}

// span is a table of a TOML file: its key and the byte range from its header's
// line to the next table's header line (or the end).
type span struct {
	key        []string
	start, end int
}

func tableSpans(data []byte) []span {
	var p unstable.Parser
	p.Reset(data)
	var spans []span
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.Table && e.Kind != unstable.ArrayTable {
			continue
		}
		it := e.Key()
		if !it.Next() {
			continue
		}
		off := lineStart(data, p.Shape(it.Node().Raw).Start.Offset)
		spans = append(spans, span{key: keyParts(e.Key()), start: off})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := range spans {
		spans[i].end = len(data)
		if i+1 < len(spans) {
			spans[i].end = spans[i+1].start
		}
	}
	return spans
}
