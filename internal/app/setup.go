package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm/wire"
	"github.com/zelvior/aidex/internal/sandbox"
	"github.com/zelvior/aidex/internal/tools"
)

// ErrMissingKey is wrapped by [Load]'s error when the chosen provider needs
// an API key and none is configured (front ends then offer onboarding).
var ErrMissingKey = errors.New("needs an API key")

// ErrNoProvider is wrapped by [Load]'s error on a first run with no usable
// provider: no provider configured, no key found, no local Ollama, and
// the key-free provider cannot be reached (offline). The error's text
// gives the three ways to get going (front ends then offer onboarding).
var ErrNoProvider = errors.New("no model provider can be reached")

// Options are the inputs of [Load]. Flags are config keys set on the
// command line (highest precedence); Env looks up environment variables;
// Workspace is the directory given by --workspace ("" for the current
// directory, or the config's workspace key). Probe checks whether a local
// server answers at a base URL (nil: a 300 ms HTTP check).
type Options struct {
	Workspace string
	Flags     map[string]string
	Getenv    func(string) string
	Probe     func(ctx context.Context, baseURL string) bool
	// Reach checks whether the key-free provider's host can be reached
	// when it is the automatic choice (nil: a TCP connection within
	// 1.5 s).
	Reach func(ctx context.Context, baseURL string) bool
	// SandboxProbe finds what the OS sandbox can do here (nil:
	// sandbox.Probe); tests pass a machine that cannot sandbox. [Start]
	// makes it probe once per service.
	SandboxProbe func() sandbox.Caps
	// Version is aidex's version ("v1.2.0", "dev 1a2b3c4"): the MCP
	// client's clientInfo.version.
	Version string
	// HookLog, when set, gets one line per hook command run (event,
	// command, exit code, milliseconds): --verbose.
	HookLog io.Writer
	// approvedNow are the project content items approved for this
	// service only (see reviewContent); [Start] sets it.
	approvedNow *sessionApprovals
}

// Runtime is the loaded configuration with the chosen provider and model.
//
// Notice is a one-line message to show the user when the provider was
// chosen automatically ("no API key found: using pollinations ..."), else "".
// Warnings are non-fatal configuration problems to print.
type Runtime struct {
	Config    *config.Config
	Catalog   *catalog.Catalog
	Provider  catalog.Provider
	Model     string
	Workspace string
	Notice    string
	Warnings  []config.Warning
	Getenv    func(string) string
	// Version is aidex's version (Options.Version).
	Version string
	// envPolicy is the credential scrubbing of the processes this
	// runtime's tools and commands start (commandEnvPolicy).
	envPolicy tools.EnvPolicy
	// sbx is the OS sandbox of the tools' commands, built on first use;
	// probe finds what the machine can do (Options.SandboxProbe).
	sbx   *sandboxSlot
	probe func() sandbox.Caps
	// hooks runs the user's hook commands (see loadHooks).
	hooks *hooks.Runner
	// content is the trusted project's content items and their approvals
	// (content.go).
	content *contentState
	// plugins are the enabled plugins (plugins.go).
	plugins []loadedPlugin
	// gitPrefetch is the git summary started by Start with PrefetchGit
	// (nil: none); copies of the runtime share it, the first prompt takes it.
	gitPrefetch *gitPrefetch
}

// Load reads the configuration and the catalog and resolves the provider
// and model. Errors name the file and key at fault (config), or the
// provider and what to set (catalog).
func Load(ctx context.Context, o Options) (*Runtime, error) {
	rt, err := LoadBase(o)
	if err != nil {
		return nil, err
	}
	if err := rt.modelRoom().choose(ctx, o); err != nil {
		return nil, err
	}
	return rt, nil
}

// LoadBase reads the configuration and the catalog (with the config's
// provider overrides) without choosing a provider: for commands that list
// or inspect providers and models.
func LoadBase(o Options) (*Runtime, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	ws, err := workspaceDir(o.Workspace)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(wire.CatalogFormats())
	if err != nil {
		return nil, fmt.Errorf("provider catalog: %w", err)
	}
	var stateDir string
	if p, err := config.ResolvePaths(o.Getenv); err == nil {
		stateDir = p.StateDir
	}
	store, approvals, storeErr := contentApprovals(stateDir, ws, o.approvedNow)
	cfg, warnings, err := config.Load(config.LoadOptions{Getenv: o.Getenv, Workspace: ws, Flags: o.Flags, KnownProviders: cat.Names(), WireFormats: wire.ConfigFormats(),
		Approved: approvals.Approved})
	if err != nil {
		return nil, err
	}
	if storeErr != nil {
		warnings = append(warnings, config.Warning{Message: fmt.Sprintf("%v; this project's content counts as not approved", storeErr)})
	}
	if o.Workspace == "" && cfg.Workspace != "" {
		if ws, err = workspaceDir(cfg.Workspace); err != nil {
			return nil, err
		}
	}
	cat, err = cat.WithOverrides(overrides(cfg))
	if err != nil {
		return nil, fmt.Errorf("config providers: %w", err)
	}
	warnings = append(warnings, customKeysWarning(cfg)...)
	rt := &Runtime{Config: cfg, Catalog: cat, Workspace: ws, Warnings: warnings, Getenv: o.Getenv, Version: o.Version,
		envPolicy: commandEnvPolicy(cfg, cat), sbx: &sandboxSlot{}, probe: o.SandboxProbe}
	approvals = rt.Plugins().loadPlugins(store, approvals)
	rt.content = &contentState{store: store, approvals: approvals} // what pluginMCPServers judges by
	pluginMCP := rt.Plugins().pluginMCPServers()
	if err := rt.engineRoom().loadHooks(o); err != nil {
		return nil, err
	}
	rt.ProjectContent().loadClaudePermissions(approvals.Approved)
	rt.ProjectContent().loadContent(store, approvals, pluginMCP)
	rt.ProjectContent().warnContentProblems()
	return rt, nil
}

func workspaceDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("workspace %q is not a directory", dir)
	}
	return abs, nil
}

// customKeysWarning is the one-line deprecation warning of the old
// custom_base_url / custom_chat_model keys (still read, as provider
// "custom"), naming where they are set; none when neither is.
func customKeysWarning(cfg *config.Config) []config.Warning {
	var where []string
	for _, k := range []string{"custom_base_url", "custom_chat_model"} {
		if src := cfg.Sources[k]; src != "" && src != config.SourceDefault {
			where = append(where, k+" ("+src+")")
		}
	}
	if len(where) == 0 {
		return nil
	}
	return []config.Warning{{Message: strings.Join(where, " and ") +
		": deprecated, still read as provider custom; define the server as [providers.NAME] instead (aidex providers add NAME --url URL --model M)"}}
}

// overrides turns [providers.NAME] tables and the shortcut keys
// (ollama_base_url, custom_base_url, custom_chat_model) into catalog
// overrides.
func overrides(cfg *config.Config) map[string]catalog.Override {
	out := map[string]catalog.Override{}
	for name, p := range cfg.Providers {
		out[name] = catalog.Override{Type: p.Type, BaseURL: p.BaseURL, APIKey: p.APIKey, APIKeyEnv: p.APIKeyEnv, Models: p.Models}
	}
	if cfg.OllamaBaseURL != "" {
		o := out["ollama"]
		if o.BaseURL == "" {
			o.BaseURL = cfg.OllamaBaseURL
		}
		out["ollama"] = o
	}
	if cfg.CustomBaseURL != "" || cfg.CustomChatModel != "" {
		o := out["custom"]
		if o.BaseURL == "" {
			o.BaseURL = cfg.CustomBaseURL
		}
		if len(o.Models) == 0 && cfg.CustomChatModel != "" {
			o.Models = []string{cfg.CustomChatModel}
		}
		out["custom"] = o
	}
	return out
}

// choose resolves the provider and model: the configured provider (a
// "PROVIDER/MODEL" model names both when no provider is set explicitly),
// else the catalog's zero-config choice.
func (rt modelRoom) choose(ctx context.Context, o Options) error {
	name, model := rt.Config.Provider, rt.Config.Model
	unknownPrefix := ""
	if prefix, rest, ok := strings.Cut(model, "/"); ok && rt.namesProvider(prefix, name) {
		if _, known := rt.Catalog.Provider(prefix); known && rest != "" {
			name, model = prefix, rest
		} else {
			unknownPrefix = prefix
		}
	}
	if name == "" {
		probe := o.Probe
		if probe == nil {
			probe = httpProbe
		}
		choice := rt.Catalog.ChooseDefault(ctx, rt.Getenv, probe)
		name, rt.Notice = choice.Provider, choice.Reason
		if choice.Keyless {
			if err := rt.checkReach(ctx, o, choice.Provider); err != nil {
				return err
			}
		}
		if model == "" {
			model = choice.Model
		}
	}
	p, ok := rt.Catalog.Provider(name)
	if !ok {
		return fmt.Errorf("unknown provider %q: run `aidex providers` to list them, or define it under [providers.%s] in config", name, name)
	}
	model = rt.modelFor(ctx, p, model, name != rt.Config.Provider)
	if unknownPrefix != "" && !p.OpenModels() {
		if _, known := p.Model(model); !known {
			return rt.unknownProvider(unknownPrefix, model)
		}
	}
	p.DefaultModel = model // a configured model satisfies Validate
	if err := p.Validate(); err != nil {
		return err
	}
	if p.RequiresKey && p.APIKey(rt.Getenv) == "" {
		return fmt.Errorf("provider %s %w: set %s (get one at %s) or run `aidex config set providers.%s.api_key KEY`", p.Name, ErrMissingKey, p.KeyHint(), orDash(p.SignupURL), p.Name)
	}
	if n := p.NoKeyNotice(rt.Getenv); n != "" {
		rt.Notice = joinNotice(rt.Notice, n)
	}
	rt.Provider, rt.Model = p, model
	return nil
}

