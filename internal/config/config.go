// Package config loads aidex's TOML configuration: built-in defaults, the global file
// ($XDG_CONFIG_HOME/aidex/config.toml), the project file (<workspace>/.aidex/config.toml),
// AIDEX_* environment variables and command-line flags, in that order of precedence.
//
// Files are decoded strictly: unknown keys and wrong types are errors naming the file, the
// line and the key. A project file of a folder the user has not trusted (`aidex trust`) may
// not redirect providers, set keys or commands, or widen permissions; such settings are
// ignored with a warning. The package also edits files in place (Set, AddRule) keeping
// comments, masks secrets for display, records trusted folders, and imports the Python
// AIdex's config.json once.
package config

import (
	"reflect"
	"slices"
	"time"

	"github.com/zelvior/aidex/internal/trust"
)

// Source names for values that do not come from a file. File sources are "PATH:LINE".
const (
	SourceDefault = "default"
	SourceEnv     = "env"
	SourceFlag    = "flag"
)

// Config is the merged configuration. The toml tags are the key names of the files; time
// values are in seconds and sizes in tokens.
type Config struct {
	Provider               string   `toml:"provider"`                 // provider name (catalog or [providers.NAME])
	Model                  string   `toml:"model"`                    // model id
	Stream                 bool     `toml:"stream"`                   // stream responses [true]
	MaxTokens              int      `toml:"max_tokens"`               // output tokens per response; 0 = provider default
	Temperature            *float64 `toml:"temperature"`              // 0..2; nil = provider default
	RequestTimeout         int      `toml:"request_timeout"`          // seconds until the answer's first byte [300; 600 for local servers]
	StreamIdleTimeout      int      `toml:"stream_idle_timeout"`      // seconds without stream data after the first byte [90]
	MaxRetries             int      `toml:"max_retries"`              // retries of a failed request [3]
	MaxToolTurns           int      `toml:"max_tool_turns"`           // tool-call turns per user message [25]
	Workspace              string   `toml:"workspace"`                // workspace root (absolute)
	SafeMode               bool     `toml:"safe_mode"`                // the built-in deny list of destructive commands [true]
	WebAllowShellTools     bool     `toml:"web_allow_shell_tools"`    // shell tools in the web UI [false]
	ApprovalTimeout        int      `toml:"approval_timeout"`         // seconds an approval or question of a web chat waits once no page follows its session, before it is denied [300]
	ReasoningEffort        string   `toml:"reasoning_effort"`         // minimal|low|medium|high, or off (no reasoning, not even the provider's default); "" = unset: the provider's default (thinking on where the model supports it)
	ThinkingBudget         int      `toml:"thinking_budget"`          // reasoning tokens; 0 = unset
	OllamaBaseURL          string   `toml:"ollama_base_url"`          // e.g. http://127.0.0.1:11434
	CustomBaseURL          string   `toml:"custom_base_url"`          // OpenAI-compatible endpoint
	CustomChatModel        string   `toml:"custom_chat_model"`        // model at CustomBaseURL
	ImageProvider          string   `toml:"image_provider"`           // provider for image generation
	ImageModel             string   `toml:"image_model"`              // image model id
	ImageAPIKey            string   `toml:"image_api_key"`            // secret
	ImageBaseURL           string   `toml:"image_base_url"`           // image endpoint
	CloudflareAccountID    string   `toml:"cloudflare_account_id"`    // image_provider cloudflare: the Workers AI account
	SystemPromptFile       string   `toml:"system_prompt_file"`       // absolute path
	CompactionThreshold    float64  `toml:"compaction_threshold"`     // fraction of the context window, (0,1] [0.85]
	ContextWindow          int      `toml:"context_window"`           // tokens; overrides the model's window (0 = from the catalog)
	VerifyCommand          string   `toml:"verify_command"`           // shell command run to verify changes
	MaxBackgroundProcesses int      `toml:"max_background_processes"` // [5]
	MaxInputBytes          int      `toml:"max_input_bytes"`          // bytes of piped stdin or -f FILE a headless run reads as its prompt, at most what the model's context window holds [1048576]
	WebFetchAllowPrivate   bool     `toml:"web_fetch_allow_private"`  // web fetch may reach private addresses [false]
	PermissionMode         string   `toml:"permission_mode"`          // plan|ask|auto-edit|yolo [ask]
	Confine                bool     `toml:"confine"`                  // confine file tools to the workspace [true]
	AllowedDirs            []string `toml:"allowed_dirs"`             // extra directories (absolute)
	CommandEnvAllow        []string `toml:"command_env_allow"`        // credential-looking variables passed to commands
	Notify                 string   `toml:"notify"`                   // auto|bell|osc|off: ring the terminal when aidex needs the user [auto]
	MCPToolBudget          float64  `toml:"mcp_tool_budget"`          // fraction of the context window MCP tool definitions may take before they are deferred behind tool_search [0.10]
	Verbosity              string   `toml:"verbosity"`                // low|medium|high: OpenAI's answer length; "" = unset
	BillReasoningAsOutput  bool     `toml:"bill_reasoning_as_output"` // count reasoning tokens in the output cost [true]
	ShowContextSummary     bool     `toml:"show_context_summary"`     // agent mode, --agent-output full: a line per tool result on stderr [true]
	TextToolCalls          bool     `toml:"text_tool_calls"`          // the model calls tools in text: also parse %%CMD%% assistant command blocks [false]
	Memory                 bool     `toml:"memory"`                   // offer the memory tool (files in the state dir, per workspace and model family) [true]
	SmallModel             string   `toml:"small_model"`              // [PROVIDER/]MODEL of side jobs (titles, compaction summaries, /summary); "" = the provider's cheapest listed model, a local provider's main model
	FallbackModels         []string `toml:"fallback_models"`          // [PROVIDER/]MODEL list a turn continues on after a rate limit, quota, overload or unknown model
	ArchitectModel         string   `toml:"architect_model"`          // architect mode: [PROVIDER/]MODEL that plans each turn with read-only tools; "" = off
	EditorModel            string   `toml:"editor_model"`             // architect mode: [PROVIDER/]MODEL that makes the edits; "" = the main model
	MultiMode              string   `toml:"multi_mode"`               // single|round-robin|sequential|parallel: how the active models answer a turn [single]
	MultiModels            []string `toml:"multi_models"`             // the active models (PROVIDER/MODEL, optionally " effort=E budget=N"); empty = the model alone
	MultiKeep              string   `toml:"multi_keep"`               // first|all: the parallel answers kept where no one chooses (headless, Ralph) [first]

	Permissions Permissions               `toml:"permissions"`
	Tools       Tools                     `toml:"tools"`
	Sandbox     Sandbox                   `toml:"sandbox"`
	Subagents   Subagents                 `toml:"subagents"`
	Agent       Agent                     `toml:"agent"`
	Budget      Budget                    `toml:"budget"`
	Harness     Harness                   `toml:"harness"`
	Providers   map[string]ProviderConfig `toml:"providers"` // by provider name

	// MCPServers are the [mcp_servers.NAME] tables of the global file and of a trusted
	// project's .aidex/config.toml and .mcp.json, by name (later files win).
	MCPServers map[string]MCPServer `toml:"-"`

	// Sources maps each key ("model", "tools.profile", "providers.groq.base_url") to where its
	// value came from: SourceDefault, SourceEnv, SourceFlag or "PATH:LINE".
	Sources map[string]string `toml:"-"`
	// Paths are the resolved directories and files.
	Paths Paths `toml:"-"`
	// ProjectFile is <workspace>/.aidex/config.toml ("" without a workspace), loaded if present.
	ProjectFile string `toml:"-"`
	// ProjectTrusted reports whether the workspace folder is trusted (see Paths.Trust).
	ProjectTrusted bool `toml:"-"`
	// ContentItems are the trusted project's items of content in its config files (settings
	// an untrusted folder may not set, allow rules, MCP servers), approved or not; only the
	// approved ones were applied (LoadOptions.Approved). Empty for an untrusted folder.
	ContentItems []trust.Item `toml:"-"`
}

