// Package commands is what aidex's interactive front ends (the terminal UI
// and the plain line mode) share: a Controller that owns the session, the
// engine and the runtime (switching model, provider and permission mode
// rebuilds the engine), the slash-command table with completion and
// "did you mean" suggestions, prompt building (@file attachments, !shell
// output), history, and onboarding helpers. Nothing here draws: commands
// write plain text to an io.Writer, and front-end-specific actions (pickers,
// $EDITOR, clipboard) are returned as an [Outcome] for the front end to do.
package commands

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/session"
)

// Config is what [New] needs. Options are the setup options the runtime
// was loaded with (flags are kept and updated as the user switches model,
// provider or mode); Runtime is the loaded runtime; Store the open session
// store; Session the session to work in; Approver asks the user; MaxTurns
// and AppendSystem come from the command line (0 and "" for defaults).
type Config struct {
	Options      app.Options
	Runtime      *app.Runtime
	Store        *session.Store
	Session      *agent.Session
	Approver     agent.Approver
	MaxTurns     int
	AppendSystem string
}

// Controller drives one interactive session: runs prompts on the engine,
// and changes model, provider, permission mode and session on request. It
// is used from one goroutine at a time (the front end's), except that Run
// blocks while the engine works.
type Controller struct {
	// mu guards rt, sess, eng, closeEng, pending and lastAnswer against a
	// front end reading them (status line) while a command swaps them.
	mu       sync.Mutex
	opts     app.Options
	rt       *app.Runtime
	store    *session.Store
	sess     *agent.Session
	approver agent.Approver
	maxTurns int
	appendSy string
	eng      *agent.Engine
	closeEng func()
	// pending are parts (shell output) added to the conversation that go
	// to the model with the next prompt.
	pending []llm.Part
	// lastAnswer is the final text of the last run, for /copy.
	lastAnswer string
	// ralph is the workspace's Ralph service (made on first use).
	ralph *ralph.Service
}

// New builds the engine for cfg.Session and returns the controller. Errors
// come from building the engine (bad permission rules, a provider that
// cannot be reached is not checked here).
func New(ctx context.Context, cfg Config) (*Controller, error) {
	opts := cfg.Options
	opts.Flags = maps.Clone(opts.Flags)
	if opts.Flags == nil {
		opts.Flags = map[string]string{}
	}
	c := &Controller{opts: opts, rt: cfg.Runtime, store: cfg.Store, sess: cfg.Session,
		approver: cfg.Approver, maxTurns: cfg.MaxTurns, appendSy: cfg.AppendSystem}
	eng, closeEng, err := c.engine(ctx, c.rt, c.sess)
	if err != nil {
		return nil, err
	}
	c.eng, c.closeEng = eng, closeEng
	return c, nil
}

// engine builds an engine for rt and sess without changing c.
func (c *Controller) engine(ctx context.Context, rt *app.Runtime, sess *agent.Session) (*agent.Engine, func(), error) {
	return rt.Engine(ctx, app.EngineOptions{Store: c.store, SessionID: sess.ID,
		Approver: c.approver, MaxTurns: c.maxTurns, AppendSystem: c.appendSy})
}

// swap installs a new runtime, session and engine, closing the old
// engine's tools.
func (c *Controller) swap(rt *app.Runtime, sess *agent.Session, eng *agent.Engine, closeEng func()) {
	c.mu.Lock()
	old := c.closeEng
	c.rt, c.sess, c.eng, c.closeEng = rt, sess, eng, closeEng
	c.mu.Unlock()
	if old != nil {
		old()
	}
}

// rebuild builds an engine for rt and sess and swaps it in.
func (c *Controller) rebuild(ctx context.Context, rt *app.Runtime, sess *agent.Session) error {
	eng, closeEng, err := c.engine(ctx, rt, sess)
	if err != nil {
		return err
	}
	c.swap(rt, sess, eng, closeEng)
	return nil
}

// Close stops what the engine's tools started (background processes).
func (c *Controller) Close() {
	c.mu.Lock()
	closeEng := c.closeEng
	c.closeEng = nil
	c.mu.Unlock()
	if closeEng != nil {
		closeEng()
	}
}

// Runtime returns the current runtime (provider, model, config). Treat it
// as read-only.
func (c *Controller) Runtime() *app.Runtime {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rt
}

