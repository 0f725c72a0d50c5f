package config

import (
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// kind is the value type of a configuration key.
type kind int

const (
	kindString kind = iota
	kindBool
	kindInt
	kindFloat // float64, or *float64 for optional values
	kindList  // []string
	kindRules // []Rule
)

// describe names the kind for error messages ("must be an integer").
func (k kind) describe() string {
	switch k {
	case kindBool:
		return "a boolean (true or false)"
	case kindInt:
		return "an integer"
	case kindFloat:
		return "a number"
	case kindList:
		return "an array of strings"
	case kindRules:
		return `an array of rules ("TOOL" or "TOOL(PATTERN)")`
	default:
		return "a string"
	}
}

// keySpec describes one configuration key, derived from the toml tags of Config.
type keySpec struct {
	name     string // dotted name; provider keys use "*" for the provider: "providers.*.base_url"
	kind     kind
	index    []int // field index in Config, or in ProviderConfig when provider is true
	provider bool
	enum     []string // the allowed values given by the caller (providers.*.type); nil: enumOf's
}

// WireFormat is what config knows of one wire format, the `type` of a
// [providers.NAME] table. Config sits below the client packages, so the
// caller passes the formats (internal/llm/wire's table, through
// wire.ConfigFormats) in LoadOptions, to Set and to KeyReference. Local is
// true when the format's server runs on the user's machine at a known
// address (Ollama): a table of that type defining a new provider may leave
// base_url out.
type WireFormat struct {
	Type  string
	Local bool
}

// typeNames returns the formats' names, in their order.
func typeNames(formats []WireFormat) []string {
	out := make([]string, 0, len(formats))
	for _, f := range formats {
		out = append(out, f.Type)
	}
	return out
}

// specsFor returns the key specs with providers.*.type taking the names
// of formats; with no formats it takes any value.
func specsFor(formats []WireFormat) []keySpec {
	ss := specs()
	if len(formats) == 0 {
		return ss
	}
	for i := range ss {
		if ss[i].name == "providers.*.type" {
			ss[i].enum = typeNames(formats)
		}
	}
	return ss
}

// values returns the allowed values of s, or nil when any value of its
// kind goes.
func (s keySpec) values() []string {
	if s.enum != nil {
		return s.enum
	}
	return enumOf(s.name)
}

// secret reports whether the key holds a secret: its last component is or ends in api_key.
func (s keySpec) secret() bool {
	return strings.HasSuffix(s.name[strings.LastIndexByte(s.name, '.')+1:], "api_key")
}

// isPath reports whether string values of the key are file system paths (~ expanded,
// relative paths resolved against the base directory of their source).
func (s keySpec) isPath() bool {
	switch s.name {
	case "workspace", "system_prompt_file", "allowed_dirs", "sandbox.writable":
		return true
	}
	return false
}

// envName is the environment variable that sets the key: AIDEX_ + upper-case name with dots
// as underscores (AIDEX_MAX_TOOL_TURNS, AIDEX_TOOLS_PROFILE). Provider keys have none.
func (s keySpec) envName() string {
	if s.provider {
		return ""
	}
	return "AIDEX_" + strings.ToUpper(strings.ReplaceAll(s.name, ".", "_"))
}

// specs lists every configuration key in declaration order. It is rebuilt on each call
// (a few microseconds) so the package keeps no mutable state.
func specs() []keySpec {
	var out []keySpec
	collectSpecs(reflect.TypeFor[Config](), "", nil, false, &out)
	return out
}

func collectSpecs(t reflect.Type, prefix string, index []int, provider bool, out *[]keySpec) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("toml")
		if tag == "" || tag == "-" {
			continue
		}
		name := prefix + tag
		idx := append(slices.Clone(index), i)
		switch {
		case f.Type.Kind() == reflect.Struct:
			collectSpecs(f.Type, name+".", idx, provider, out)
		case f.Type.Kind() == reflect.Map:
			collectSpecs(f.Type.Elem(), name+".*.", nil, true, out)
		default:
			*out = append(*out, keySpec{name: name, kind: kindOf(f.Type), index: idx, provider: provider})
		}
	}
}

func kindOf(t reflect.Type) kind {
	switch {
	case t == reflect.TypeFor[[]Rule]():
		return kindRules
	case t.Kind() == reflect.Slice:
		return kindList
	case t.Kind() == reflect.Bool, t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool:
		return kindBool
	case t.Kind() == reflect.Int:
		return kindInt
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Pointer:
		return kindFloat
	default:
		return kindString
	}
}

// Keys returns every configuration key name, in the order of the documentation; provider keys
// are written with "*" for the provider name ("providers.*.base_url"). For shell completion
// and `aidex config list`.
func Keys() []string {
	ss := specs()
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.name
	}
	return names
}

// isTablePath reports whether path names a table of the schema: permissions, tools,
// sandbox, providers or providers.NAME.
func isTablePath(path []string) bool {
	switch len(path) {
	case 1:
		return path[0] == "permissions" || path[0] == "tools" || path[0] == "providers" || path[0] == "sandbox" || path[0] == "subagents" || path[0] == "agent" || path[0] == "budget" || path[0] == "harness"
	case 2:
		return path[0] == "providers"
	}
	return false
}