// Permissions holds the permission rules of [permissions]. Rules accumulate across files,
// environment and flags, in that order.
type Permissions struct {
	Allow []Rule `toml:"allow"` // rules whose calls run without asking
	Deny  []Rule `toml:"deny"`  // rules whose calls are refused (deny beats allow and ask)
	Ask   []Rule `toml:"ask"`   // rules whose calls ask for approval
}

// Rule is one permission rule, "TOOL" or "TOOL(PATTERN)" (see ParseRule), with its Source:
// "PATH:LINE", SourceEnv or SourceFlag.
type Rule struct {
	Text   string
	Source string
}

// Tools holds [tools]: the tool profile and explicit additions and removals by tool name.
type Tools struct {
	Profile  string   `toml:"profile"`  // standard|full|readonly [standard]
	Enabled  []string `toml:"enabled"`  // tools offered besides the profile's
	Disabled []string `toml:"disabled"` // tools of the profile left out
	// EnsureTrailingNewline ends the text the file tools write with a newline [false].
	EnsureTrailingNewline bool `toml:"ensure_trailing_newline"`
}

// Agent holds [agent]: the defaults of headless agent mode (--steps).
type Agent struct {
	// DefaultSteps is --steps when it is not given; more than 1 turns agent mode on [0].
	DefaultSteps int `toml:"default_steps"`
	// WritesPolicy is --agent-writes when it is not given: allow, deny or dry-run; "" keeps
	// the permission mode's rules [""].
	WritesPolicy string `toml:"writes_policy"`
	// Output is --agent-output when it is not given: final, full or none [final].
	Output string `toml:"output"`
	// ShowContextDetails prints each tool result's output on stderr (agent mode, output
	// full), cut at ContextDetailMaxChars characters [false].
	ShowContextDetails bool `toml:"show_context_details"`
	// ContextDetailMaxChars cuts the details of show_context_details [2000].
	ContextDetailMaxChars int `toml:"context_detail_max_chars"`
}