// Session returns the current session.
func (c *Controller) Session() *agent.Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// Store returns the session store.
func (c *Controller) Store() *session.Store { return c.store }

// Engine returns the current engine.
func (c *Controller) Engine() *agent.Engine {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eng
}

// Mode returns the permission mode ("ask", "auto-edit", "plan", "yolo").
func (c *Controller) Mode() string {
	mode := c.Runtime().Config.PermissionMode
	m, err := permission.ParseMode(mode)
	if err != nil {
		return mode
	}
	return string(m)
}

// LastAnswer returns the final answer of the last run ("" before any).
func (c *Controller) LastAnswer() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastAnswer
}

// AddContext queues text (a shell command's output) that goes to the model
// with the next prompt.
func (c *Controller) AddContext(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, llm.Part{Type: llm.PartText, Text: text})
}

// PendingContext reports how many queued context blocks wait for the next
// prompt.
func (c *Controller) PendingContext() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// Run sends parts (with any queued context first) to the model and blocks
// until the run ends; events go to emit. A cancelled run returns
// context.Canceled after the engine kept the partial answer.
func (c *Controller) Run(ctx context.Context, parts []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error) {
	return c.RunWith(ctx, parts, nil, emit)
}

// RunWith is Run with extra engine-owned tools offered for this run only
// (/implement adds Ralph's complete_task, list_tasks and show_task). The
// session's engine is not changed: the run uses a copy of it whose
// Config.EngineTools has extra appended. The copy shares the tools,
// policy, approver and store, but not the engine's one-run-per-session
// guard, so the caller must not start another run in this session until
// it returns (the front ends run one prompt at a time).
func (c *Controller) RunWith(ctx context.Context, parts []llm.Part, extra []agent.EngineTool, emit func(agent.Event)) (*agent.DoneInfo, error) {
	c.mu.Lock()
	input := append(append([]llm.Part(nil), c.pending...), parts...)
	c.pending = nil
	eng, sess := c.eng, c.sess
	c.mu.Unlock()
	if len(extra) > 0 {
		eng = withExtraTools(eng, extra)
	}
	done, err := eng.Run(ctx, sess, input, emit)
	if done != nil && done.Result != "" {
		c.mu.Lock()
		c.lastAnswer = done.Result
		c.mu.Unlock()
	}
	return done, err
}

// withExtraTools returns a copy of e whose Config.EngineTools has extra
// appended (e itself is unchanged).
func withExtraTools(e *agent.Engine, extra []agent.EngineTool) *agent.Engine {
	cfg := e.Config
	cfg.EngineTools = append(slices.Clone(cfg.EngineTools), extra...)
	return &agent.Engine{Provider: e.Provider, Tools: e.Tools, Policy: e.Policy, Approver: e.Approver,
		Store: e.Store, Config: cfg, Now: e.Now}
}

// SetMode switches the permission mode (plan, ask, auto-edit, yolo) and
// rebuilds the engine. Do not call it while a run is going.
func (c *Controller) SetMode(ctx context.Context, mode string) error {
	m, err := permission.ParseMode(mode)
	if err != nil {
		return err
	}
	rt := *c.Runtime()
	cfg := *rt.Config
	cfg.PermissionMode = string(m)
	rt.Config = &cfg
	if err := c.rebuild(ctx, &rt, c.Session()); err != nil {
		return err
	}
	c.opts.Flags["permission_mode"] = string(m)
	return nil
}

// NextMode returns the mode after cur in the Shift+Tab cycle
// ask → auto-edit → plan → yolo → ask.
func NextMode(cur string) string {
	cycle := []string{"ask", "auto-edit", "plan", "yolo"}
	for i, m := range cycle {
		if m == cur {
			return cycle[(i+1)%len(cycle)]
		}
	}
	return "ask"
}

// SwitchModel switches to spec: "MODEL" (same provider) or
// "PROVIDER/MODEL". The runtime is reloaded, the engine rebuilt and the
// session's model recorded. Errors name what is wrong (unknown provider,
// missing key).
func (c *Controller) SwitchModel(ctx context.Context, spec string) error {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return errors.New("name a model: /model MODEL or /model PROVIDER/MODEL")
	}
	provider, model := c.rt.Provider.Name, spec
	if p, m, ok := strings.Cut(spec, "/"); ok {
		if _, known := c.rt.Catalog.Provider(p); known && m != "" {
			provider, model = p, m
		}
	}
	return c.switchTo(ctx, provider, model)
}