// lookupSpec finds the key spec for a full key path; for provider keys it also returns the
// provider name.
func lookupSpec(ss []keySpec, path []string) (keySpec, string, bool) {
	name, provider := strings.Join(path, "."), ""
	if len(path) == 3 && path[0] == "providers" {
		name, provider = "providers.*."+path[2], path[1]
		if provider == "" {
			return keySpec{}, "", false
		}
	}
	for _, s := range ss {
		if s.name == name {
			return s, provider, true
		}
	}
	return keySpec{}, "", false
}

// siblingNames lists the key and table names allowed next to path's last component, for
// "did you mean" suggestions.
func siblingNames(ss []keySpec, path []string) []string {
	prefix := ""
	if len(path) > 1 {
		parent := slices.Clone(path[:len(path)-1])
		if len(parent) == 2 && parent[0] == "providers" {
			parent[1] = "*"
		}
		prefix = strings.Join(parent, ".") + "."
	}
	var names []string
	for _, s := range ss {
		rest, ok := strings.CutPrefix(s.name, prefix)
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(rest, ".")
		if first != "*" && !slices.Contains(names, first) {
			names = append(names, first)
		}
	}
	return names
}

// enumOf returns the allowed values of an enumerated key, or nil.
func enumOf(name string) []string {
	switch name {
	case "reasoning_effort":
		return []string{"minimal", "low", "medium", "high", "off"}
	case "permission_mode":
		return []string{"plan", "ask", "auto-edit", "yolo"}
	case "multi_mode":
		return []string{"single", "round-robin", "sequential", "parallel"}
	case "multi_keep":
		return []string{"first", "all"}
	case "notify":
		return []string{"auto", "bell", "osc", "off"}
	case "tools.profile":
		return []string{"standard", "full", "readonly"}
	case "sandbox.mode":
		return []string{"workspace-write", "read-only", "off", "danger-full-access"}
	case "verbosity":
		return []string{"low", "medium", "high"}
	case "agent.writes_policy":
		return []string{"allow", "deny", "dry-run"}
	case "agent.output":
		return []string{"final", "full", "none"}
	case "harness.edit_format", "providers.*.edit_format":
		return []string{"replace", "hashline", "patch"}
	}
	return nil
}

// intMin returns the inclusive lower bound of an integer key.
func intMin(name string) int {
	switch name {
	case "request_timeout", "stream_idle_timeout", "approval_timeout", "max_tool_turns", "subagents.max_parallel", "subagents.max_runs", "agent.context_detail_max_chars", "max_background_processes", "max_input_bytes":
		return 1
	}
	return 0
}

// intMax returns the inclusive upper bound of an integer key, or 0 when it has none.
func intMax(name string) int {
	if name == "max_background_processes" {
		return 20 // ayder-cli's range: 1-20
	}
	return 0
}

// validate checks a typed value against the key's enum, range or syntax. The error names
// the problem and the allowed values; the caller adds file, line and key.
func validate(s keySpec, v any) error {
	switch x := v.(type) {
	case string:
		return validateString(s, x)
	case int:
		lo, hi := intMin(s.name), intMax(s.name)
		if hi > 0 && (x < lo || x > hi) {
			return fmt.Errorf("must be between %d and %d, not %d", lo, hi, x)
		}
		if x < lo {
			return fmt.Errorf("must be at least %d, not %d", lo, x)
		}
	case float64:
		return validateFloat(s.name, x)
	case []string:
		for _, e := range x {
			if err := validateElem(s, e); err != nil {
				return err
			}
		}
	}
	return nil
}

func validateString(s keySpec, x string) error {
	name := s.name
	optional := name == "reasoning_effort" || name == "verbosity" || name == "agent.writes_policy" ||
		name == "harness.edit_format" || name == "providers.*.edit_format"
	if enum := s.values(); enum != nil && !slices.Contains(enum, x) && (x != "" || !optional) {
		return fmt.Errorf("must be one of %s, not %q", strings.Join(enum, ", "), x)
	}
	switch {
	case strings.HasSuffix(name, "base_url") && x != "":
		u, err := url.Parse(x)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("must be an http:// or https:// URL with a host, not %q", x)
		}
	case name == "providers.*.api_key_env" && x != "":
		if !isEnvName(x) {
			return fmt.Errorf("must be an environment variable name (letters, digits, _), not %q", x)
		}
	}
	return nil
}

func validateFloat(name string, x float64) error {
	switch name {
	case "temperature":
		if x < 0 || x > 2 {
			return fmt.Errorf("must be between 0 and 2, not %v", x)
		}
	case "mcp_tool_budget":
		if x < 0 || x > 1 {
			return fmt.Errorf("must be in [0, 1] (a fraction of the context window; 1 never defers MCP tools), not %v", x)
		}
	case "compaction_threshold":
		if x <= 0 || x > 1 {
			return fmt.Errorf("must be in (0, 1] (a fraction of the context window), not %v", x)
		}
	case "budget.run_usd", "budget.session_usd", "budget.daily_usd":
		if x < 0 {
			return fmt.Errorf("must be 0 (no limit) or more US dollars, not %v", x)
		}
	}
	return nil
}