// joinNotice joins two notices into one line ("" parts dropped).
func joinNotice(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// unknownProvider is the error for a PROVIDER/MODEL model whose provider
// is unknown (and that the chosen provider does not know as a whole id):
// it names the closest provider and the known ones.
func (rt modelRoom) unknownProvider(prefix, model string) error {
	names := rt.Catalog.Names()
	msg := fmt.Sprintf("unknown provider %q in model %q", prefix, model)
	if c := catalog.Closest(prefix, names, 1); c != nil {
		msg += fmt.Sprintf(" (did you mean %q?)", c[0])
	}
	return fmt.Errorf("%s; known providers: %s (a model id that itself contains a slash needs its provider named with --provider)",
		msg, strings.Join(names, ", "))
}

// namesProvider reports whether a PROVIDER/MODEL model's prefix picks the
// provider: when the model was set with higher precedence than the
// provider (so an OpenRouter id such as "anthropic/claude-sonnet-4.5"
// under provider = "openrouter" stays whole), or repeats it ("anthropic"
// with "anthropic/claude-...") unless --provider was given.
//
// sourceRank orders where a config key was set, by precedence: built-in
// default, global config file, project config file, environment, flag.
func (rt modelRoom) namesProvider(prefix, provider string) bool {
	pr := rt.sourceRank("provider")
	return rt.sourceRank("model") > pr || (prefix == provider && pr < 4)
}

func (rt modelRoom) sourceRank(key string) int {
	switch src := rt.Config.Sources[key]; {
	case src == "" || src == config.SourceDefault:
		return 0
	case src == config.SourceFlag:
		return 4
	case src == config.SourceEnv:
		return 3
	case strings.HasPrefix(src, config.ProjectConfigFile(rt.Workspace)+":"):
		return 2
	}
	return 1
}

func orDash(s string) string {
	if s == "" {
		return "the provider's site"
	}
	return s
}

// checkReach returns an error wrapping ErrNoProvider, with the ways to
// get going, when the key-free provider name cannot be reached.
func (rt modelRoom) checkReach(ctx context.Context, o Options, name string) error {
	p, ok := rt.Catalog.Provider(name)
	if !ok {
		return nil
	}
	reach := o.Reach
	if reach == nil {
		reach = tcpReach
	}
	if reach(ctx, p.BaseURL) {
		return nil
	}
	ollama := "localhost:11434"
	if op, ok := rt.Catalog.Provider("ollama"); ok {
		if u, err := url.Parse(op.BaseURL); err == nil && u.Host != "" {
			ollama = u.Host
		}
	}
	keys := "OPENAI_API_KEY"
	if vars := rt.Catalog.KeyVars(3); len(vars) > 0 {
		keys = strings.Join(vars, ", ")
	}
	return fmt.Errorf("%w: no API key is set, no Ollama answers on %s, and %s (key-free) cannot be reached (offline?). Get going with one of:\n"+
		"  - a local server: start Ollama, or `aidex providers add local --url http://127.0.0.1:8080/v1` (llama.cpp, LM Studio, vLLM)\n"+
		"  - once online, the key-free %s: `aidex --provider %s` (no signup)\n"+
		"  - an API key: set one of %s (`aidex providers` says where to get one)",
		ErrNoProvider, ollama, p.Name, p.Name, p.Name, keys)
}

// tcpReach reports whether a TCP connection to baseURL's host opens
// within 1.5 s (DNS included): offline, it fails at once.
func tcpReach(ctx context.Context, baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// httpProbe reports whether something answers HTTP at baseURL within 300 ms.
func httpProbe(ctx context.Context, baseURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/api/tags", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode < 500
}

// ModelInfo returns what the engine needs to know of the chosen model:
// context window and prices from the catalog where known.
func (rt *Runtime) ModelInfo() agent.ModelInfo {
	mi := agent.ModelInfo{Provider: rt.Provider.Name, Name: rt.Model}
	if m, ok := rt.Catalog.Model(rt.Provider.Name, rt.Model); ok {
		mi.ContextWindow = m.ContextWindow
		if m.Price != nil {
			mi.InputPrice, mi.OutputPrice = m.Price.Input, m.Price.Output
			mi.CacheReadPrice, mi.CacheWritePrice = m.Price.CacheRead, m.Price.CacheWrite
		}
	}
	rt.engineRoom().configPrice(&mi)
	if w := rt.Config.ContextWindow; w > 0 {
		mi.ContextWindow = w
	}
	mi.UnbilledReasoning = !rt.Config.BillReasoningAsOutput
	return mi
}
