package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// MCPServer is one [mcp_servers.NAME] table of aidex TOML (Codex's shape) or one entry of
// a project's .mcp.json (Claude Code's shape): an MCP server aidex starts or connects to.
// A server has either Command (stdio) or URL (streamable HTTP, or legacy SSE).
type MCPServer struct {
	// Name is the table name; it names the tools (mcp__NAME__TOOL).
	Name string `toml:"-"`
	// Command and Args start a stdio server.
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
	// Env is set in the server's environment; EnvVars are passed through from aidex's.
	Env     map[string]string `toml:"env"`
	EnvVars []string          `toml:"env_vars"`
	// Cwd is the stdio server's working directory (relative: to the file's folder).
	Cwd string `toml:"cwd"`
	// URL is a remote server's endpoint.
	URL string `toml:"url"`
	// Transport is "", stdio, http (streamable HTTP) or sse (legacy HTTP+SSE); "" is
	// stdio with a command, else http (falling back to sse when the server speaks only that).
	Transport string `toml:"transport"`
	// BearerTokenEnvVar names the variable holding the token sent as "Authorization: Bearer".
	BearerTokenEnvVar string `toml:"bearer_token_env_var"`
	// HTTPHeaders are sent with every request to URL.
	HTTPHeaders map[string]string `toml:"http_headers"`
	// StartupTimeoutSec bounds the start and initialisation, in seconds [10].
	StartupTimeoutSec float64 `toml:"startup_timeout_sec"`
	// ToolTimeoutSec bounds one tool call, in seconds [60].
	ToolTimeoutSec float64 `toml:"tool_timeout_sec"`
	// Enabled is false to keep the server configured but not started [true].
	Enabled *bool `toml:"enabled"`
	// EnabledTools is an allow list of the server's tool names (nil: every tool);
	// DisabledTools are left out.
	EnabledTools  []string `toml:"enabled_tools"`
	DisabledTools []string `toml:"disabled_tools"`
	// TrustAnnotations lets a tool's readOnlyHint make it a read for the permission policy.
	TrustAnnotations bool `toml:"trust_annotations"`
	// Source is where the server was defined: "FILE:LINE".
	Source string `toml:"-"`
	line   int
}

// IsEnabled reports whether the server is started (Enabled unset or true).
func (s MCPServer) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// TransportName returns the effective transport: stdio, http or sse.
func (s MCPServer) TransportName() string {
	switch {
	case s.Transport != "":
		return s.Transport
	case s.Command != "":
		return "stdio"
	}
	return "http"
}

// MCPJSONFile is the project's Claude Code MCP file, read when the folder is trusted.
const MCPJSONFile = ".mcp.json"

