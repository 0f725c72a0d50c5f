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
	// EnvHTTPHeaders are headers sent with every request to URL whose values
	// are read from the named environment variables (header -> variable; an
	// unset variable sends no header).
	EnvHTTPHeaders map[string]string `toml:"env_http_headers"`
	// StartupTimeoutSec bounds the start and initialisation, in seconds [10].
	StartupTimeoutSec float64 `toml:"startup_timeout_sec"`
	// StartupTimeoutMS is Codex's startup_timeout_ms, in milliseconds: when
	// startup_timeout_sec is not set it sets StartupTimeoutSec at decoding.
	StartupTimeoutMS float64 `toml:"startup_timeout_ms"`
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
	// Required (Codex's key) makes every run of a session stop with an
	// error while the server has failed to start, instead of going on
	// without it [false].
	Required bool `toml:"required"`
	// SupportsParallelToolCalls (Codex's key) lets aidex send the server
	// several tool calls at once (read-only calls of one response run in
	// parallel); without it a call waits for the server's previous one to
	// end [false].
	SupportsParallelToolCalls bool `toml:"supports_parallel_tool_calls"`
	// Scopes are the OAuth scopes `aidex mcp login` asks for (nil: those the
	// server's metadata advertises).
	Scopes []string `toml:"scopes"`
	// OAuth configures the OAuth sign-in of a remote server (nil: discovery
	// and dynamic client registration).
	OAuth *MCPOAuth `toml:"oauth"`
	// Source is where the server was defined: "FILE:LINE".
	Source string `toml:"-"`
	line   int
}

// MCPOAuth is the [mcp_servers.NAME.oauth] table (.mcp.json: "oauth":
// {"clientId", "callbackPort"}): a client registered beforehand with the
// server's authorization server instead of dynamic registration, and the
// grant. ClientSecretEnvVar names the variable holding a confidential
// client's secret. Grant is "authorization_code" (the default: the user signs
// in in the browser) or "client_credentials" (machine to machine: the client
// id and secret are exchanged for a token, no browser; needs ClientID and
// ClientSecretEnvVar, or PrivateKeyFile). CallbackPort fixes the loopback
// redirect's port (0: any free port), for a client registered with one
// redirect URI. PrivateKeyFile is a PEM file of the client's P-256 or RSA
// private key: the client-credentials grant authenticates with a JWT
// signed with it (private_key_jwt, RFC 7523) instead of a secret.
type MCPOAuth struct {
	ClientID           string `toml:"client_id"`
	ClientSecretEnvVar string `toml:"client_secret_env_var"`
	Grant              string `toml:"grant"`
	CallbackPort       int    `toml:"callback_port"`
	PrivateKeyFile     string `toml:"private_key_file"`
}