// Budget holds [budget]: the cost governor's limits (0: no limit). At 80% of a limit a
// run reports a budget warning; at 100% it finishes the tool calls of the current step
// and stops (stop reason budget, exit code 5).
type Budget struct {
	// RunUSD is what one run may spend, in US dollars: the default of --max-cost (a Ralph
	// run: all its tasks together) [0].
	RunUSD float64 `toml:"run_usd"`
	// SessionUSD is what one session may spend over all its runs, its subagents' sessions
	// included, in US dollars [0].
	SessionUSD float64 `toml:"session_usd"`
	// DailyUSD is what all sessions together may spend since local midnight, in US
	// dollars, summed from the session store [0].
	DailyUSD float64 `toml:"daily_usd"`
	// MaxTokens is how many tokens one session may use over all its runs, input and
	// output of every model response (cached input included), its subagents' included [0].
	MaxTokens int `toml:"max_tokens"`
}

// Harness holds [harness]: the harness mechanisms `aidex eval` measures on and off (see
// docs/harness.md). Each default is aidex's behaviour before the mechanism, until an eval
// with real models has measured it.
type Harness struct {
	// Verify runs the project's check before a headless run (aidex -p, not Ralph, which
	// verifies tasks itself) that changed files accepts the final answer: verify_command,
	// else a detected test command the policy lets the model run; a failed check goes back
	// to the model once [false].
	Verify bool `toml:"verify"`
	// FailureLoops stops failure loops: the same command line or the same edit failing a
	// third time in a run gets a nudge, a fourth time stops the run (stop reason loop, exit
	// 6). Identical calls three times in a row stop a run whatever this says [false].
	FailureLoops bool `toml:"failure_loops"`
	// PlanAfter asks the model of a headless run once to write a todo_write plan after this
	// many tool calls without one; 0 never asks [0].
	PlanAfter int `toml:"plan_after"`
	// EditFormat is how the model edits files: "replace" (edit_file's old_string/new_string),
	// "hashline" (read_file shows LINE#HASH|text, edit_lines edits by anchors) or "patch"
	// (apply_patch takes Codex's patch format). "" takes [providers.NAME] edit_format, else
	// the catalog's value for the model, else replace [""].
	EditFormat string `toml:"edit_format"`
	// TimeNotes tells the model of a run with a time limit (an eval task's timeout_sec) the
	// limit and the time left, on the newest message of each request, never in the system
	// prompt or earlier messages (the prompt cache keeps them) [false].
	TimeNotes bool `toml:"time_notes"`
	// ParallelReads bounds how many read-only tool calls of one model response run at once;
	// 0 runs them all at once, 1 one at a time (parallel reads off) [0].
	ParallelReads int `toml:"parallel_reads"`
	// OutputHandles saves the whole output of a command result cut to head and tail under the
	// session's state and gives its handle in the result, for the read_output tool [false].
	OutputHandles bool `toml:"output_handles"`
}