// validMCPName reports whether a server name is letters, digits, '_' and '-'.
func validMCPName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// mcpKeys are the keys of an [mcp_servers.NAME] table.
func mcpKeys() []string {
	t := reflect.TypeFor[MCPServer]()
	var out []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("toml"); tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// decodeMCPServers decodes the mcp_servers table of a file strictly: every unknown key,
// wrong type or inconsistent server is a *FileError with its line.
func decodeMCPServers(file string, v any, lines map[string]int) (map[string]MCPServer, []*FileError) {
	fail := func(p []string, format string, args ...any) *FileError {
		return &FileError{File: file, Line: lines[lineKey(p)], Key: displayPath(p), Message: fmt.Sprintf(format, args...)}
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, []*FileError{fail([]string{"mcp_servers"}, "\"mcp_servers\" must be a table of servers ([mcp_servers.NAME]), not %s", describeValue(v))}
	}
	out := map[string]MCPServer{}
	var errs []*FileError
	for _, name := range sortedKeys(top) {
		p := []string{"mcp_servers", name}
		s, err := decodeMCPServer(name, top[name])
		if err != nil {
			var fe *mcpKeyError
			if errors.As(err, &fe) {
				errs = append(errs, fail(append(p, fe.key), "%s", fe.msg))
			} else {
				errs = append(errs, fail(p, "%s", err.Error()))
			}
			continue
		}
		s.line = lines[lineKey(p)]
		s.Source = fmt.Sprintf("%s:%d", file, s.line)
		out[name] = s
	}
	return out, errs
}

type mcpKeyError struct{ key, msg string }

func (e *mcpKeyError) Error() string { return e.msg }

func decodeMCPServer(name string, v any) (MCPServer, error) {
	if !validMCPName(name) {
		return MCPServer{}, fmt.Errorf("server name %q may contain only letters, digits, _ and -", name)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return MCPServer{}, fmt.Errorf("mcp_servers.%s must be a table, not %s", quoteKey(name), describeValue(v))
	}
	keys := mcpKeys()
	for _, k := range sortedKeys(m) {
		if !slices.Contains(keys, k) {
			msg := fmt.Sprintf("unknown key %q in mcp_servers.%s", k, quoteKey(name))
			if sug := suggest(k, keys); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			return MCPServer{}, &mcpKeyError{key: k, msg: msg + "; known keys: " + strings.Join(keys, ", ")}
		}
	}
	data, err := toml.Marshal(m)
	if err != nil {
		return MCPServer{}, fmt.Errorf("mcp_servers.%s: %w", quoteKey(name), err)
	}
	var s MCPServer
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) && len(de.Key()) > 0 {
			return MCPServer{}, &mcpKeyError{key: de.Key()[0], msg: fmt.Sprintf("mcp_servers.%s.%s has the wrong type: %s", quoteKey(name), de.Key()[0], strings.TrimPrefix(de.Error(), "toml: "))}
		}
		return MCPServer{}, fmt.Errorf("mcp_servers.%s: %s", quoteKey(name), strings.TrimPrefix(err.Error(), "toml: "))
	}
	s.Name = name
	return s, s.Validate()
}