// validate checks the grant, the port and the secret's variable name (nil:
// nothing to check). where names the server's table.
func (o *MCPOAuth) validate(where string) error {
	if o == nil {
		return nil
	}
	switch o.Grant {
	case "", "authorization_code":
	case "client_credentials":
		if o.ClientID == "" || o.ClientSecretEnvVar == "" && o.PrivateKeyFile == "" {
			return fmt.Errorf("%s.oauth: grant \"client_credentials\" needs client_id, and client_secret_env_var or private_key_file", where)
		}
	default:
		return fmt.Errorf("%s.oauth.grant must be authorization_code or client_credentials, not %q", where, o.Grant)
	}
	if o.CallbackPort < 0 || o.CallbackPort > 65535 {
		return fmt.Errorf("%s.oauth.callback_port must be a port number (1-65535), not %d", where, o.CallbackPort)
	}
	if o.ClientSecretEnvVar != "" && !isEnvName(o.ClientSecretEnvVar) {
		return fmt.Errorf("%s.oauth: %q is not an environment variable name (letters, digits, _)", where, o.ClientSecretEnvVar)
	}
	return nil
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
//
// Keys aidex reads but does not implement and unknown keys are dropped with one
// warning each, naming the file and line: a file written for Codex loads.
func decodeMCPServers(file string, v any, lines map[string]int) (map[string]MCPServer, []*FileError, []Warning) {
	fail := func(p []string, format string, args ...any) *FileError {
		return &FileError{File: file, Line: lines[lineKey(p)], Key: displayPath(p), Message: fmt.Sprintf(format, args...)}
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, []*FileError{fail([]string{"mcp_servers"}, "\"mcp_servers\" must be a table of servers ([mcp_servers.NAME]), not %s", describeValue(v))}, nil
	}
	out := map[string]MCPServer{}
	var (
		errs  []*FileError
		warns []Warning
	)
	for _, name := range sortedKeys(top) {
		p := []string{"mcp_servers", name}
		s, kws, err := decodeMCPServer(name, top[name])
		for _, kw := range kws {
			warns = append(warns, Warning{File: file, Line: lines[lineKey(append(slices.Clone(p), kw.key))],
				Key: displayPath(append(slices.Clone(p), kw.key)), Message: kw.msg})
		}
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
	return out, errs, warns
}

type mcpKeyError struct{ key, msg string }

func (e *mcpKeyError) Error() string { return e.msg }

// mcpUnimplemented are the keys of Codex's [mcp_servers.NAME] aidex reads but
// does not implement, with what to do instead: each is a warning.
var mcpUnimplemented = map[string]string{
	"default_tools_approval_mode": "approve MCP tools with rules instead: [permissions] allow = [\"mcp__SERVER__*\"]",
	"tools":                       "approve MCP tools with rules instead: [permissions] allow = [\"mcp__SERVER__TOOL\"]",
	"experimental_environment":    "aidex starts every server on this machine",
	"bearer_token":                "put the token in an environment variable and name it in bearer_token_env_var",
	"name":                        "the table's name is the server's name",
	"oauth_resource":              "aidex sends the resource the server's protected-resource metadata names",
}

// mcpKeyWarning is a key of a server dropped with a warning.
type mcpKeyWarning struct{ key, msg string }

// decodeMCPServer decodes one server table. Keys aidex does not implement and
// unknown keys are dropped and returned as warnings; a wrong type or an
// inconsistent server is the error.
func decodeMCPServer(name string, v any) (MCPServer, []mcpKeyWarning, error) {
	if !validMCPName(name) {
		return MCPServer{}, nil, fmt.Errorf("server name %q may contain only letters, digits, _ and -", name)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return MCPServer{}, nil, fmt.Errorf("mcp_servers.%s must be a table, not %s", quoteKey(name), describeValue(v))
	}
	keys := mcpKeys()
	var warns []mcpKeyWarning
	kept := map[string]any{}
	for _, k := range sortedKeys(m) {
		where := "mcp_servers." + quoteKey(name) + "." + quoteKey(k)
		switch why, unimpl := mcpUnimplemented[k]; {
		case unimpl:
			warns = append(warns, mcpKeyWarning{k, fmt.Sprintf("%s is read but not implemented by aidex, so it has no effect: %s", where, why)})
		case !slices.Contains(keys, k):
			msg := fmt.Sprintf("unknown key %q in mcp_servers.%s", k, quoteKey(name))
			if sug := suggest(k, keys); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			warns = append(warns, mcpKeyWarning{k, msg + " is ignored; known keys: " + strings.Join(keys, ", ")})
		case k == "env_vars":
			ev, w := envVarNames(where, m[k])
			kept[k] = ev
			warns = append(warns, w...)
		default:
			kept[k] = m[k]
		}
	}
	data, err := toml.Marshal(kept)
	if err != nil {
		return MCPServer{}, warns, fmt.Errorf("mcp_servers.%s: %w", quoteKey(name), err)
	}
	var s MCPServer
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		var de *toml.DecodeError
		var sme *toml.StrictMissingError
		switch {
		case errors.As(err, &de) && len(de.Key()) > 0:
			return MCPServer{}, warns, &mcpKeyError{key: de.Key()[0], msg: fmt.Sprintf("mcp_servers.%s.%s has the wrong type: %s", quoteKey(name), de.Key()[0], strings.TrimPrefix(de.Error(), "toml: "))}
		case errors.As(err, &sme) && len(sme.Errors) > 0 && len(sme.Errors[0].Key()) > 0:
			k := sme.Errors[0].Key()
			return MCPServer{}, warns, &mcpKeyError{key: k[0], msg: fmt.Sprintf("unknown key %q in mcp_servers.%s", strings.Join(k, "."), quoteKey(name))}
		}
		return MCPServer{}, warns, fmt.Errorf("mcp_servers.%s: %s", quoteKey(name), strings.TrimPrefix(err.Error(), "toml: "))
	}
	s.Name = name
	s.foldTimeouts()
	if err := s.Validate(); err != nil {
		for _, w := range warns {
			err = fmt.Errorf("%w (%s)", err, w.msg) // a misspelt key is the likely cause
		}
		return MCPServer{}, warns, err
	}
	return s, warns, nil
}

// foldTimeouts sets StartupTimeoutSec from StartupTimeoutMS when only the
// latter is set (startup_timeout_sec wins, as in Codex).
func (s *MCPServer) foldTimeouts() {
	if s.StartupTimeoutSec == 0 && s.StartupTimeoutMS > 0 {
		s.StartupTimeoutSec = s.StartupTimeoutMS / 1000
	}
}

// envVarNames reads Codex's env_vars: names, or {name, source} tables (source
// "local", the default, or "remote", which aidex does not implement).
func envVarNames(where string, v any) (any, []mcpKeyWarning) {
	list, ok := v.([]any)
	if !ok {
		return v, nil // the decoder names the wrong type
	}
	var warns []mcpKeyWarning
	out := make([]any, 0, len(list))
	for _, e := range list {
		t, ok := e.(map[string]any)
		if !ok {
			out = append(out, e)
			continue
		}
		out = append(out, t["name"])
		if src, _ := t["source"].(string); src != "" && src != "local" {
			warns = append(warns, mcpKeyWarning{"env_vars", fmt.Sprintf("%s: source %q is not implemented by aidex: %v is read from aidex's own environment", where, src, t["name"])})
		}
	}
	return out, warns
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
	if s.StartupTimeoutSec < 0 || s.ToolTimeoutSec < 0 || s.StartupTimeoutMS < 0 {
		return fmt.Errorf("%s: startup_timeout_sec and tool_timeout_sec must be positive seconds (startup_timeout_ms: milliseconds)", where)
	}
	if err := s.OAuth.validate(where); err != nil {
		return err
	}
	envNames := append(slices.Clone(s.EnvVars), s.BearerTokenEnvVar)
	for _, n := range s.EnvHTTPHeaders {
		envNames = append(envNames, n)
	}
	for _, n := range envNames {
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
	OAuth   *mcpJSONOAuth     `json:"oauth,omitempty"`
	// aidex's keys (those of [mcp_servers.NAME]; its messages name them).
	StartupTimeoutSec float64  `json:"startup_timeout_sec,omitempty"`
	StartupTimeoutMS  float64  `json:"startup_timeout_ms,omitempty"`
	ToolTimeoutSec    float64  `json:"tool_timeout_sec,omitempty"`
	Enabled           *bool    `json:"enabled,omitempty"`
	EnabledTools      []string `json:"enabled_tools,omitempty"`
	DisabledTools     []string `json:"disabled_tools,omitempty"`
	TrustAnnotations  bool     `json:"trust_annotations,omitempty"`
	Required          bool     `json:"required,omitempty"`
	// SupportsParallelToolCalls is supports_parallel_tool_calls.
	SupportsParallelToolCalls bool `json:"supports_parallel_tool_calls,omitempty"`
}

// mcpJSONOAuth is a .mcp.json server's "oauth" (Claude Code: clientId,
// callbackPort; aidex: clientSecretEnvVar, grant).
type mcpJSONOAuth struct {
	ClientID           string `json:"clientId,omitempty"`
	CallbackPort       int    `json:"callbackPort,omitempty"`
	ClientSecretEnvVar string `json:"clientSecretEnvVar,omitempty"`
	Grant              string `json:"grant,omitempty"`
	PrivateKeyFile     string `json:"privateKeyFile,omitempty"`
}

// jsonKeys are the JSON names of a struct's fields.
func jsonKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// jsonKeyLines maps every object key path of a JSON document (lineKey of the
// keys, array indexes left out) to the 1-based line where it first appears.
func jsonKeyLines(data []byte) map[string]int {
	type frame struct {
		obj, expectKey bool
		key            string
	}
	lines := map[string]int{}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return lines
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, &frame{obj: tok == json.Delim('{'), expectKey: true})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].expectKey = true
			}
			continue
		}
		if top == nil || !top.obj {
			continue
		}
		if !top.expectKey {
			top.expectKey = true
			continue
		}
		top.key, top.expectKey = fmt.Sprint(tok), false
		var p []string
		for _, f := range stack {
			if f.obj {
				p = append(p, f.key)
			}
		}
		if k := lineKey(p); lines[k] == 0 {
			lines[k] = 1 + bytes.Count(data[:dec.InputOffset()], []byte{'\n'})
		}
	}
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
	servers, warns, err := ParseMCPJSON(file, data, l.opts.Getenv)
	l.warnings = append(l.warnings, warns...)
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
// args, env, cwd, url, headers, oauth}}}, plus aidex's startup_timeout_sec,
// startup_timeout_ms, tool_timeout_sec, enabled, enabled_tools, disabled_tools,
// trust_annotations, required and supports_parallel_tool_calls), expanding ${VAR} and ${VAR:-default} with getenv. An
// unknown key of a server is dropped with a warning naming the file and line;
// errors (not JSON, no mcpServers, a wrong type, an inconsistent server) name
// the file and the server.
func ParseMCPJSON(file string, data []byte, getenv func(string) string) (map[string]MCPServer, []Warning, error) {
	var doc struct {
		MCPServers map[string]map[string]json.RawMessage `json:"mcpServers"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, &FileError{File: file, Message: fmt.Sprintf("%v; expected {\"mcpServers\": {\"NAME\": {\"command\": ..., \"args\": [...]}}} or {\"type\": \"http\", \"url\": ...}", err)}
	}
	lines := jsonKeyLines(data)
	var warns []Warning
	warn := func(p []string, format string, args ...any) {
		warns = append(warns, Warning{File: file, Line: lines[lineKey(p)], Key: strings.Join(p[1:], "."), Message: fmt.Sprintf(format, args...)})
	}
	// unknown drops the keys of raw not in known, with a warning each.
	unknown := func(p []string, raw map[string]json.RawMessage, known []string) {
		for _, k := range sortedKeys(raw) {
			if slices.Contains(known, k) {
				continue
			}
			delete(raw, k)
			msg := fmt.Sprintf("unknown key %q in server %q", k, p[1])
			if sug := suggest(strings.ToLower(k), known); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			warn(append(slices.Clone(p), k), "%s is ignored; known keys: %s", msg, strings.Join(known, ", "))
		}
	}
	out := map[string]MCPServer{}
	x := func(s string) string { return ExpandVars(s, getenv) }
	for _, name := range sortedKeys(doc.MCPServers) {
		raw := doc.MCPServers[name]
		p := []string{"mcpServers", name}
		unknown(p, raw, jsonKeys(reflect.TypeFor[mcpJSONServer]()))
		if o, ok := raw["oauth"]; ok {
			var m map[string]json.RawMessage
			if json.Unmarshal(o, &m) == nil {
				unknown(append(slices.Clone(p), "oauth"), m, jsonKeys(reflect.TypeFor[mcpJSONOAuth]()))
				raw["oauth"], _ = json.Marshal(m)
			}
		}
		kept, _ := json.Marshal(raw)
		var j mcpJSONServer
		if err := json.Unmarshal(kept, &j); err != nil {
			return nil, warns, &FileError{File: file, Line: lines[lineKey(p)], Key: name, Message: fmt.Sprintf("server %q: %v", name, err)}
		}
		s, err := j.server(file, name, lines[lineKey(p)], x)
		if err != nil {
			return nil, warns, err
		}
		out[name] = s
	}
	return out, warns, nil
}

// server converts one .mcp.json entry (name, defined at line of file) into
// an MCPServer, expanding variables with x. Errors name the file and server.
func (j mcpJSONServer) server(file, name string, line int, x func(string) string) (MCPServer, error) {
	s := MCPServer{Name: name, Command: x(j.Command), Cwd: x(j.Cwd), URL: x(j.URL), Source: fmt.Sprintf("%s:%d", file, line),
		StartupTimeoutSec: j.StartupTimeoutSec, StartupTimeoutMS: j.StartupTimeoutMS, ToolTimeoutSec: j.ToolTimeoutSec,
		Enabled: j.Enabled, EnabledTools: j.EnabledTools, DisabledTools: j.DisabledTools, TrustAnnotations: j.TrustAnnotations,
		Required: j.Required}
	if o := j.OAuth; o != nil {
		s.OAuth = &MCPOAuth{ClientID: x(o.ClientID), CallbackPort: o.CallbackPort, ClientSecretEnvVar: o.ClientSecretEnvVar, Grant: o.Grant,
			PrivateKeyFile: x(o.PrivateKeyFile)}
	}
	s.foldTimeouts()
	switch j.Type {
	case "", "stdio", "http", "sse":
		s.Transport = j.Type
	case "streamable-http", "streamable_http", "streamableHttp":
		s.Transport = "http"
	default:
		return s, &FileError{File: file, Key: name, Message: fmt.Sprintf("server %q: type must be stdio, http or sse, not %q", name, j.Type)}
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
		return s, &FileError{File: file, Key: name, Message: fmt.Sprintf("server name %q may contain only letters, digits, _ and -", name)}
	}
	if err := s.Validate(); err != nil {
		return s, &FileError{File: file, Key: name, Message: err.Error()}
	}
	return s, nil
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