// Sandbox holds [sandbox]: the OS sandbox of the commands tools run (run_command,
// run_python, background processes).
type Sandbox struct {
	// Mode is workspace-write (writes only in the workspace and the writable folders),
	// read-only, or off (danger-full-access is an alias) [workspace-write].
	Mode string `toml:"mode"`
	// Writable are more folders commands may write (absolute after loading; ~ expanded).
	Writable []string `toml:"writable"`
	// Network lets sandboxed commands reach the network [false].
	Network bool `toml:"network"`
	// AutoAllow lets auto-edit mode run, unasked, the commands its mode would ask about,
	// as long as the sandbox is on [false].
	AutoAllow bool `toml:"auto_allow"`
	// VerifyUnsandboxed runs Ralph's verify_command outside the sandbox (it runs in the
	// sandbox of the model's own commands otherwise: the scripts it runs may be the
	// model's) [false].
	VerifyUnsandboxed bool `toml:"verify_unsandboxed"`
}

// Subagents holds [subagents]: the limits of the task tool's subagents.
type Subagents struct {
	// MaxParallel is how many task calls of one response run at once [4].
	MaxParallel int `toml:"max_parallel"`
	// MaxRuns is how many subagents a session may start (its children and
	// theirs together); past it the task tool returns an error [50].
	MaxRuns int `toml:"max_runs"`
}

// ProviderConfig is one [providers.NAME] table: an override of a catalog provider or a new
// provider. Empty fields keep the catalog's values.
type ProviderConfig struct {
	Type      string   `toml:"type"`        // wire format, one of the values listed
	BaseURL   string   `toml:"base_url"`    // API root, e.g. http://127.0.0.1:8080/v1
	APIKey    string   `toml:"api_key"`     // secret
	APIKeyEnv string   `toml:"api_key_env"` // name of the environment variable holding the key
	Models    []string `toml:"models"`      // static model list
	// StreamOptions sends `stream_options` (usage in a stream) to an OpenAI-compatible
	// provider; false for back ends that reject it (nil: as the host is known to take it).
	StreamOptions *bool `toml:"stream_options"`
	// VisionModels are models of this provider that accept images (where
	// the catalog does not know it): images are sent to them as image parts.
	VisionModels []string `toml:"vision_models"`
	// EditFormat is the edit format of this provider's models (see Harness.EditFormat;
	// "": the catalog's, else replace).
	EditFormat string `toml:"edit_format"`
	// Prices are the prices of this provider's models from the
	// [providers.NAME.models.MODEL] tables, by model id (see ModelPrice);
	// they replace the catalog's.
	Prices map[string]ModelPrice `toml:"-"`
	// Reasoning are the reasoning settings (effort, budget) of this
	// provider's models from the same tables, by model id.
	Reasoning map[string]ModelReasoning `toml:"-"`
}

// RequestTimeoutDuration returns RequestTimeout as a time.Duration.
func (c *Config) RequestTimeoutDuration() time.Duration {
	return time.Duration(c.RequestTimeout) * time.Second
}

// LocalRequestTimeout is request_timeout's default for a model server on the
// user's machine (catalog.Provider.Local), in seconds: a model on a CPU can
// read a long prompt for minutes before it writes its first byte.
const LocalRequestTimeout = 600