// Validate checks a server's consistency: a command or a URL (not both), a known
// transport, sane timeouts and environment variable names. The error names the fix.
func (s MCPServer) Validate() error {
	where := "mcp_servers." + quoteKey(s.Name)
	switch {
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("%s needs command = \"...\" (a stdio server) or url = \"https://...\" (a remote server)", where)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("%s has both command and url: keep one (command for stdio, url for HTTP)", where)
	}
	switch s.Transport {
	case "", "stdio", "http", "sse":
	case "streamable_http", "streamable-http":
		return fmt.Errorf("%s.transport %q: write \"http\" for streamable HTTP", where, s.Transport)
	default:
		return fmt.Errorf("%s.transport must be stdio, http or sse, not %q", where, s.Transport)
	}
	if s.Command != "" && (s.Transport == "http" || s.Transport == "sse") {
		return fmt.Errorf("%s.transport %q needs url, not command", where, s.Transport)
	}
	if s.URL != "" {
		if s.Transport == "stdio" {
			return fmt.Errorf("%s.transport \"stdio\" needs command, not url", where)
		}
		if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
			return fmt.Errorf("%s.url must be an http:// or https:// URL, not %q", where, s.URL)
		}
	}
	if s.StartupTimeoutSec < 0 || s.ToolTimeoutSec < 0 {
		return fmt.Errorf("%s: startup_timeout_sec and tool_timeout_sec must be positive seconds", where)
	}
	for _, n := range append(slices.Clone(s.EnvVars), s.BearerTokenEnvVar) {
		if n != "" && !isEnvName(n) {
			return fmt.Errorf("%s: %q is not an environment variable name (letters, digits, _)", where, n)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// applyMCP merges a file's servers (a relative cwd is resolved against base); an untrusted
// project file's are ignored with a warning.
func (l *loader) applyMCP(doc *fileDoc, base string, trusted bool) {
	for _, name := range sortedKeys(doc.mcp) {
		s := doc.mcp[name]
		if !trusted {
			l.warnings = append(l.warnings, Warning{File: doc.file, Line: s.line, Key: "mcp_servers." + quoteKey(name), Message: fmt.Sprintf(
				"ignored MCP server %q: a project file may not start servers; this folder is not trusted (run `aidex trust` in %s to allow it)", name, l.opts.Workspace)})
			continue
		}
		if s.Cwd != "" {
			s.Cwd = expandPath(s.Cwd, l.paths.Home, base)
		}
		if l.trustedProject && !l.approved(mcpServerItem(s, nil, l.opts.Workspace)) {
			continue
		}
		l.cfg.MCPServers[name] = s
	}
}

// mcpJSON is Claude Code's .mcp.json.
type mcpJSON struct {
	MCPServers map[string]mcpJSONServer `json:"mcpServers"`
}

type mcpJSONServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// loadMCPJSON reads <workspace>/.mcp.json (only in a trusted folder), expanding ${VAR}
// and ${VAR:-default} in commands, arguments, environment values, URLs and headers.
func (l *loader) loadMCPJSON() error {
	file := filepath.Join(l.opts.Workspace, MCPJSONFile)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config: read %s: %w", file, err)
	}
	if !l.cfg.ProjectTrusted {
		l.warnings = append(l.warnings, Warning{File: file, Message: fmt.Sprintf(
			"ignored: a project's MCP servers start only in a trusted folder (run `aidex trust` in %s to allow it)", l.opts.Workspace)})
		return nil
	}
	servers, err := ParseMCPJSON(file, data, l.opts.Getenv)
	if err != nil {
		return err
	}
	var raw mcpJSON
	_ = json.Unmarshal(data, &raw) // ParseMCPJSON decoded it strictly
	for _, name := range sortedKeys(servers) {
		s := servers[name]
		if !l.approved(mcpServerItem(s, raw.MCPServers[name], l.opts.Workspace)) {
			continue
		}
		l.cfg.MCPServers[name] = s
	}
	return nil
}

// ParseMCPJSON decodes a Claude Code .mcp.json ({"mcpServers": {NAME: {type, command,
// args, env, url, headers}}}) strictly, expanding ${VAR} and ${VAR:-default} with getenv.
// Errors name the file and the server.
func ParseMCPJSON(file string, data []byte, getenv func(string) string) (map[string]MCPServer, error) {
	var doc mcpJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, &FileError{File: file, Message: fmt.Sprintf("%v; expected {\"mcpServers\": {\"NAME\": {\"command\": ..., \"args\": [...]}}} or {\"type\": \"http\", \"url\": ...}", err)}
	}
	out := map[string]MCPServer{}
	x := func(s string) string { return ExpandVars(s, getenv) }
	for _, name := range sortedKeys(doc.MCPServers) {
		j := doc.MCPServers[name]
		s := MCPServer{Name: name, Command: x(j.Command), Cwd: x(j.Cwd), URL: x(j.URL), Source: file}
		switch j.Type {
		case "", "stdio", "http", "sse":
			s.Transport = j.Type
		case "streamable-http", "streamable_http", "streamableHttp":
			s.Transport = "http"
		default:
			return nil, &FileError{File: file, Key: name, Message: fmt.Sprintf("server %q: type must be stdio, http or sse, not %q", name, j.Type)}
		}
		if s.Transport == "stdio" && s.Command == "" {
			s.Transport = ""
		}
		for _, a := range j.Args {
			s.Args = append(s.Args, x(a))
		}
		s.Env = expandMap(j.Env, x)
		s.HTTPHeaders = expandMap(j.Headers, x)
		if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
			s.Cwd = filepath.Join(filepath.Dir(file), s.Cwd)
		}
		if !validMCPName(name) {
			return nil, &FileError{File: file, Key: name, Message: fmt.Sprintf("server name %q may contain only letters, digits, _ and -", name)}
		}
		if err := s.Validate(); err != nil {
			return nil, &FileError{File: file, Key: name, Message: err.Error()}
		}
		out[name] = s
	}
	return out, nil
}

func expandMap(m map[string]string, x func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x(v)
	}
	return out
}

// ExpandVars replaces ${VAR} with getenv(VAR) and ${VAR:-default} with the default when
// VAR is unset or empty (Claude Code's .mcp.json expansion). Other text is kept.
func ExpandVars(s string, getenv func(string) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	varRE := regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
	return varRE.ReplaceAllStringFunc(s, func(m string) string {
		g := varRE.FindStringSubmatch(m)
		if v := getenv(g[1]); v != "" || g[2] == "" {
			return v
		}
		return g[3]
	})
}