func validateElem(s keySpec, e string) error {
	if s.kind == kindRules {
		if _, _, err := ParseRule(e); err != nil {
			return err
		}
		return nil
	}
	if strings.TrimSpace(e) == "" {
		return fmt.Errorf("must not contain empty strings")
	}
	if s.name == "command_env_allow" && !isEnvName(e) {
		return fmt.Errorf("must hold environment variable names (letters, digits, _), not %q", e)
	}
	return nil
}

func isEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ParseRule splits a permission rule "TOOL" or "TOOL(PATTERN)" into the tool name and the
// pattern ("" when the rule has none, matching every call of the tool). Tool names are
// letters, digits and _ . : - (MCP tools included), with * as a wildcard (mcp__github__*). It returns an error naming the mistake
// when the rule is malformed (empty, unbalanced parenthesis, empty pattern).
func ParseRule(rule string) (tool, pattern string, err error) {
	tool, rest, hasParen := strings.Cut(rule, "(")
	if tool == "" {
		return "", "", fmt.Errorf("invalid rule %q: expected TOOL or TOOL(PATTERN)", rule)
	}
	for i := 0; i < len(tool); i++ {
		c := tool[i]
		if !isToolChar(c) {
			return "", "", fmt.Errorf("invalid rule %q: tool name %q may contain only letters, digits, _ . : - and the wildcard *", rule, tool)
		}
	}
	if !hasParen {
		return tool, "", nil
	}
	pattern, ok := strings.CutSuffix(rest, ")")
	if !ok {
		return "", "", fmt.Errorf("invalid rule %q: missing closing parenthesis", rule)
	}
	if strings.TrimSpace(pattern) == "" {
		return "", "", fmt.Errorf("invalid rule %q: empty pattern (write %q to match every call)", rule, tool)
	}
	return tool, pattern, nil
}

func isToolChar(c byte) bool {
	return c == '_' || c == '.' || c == ':' || c == '-' || c == '*' ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// fromDecoded converts a value decoded from TOML (or JSON, for the legacy import) to the
// Go type of kind k: string, bool, int, float64 or []string.
func fromDecoded(k kind, v any) (any, error) {
	switch k {
	case kindString:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case kindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case kindInt:
		if n, ok := asInt(v); ok {
			return n, nil
		}
	case kindFloat:
		if f, ok := asFloat(v); ok {
			return f, nil
		}
	case kindList, kindRules:
		if l, ok := asStrings(v); ok {
			return l, nil
		}
	}
	return nil, fmt.Errorf("must be %s, not %s", k.describe(), describeValue(v))
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		if n >= math.MinInt && n <= math.MaxInt {
			return int(n), true
		}
	case float64: // JSON numbers
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int(n), true
		}
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		if !math.IsNaN(n) && !math.IsInf(n, 0) {
			return n, true
		}
	}
	return 0, false
}

func asStrings(v any) ([]string, bool) {
	switch l := v.(type) {
	case []string:
		return slices.Clone(l), true
	case []any:
		out := make([]string, 0, len(l))
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// describeValue names the type of a decoded value for error messages.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return fmt.Sprintf("a string (%q)", x)
	case bool:
		return fmt.Sprintf("a boolean (%v)", x)
	case int64:
		return fmt.Sprintf("an integer (%d)", x)
	case float64:
		return fmt.Sprintf("a number (%v)", x)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "null"
	default:
		return "a date or time"
	}
}

// fromString converts a string given on the command line, in an environment variable or to
// `aidex config set` to the Go type of kind k. Lists are a TOML array (`["a", "b"]`) or
// comma-separated values; commas inside parentheses or quotes do not split.
func fromString(k kind, s string) (any, error) {
	switch k {
	case kindString:
		return s, nil
	case kindBool:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1", "yes", "on":
			return true, nil
		case "false", "0", "no", "off":
			return false, nil
		}
	case kindInt:
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return n, nil
		}
	case kindFloat:
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
	case kindList, kindRules:
		return parseList(s)
	}
	return nil, fmt.Errorf("must be %s, not %q", k.describe(), s)
}

// parseList parses a TOML array of strings or a comma-separated list.
func parseList(s string) ([]string, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "[") {
		v, err := decodeTOMLValue(t)
		if err != nil {
			return nil, fmt.Errorf("invalid array %s: %w", t, err)
		}
		l, ok := asStrings(v)
		if !ok {
			return nil, fmt.Errorf("must be an array of strings, not %s", t)
		}
		return l, nil
	}
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i <= len(t); i++ {
		if i == len(t) || (t[i] == ',' && depth == 0 && quote == 0) {
			if e := strings.TrimSpace(t[start:i]); e != "" {
				out = append(out, e)
			}
			start = i + 1
			continue
		}
		switch c := t[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth = max(0, depth-1)
		}
	}
	return out, nil
}