// RequestTimeoutFor returns the request timeout for a provider: the
// configured request_timeout, or, while that is the built-in default and
// the provider is local, [LocalRequestTimeout] seconds.
func (c *Config) RequestTimeoutFor(local bool) time.Duration {
	if local && c.Sources["request_timeout"] == SourceDefault {
		return LocalRequestTimeout * time.Second
	}
	return c.RequestTimeoutDuration()
}

// StreamIdleTimeoutDuration returns StreamIdleTimeout as a time.Duration.
func (c *Config) StreamIdleTimeoutDuration() time.Duration {
	return time.Duration(c.StreamIdleTimeout) * time.Second
}

// DefaultMaxInputBytes is max_input_bytes when unset: 1 MiB.
const DefaultMaxInputBytes = 1 << 20

// Defaults returns the built-in configuration, every key sourced SourceDefault.
func Defaults() *Config {
	c := &Config{
		Stream:                 true,
		RequestTimeout:         300,
		StreamIdleTimeout:      90,
		ApprovalTimeout:        300,
		MaxRetries:             3,
		MaxToolTurns:           25,
		SafeMode:               true,
		CompactionThreshold:    0.85,
		MaxBackgroundProcesses: 5,
		MaxInputBytes:          DefaultMaxInputBytes,
		PermissionMode:         "ask",
		Notify:                 "auto",
		Memory:                 true,
		MultiMode:              "single",
		MultiKeep:              "first",
		Confine:                true,
		BillReasoningAsOutput:  true,
		ShowContextSummary:     true,
		Agent:                  Agent{Output: "final", ContextDetailMaxChars: 2000},
		Tools:                  Tools{Profile: "standard"},
		Sandbox:                Sandbox{Mode: "workspace-write"},
		Subagents:              Subagents{MaxParallel: 4, MaxRuns: 50},
		Providers:              map[string]ProviderConfig{},
		MCPServers:             map[string]MCPServer{},
		MCPToolBudget:          0.10,
		Sources:                map[string]string{},
	}
	for _, s := range specs() {
		if !s.provider {
			c.Sources[s.name] = SourceDefault
		}
	}
	return c
}

// field returns the settable struct field of key s (for provider keys, of a copy of the
// provider's table; store it back with putProvider).
func (c *Config) field(s keySpec, provider string) (reflect.Value, *ProviderConfig) {
	if !s.provider {
		return reflect.ValueOf(c).Elem().FieldByIndex(s.index), nil
	}
	pc := c.Providers[provider]
	return reflect.ValueOf(&pc).Elem().FieldByIndex(s.index), &pc
}

// assign stores the typed value v (string, bool, int, float64 or []string) of key s.
// Rules are appended with their source; everything else replaces the previous value.
func (c *Config) assign(s keySpec, provider string, v any, source string) {
	f, pc := c.field(s, provider)
	switch s.kind {
	case kindRules:
		for _, text := range v.([]string) {
			f.Set(reflect.Append(f, reflect.ValueOf(Rule{Text: text, Source: source})))
		}
	case kindList:
		f.Set(reflect.ValueOf(slices.Clone(v.([]string))))
	case kindInt:
		f.SetInt(int64(v.(int)))
	case kindFloat:
		x := v.(float64)
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.ValueOf(&x))
		} else {
			f.SetFloat(x)
		}
	case kindBool:
		b := v.(bool)
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.ValueOf(&b))
		} else {
			f.SetBool(b)
		}
	default:
		f.SetString(v.(string))
	}
	if pc != nil {
		c.Providers[provider] = *pc
	}
	c.Sources[dottedKey(s, provider)] = source
}

// value returns the current value of key s as string, bool, int, float64 (nil for an unset
// optional number), []string or []Rule.
func (c *Config) value(s keySpec, provider string) any {
	f, _ := c.field(s, provider)
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return nil
		}
		return f.Elem().Interface()
	}
	return f.Interface()
}

// dottedKey is the display name of key s: its name, with the provider name in place of "*"
// (quoted when it is not a bare TOML key).
func dottedKey(s keySpec, provider string) string {
	if !s.provider {
		return s.name
	}
	return "providers." + quoteKey(provider) + "." + s.name[len("providers.*."):]
}