// SwitchProvider switches to provider name with its default model (or
// model when not "").
func (c *Controller) SwitchProvider(ctx context.Context, name, model string) error {
	p, ok := c.rt.Catalog.Provider(name)
	if !ok {
		return fmt.Errorf("unknown provider %q: /provider lists them", name)
	}
	if model == "" {
		model = p.DefaultModel
	}
	return c.switchTo(ctx, name, model)
}

func (c *Controller) switchTo(ctx context.Context, provider, model string) error {
	opts := c.opts
	opts.Flags = maps.Clone(c.opts.Flags)
	opts.Flags["provider"], opts.Flags["model"] = provider, model
	if model == "" {
		delete(opts.Flags, "model")
	}
	rt, err := app.Load(ctx, opts)
	if err != nil {
		return err
	}
	rt.Config.PermissionMode = c.rt.Config.PermissionMode
	if err := c.rebuild(ctx, rt, c.sess); err != nil {
		return err
	}
	c.opts = opts
	return c.store.SetModel(ctx, c.sess.ID, rt.Provider.Name, rt.Model)
}

// Reload re-reads the configuration (after /config or a stored key) and
// rebuilds the engine, keeping provider, model and mode.
func (c *Controller) Reload(ctx context.Context) error {
	return c.switchTo(ctx, c.rt.Provider.Name, c.rt.Model)
}

// NewSession starts a new session in the workspace with the current model.
func (c *Controller) NewSession(ctx context.Context) error {
	s, err := c.store.Create(ctx, c.rt.Workspace, c.rt.Provider.Name, c.rt.Model)
	if err != nil {
		return err
	}
	return c.use(ctx, s)
}

// Resume loads the session id (a full id or unique prefix).
func (c *Controller) Resume(ctx context.Context, id string) error {
	s, err := c.store.Load(ctx, id)
	if err != nil {
		return err
	}
	return c.use(ctx, s)
}

func (c *Controller) use(ctx context.Context, s *agent.Session) error {
	if err := c.rebuild(ctx, c.rt, s); err != nil {
		return err
	}
	c.mu.Lock()
	c.pending, c.lastAnswer = nil, ""
	c.mu.Unlock()
	return nil
}

// Lister returns the live model lister with the disk cache.
func (c *Controller) Lister() *catalog.Lister {
	return &catalog.Lister{CacheDir: c.rt.Config.Paths.CacheDir + "/models", Env: c.rt.Env}
}

// Models returns the live model list of provider ("" for the current one),
// from the cache when fresh. Errors: unknown provider, ctx done.
func (c *Controller) Models(ctx context.Context, provider string, refresh bool) (catalog.ModelList, error) {
	if provider == "" {
		provider = c.rt.Provider.Name
	}
	p, ok := c.rt.Catalog.Provider(provider)
	if !ok {
		return catalog.ModelList{}, fmt.Errorf("unknown provider %q", provider)
	}
	return c.Lister().List(ctx, p, catalog.ListOptions{Refresh: refresh})
}

// NeedsKey reports whether provider needs an API key that is not set.
func (c *Controller) NeedsKey(provider string) bool {
	return NeedsKey(c.rt, provider)
}

// NeedsKey reports whether rt's catalog provider needs an API key that is
// not set in config or the environment.
func NeedsKey(rt *app.Runtime, provider string) bool {
	p, ok := rt.Catalog.Provider(provider)
	return ok && p.RequiresKey && p.APIKey(rt.Env) == ""
}

// StoreKey writes providers.NAME.api_key = key into the global config file
// (mode 0600). Errors come from config.Set.
func StoreKey(rt *app.Runtime, provider, key string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return errors.New("the key is empty")
	}
	return config.Set(rt.Config.Paths.ConfigFile, "providers."+provider+".api_key", key)
}

// IsMissingKey reports whether err from app.Load means the chosen
// provider has no API key (first run: onboarding picks a provider).
func IsMissingKey(err error) bool {
	return errors.Is(err, app.ErrMissingKey)
}
