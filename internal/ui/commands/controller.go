// Package commands is what aidex's interactive front ends (the terminal UI
// and the plain line mode) share: a Controller that drives one app.Session
// (switching model, provider and permission mode goes through the
// application service, internal/app), the slash-command table with completion and
// "did you mean" suggestions, prompt building (@file attachments, !shell
// output), history, and onboarding helpers. Nothing here draws: commands
// write plain text to an io.Writer, and front-end-specific actions (pickers,
// $EDITOR, clipboard) are returned as an [Outcome] for the front end to do.
package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
	"github.com/zelvior/aidex/internal/ui/slash"
)

// Config is what [New] needs: the application service (runtime and
// session store) of the front end, the stored session to work in, the
// Approver that asks the user, the Asker that answers ask_user (nil: the
// tool is not offered), and MaxTurns and AppendSystem from the
// command line (0 and "" for defaults).
type Config struct {
	Service      *app.Service
	Session      *agent.Conversation
	Approver     agent.Approver
	Asker        agent.Asker
	MaxTurns     int
	AppendSystem string
	// Chooser picks the answers to keep of a parallel turn (nil: the
	// first successful one, or every one with multi_keep = "all").
	Chooser multi.Chooser
	// ChatAliases turns on iptic-memex's user commands typed without a
	// slash (`aidex chat`; see [ChatAlias]).
	ChatAliases bool
}

// Controller drives one interactive session: runs prompts, and changes
// model, provider, permission mode and session on request, through the
// application service. It is used from one goroutine at a time (the front
// end's), except that Run blocks while the engine works.
type Controller struct {
	svc      *app.Service
	live     *app.Session
	maxTurns int
	// front is the front end the controller serves (/help lists its
	// commands); 0 is the terminal's.
	front slash.Front

	// tasks is the Ralph side (task list, loop, /implement).
	tasks *Tasks
	// chatAliases: iptic-memex's user commands are on (`aidex chat`).
	chatAliases bool
}

// New builds the live session for cfg.Session and returns the
// controller. Errors come from building the engine (bad permission rules;
// a provider that cannot be reached is not checked here).
func New(ctx context.Context, cfg Config) (*Controller, error) {
	live, err := cfg.Service.Session(ctx, cfg.Session, app.SessionOptions{Approver: cfg.Approver, Asker: cfg.Asker,
		MaxTurns: cfg.MaxTurns, AppendSystem: cfg.AppendSystem, Chooser: cfg.Chooser})
	if err != nil {
		return nil, err
	}
	return withTasks(&Controller{svc: cfg.Service, live: live, maxTurns: cfg.MaxTurns, chatAliases: cfg.ChatAliases}), nil
}

// Attach returns a controller over live session live of svc for front
// end front (slash.ACP, slash.Headless: the front ends that run the
// table's commands on a session they opened themselves). The front end
// keeps owning live: it closes it, not the controller.
func Attach(svc *app.Service, live *app.Session, front slash.Front) *Controller {
	return withTasks(&Controller{svc: svc, live: live, front: front})
}

// withTasks gives c its Ralph side and returns c.
func withTasks(c *Controller) *Controller {
	c.tasks = &Tasks{c: c}
	return c
}

// Front is the front end the controller serves: slash.Terminal unless
// Attach named another (or c is nil).
func (c *Controller) Front() slash.Front {
	if c == nil || c.front == 0 {
		return slash.Terminal
	}
	return c.front
}

// alias returns the slash command line stands for when it is one of
// iptic-memex's user commands and the session is `aidex chat`'s (see
// [ChatAlias]); otherwise ok is false and line is a prompt. Front ends
// get it through [Controller.Read].
func (c *Controller) alias(line string) (slash string, ok bool) {
	if c == nil || !c.chatAliases {
		return "", false
	}
	return ChatAlias(line)
}

// Close stops what the engine's tools started (background processes).
func (c *Controller) Close() { c.live.Close() }

// Runtime returns the current runtime (provider, model, config). Treat it
// as read-only.
func (c *Controller) Runtime() *app.Runtime { return c.svc.Runtime() }

// Session returns the current stored session.
func (c *Controller) Session() *agent.Conversation { return c.live.Info() }

// ID returns the current session's id.
func (c *Controller) ID() string { return c.live.ID() }

// Recent returns the conversation's last messages and how many it holds
// in all, without waiting for a resumed conversation to load (see
// app.Service.PickRecent). The slice is shared: do not change it.
func (c *Controller) Recent() ([]llm.Message, int) { return c.live.Recent() }

// Store returns the session store.
func (c *Controller) Store() *session.Store { return c.svc.Store() }

// Engine returns the current engine.
func (c *Controller) Engine() *agent.Engine { return c.live.Engine() }

// Mode returns the permission mode ("ask", "auto-edit", "plan", "yolo").
func (c *Controller) Mode() string { return c.svc.Mode() }

// LastAnswer returns the final answer of the last run ("" before any).
func (c *Controller) LastAnswer() string { return c.live.LastAnswer() }

// AddContext queues text (a shell command's output) that goes to the model
// with the next prompt.
func (c *Controller) AddContext(text string) { c.live.AddContext(text) }

// PendingContext reports how many queued context blocks wait for the next
// prompt.
func (c *Controller) PendingContext() int { return c.live.PendingContext() }

// Run sends parts (with any queued context first) to the model and blocks
// until the run ends; events go to emit. A cancelled run returns
// context.Canceled after the engine kept the partial answer.
func (c *Controller) Run(ctx context.Context, parts []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error) {
	return c.live.Run(ctx, parts, emit)
}

// RunWith is Run with extra engine-owned tools offered for this run only
// (/implement adds Ralph's complete_task, list_tasks and show_task); see
// app.Session.RunWith.
func (c *Controller) RunWith(ctx context.Context, parts []llm.Part, extra []agent.EngineTool, emit func(agent.Event)) (*agent.DoneInfo, error) {
	return c.live.RunWith(ctx, parts, extra, emit)
}

// SetMode switches the permission mode (plan, ask, auto-edit, yolo) and
// rebuilds the engine. Do not call it while a run is going.
func (c *Controller) SetMode(ctx context.Context, mode string) error {
	prev := c.svc.Mode()
	if err := c.svc.SetMode(mode); err != nil {
		return err
	}
	if err := c.live.Refresh(ctx); err != nil {
		_ = c.svc.SetMode(prev) // the engine still runs the old mode
		return err
	}
	return nil
}

// SetSandbox switches the OS sandbox mode of the commands tools run for
// this session's next runs (workspace-write, read-only, off). Errors: an
// unknown mode, a mode this machine cannot provide (nothing changes).
func (c *Controller) SetSandbox(ctx context.Context, mode string) error {
	prev := c.svc.Runtime().Config.Sandbox.Mode
	if _, err := c.svc.SetSandbox(ctx, mode); err != nil {
		return err
	}
	if err := c.live.Refresh(ctx); err != nil {
		_, _ = c.svc.SetSandbox(ctx, prev) // the engine still runs the old sandbox
		return err
	}
	return nil
}

// Sandbox describes the OS sandbox the session's commands run in.
func (c *Controller) Sandbox() app.SandboxInfo { return c.svc.Runtime().SandboxInfo() }

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
	if strings.TrimSpace(spec) == "" {
		return errors.New("name a model: /model MODEL or /model PROVIDER/MODEL")
	}
	if _, err := c.svc.SwitchModel(ctx, spec); err != nil {
		return err
	}
	return c.live.Refresh(ctx)
}

// SwitchProvider switches to provider name with its default model (or
// model when not "").
func (c *Controller) SwitchProvider(ctx context.Context, name, model string) error {
	if _, ok := c.Runtime().Catalog.Provider(name); !ok {
		return fmt.Errorf("unknown provider %q: /provider lists them", name)
	}
	if _, err := c.svc.SwitchProvider(ctx, name, model); err != nil {
		return err
	}
	return c.live.Refresh(ctx)
}

// Reload re-reads the configuration (after /config or a stored key) and
// rebuilds the engine, keeping provider, model and mode.
func (c *Controller) Reload(ctx context.Context) error {
	rt := c.Runtime()
	if _, err := c.svc.Reload(ctx, map[string]string{"provider": rt.Provider.Name, "model": rt.Model}); err != nil {
		return err
	}
	return c.live.Refresh(ctx)
}

// NewSession starts a new session in the workspace with the current model.
func (c *Controller) NewSession(ctx context.Context) error {
	s, err := c.svc.Pick(ctx, "", false)
	if err != nil {
		return err
	}
	return c.live.Use(ctx, s)
}

// Resume loads the session id (a full id or unique prefix).
func (c *Controller) Resume(ctx context.Context, id string) error {
	s, err := c.Store().Load(ctx, id)
	if err != nil {
		return err
	}
	return c.live.Use(ctx, s)
}

// Models returns the live model list of provider ("" for the current one),
// from the cache when fresh. Errors: unknown provider, ctx done.
func (c *Controller) Models(ctx context.Context, provider string, refresh bool) (catalog.ModelList, error) {
	return c.Runtime().Models(ctx, provider, catalog.ListOptions{Refresh: refresh})
}

// NeedsKey reports whether provider needs an API key that is not set.
func (c *Controller) NeedsKey(provider string) bool {
	return NeedsKey(c.Runtime(), provider)
}

// NeedsKey reports whether rt's catalog provider needs an API key that is
// not set in config or the environment.
func NeedsKey(rt *app.Runtime, provider string) bool {
	p, ok := rt.Catalog.Provider(provider)
	return ok && p.RequiresKey && p.APIKey(rt.Getenv) == ""
}

// StoreKey writes providers.NAME.api_key = key into the global config file
// (mode 0600). Errors come from config.Set; one wrapping
// config.ErrNotPrivate means the key was stored but the file could not be
// made private (see KeyWarning).
func StoreKey(rt *app.Runtime, provider, key string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return errors.New("the key is empty")
	}
	return config.Set(rt.Config.Paths.ConfigFile, "providers."+provider+".api_key", key)
}

// KeyWarning splits an error of StoreKey or config.Set: a key stored in a
// file that could not be made private is a warning to show (the key is
// saved), anything else is a failure.
func KeyWarning(err error) (warning string, failed error) {
	if errors.Is(err, config.ErrNotPrivate) {
		return err.Error(), nil
	}
	return "", err
}

// IsMissingKey reports whether err from app.Load means the chosen
// provider has no API key, or that no provider can be reached on a first
// run (app.ErrNoProvider): onboarding picks a provider.
func IsMissingKey(err error) bool {
	return errors.Is(err, app.ErrMissingKey) || errors.Is(err, app.ErrNoProvider)
}

// NeedsServer reports whether choosing provider must first ask for a
// server's base URL: the catalog's "custom" provider while no base URL is
// configured for it (the /provider → custom flow, see AddServer).
func NeedsServer(rt *app.Runtime, provider string) bool {
	p, ok := rt.Catalog.Provider(provider)
	return ok && p.Custom && p.BaseURL == ""
}

// ServerModels checks the server at baseURL for the /provider → custom
// flow: it returns the provider name to save it under (existing: a
// provider of the catalog or config already has that base URL) and the
// server's model ids. Errors: a URL the config would refuse, a server
// that does not answer or lists no model (naming the URL).
func ServerModels(ctx context.Context, rt *app.Runtime, baseURL string) (name string, existing bool, models []string, err error) {
	baseURL = strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if baseURL == "" {
		return "", false, nil, errors.New("type the server's base URL, e.g. http://127.0.0.1:8080/v1")
	}
	name, existing = rt.ProviderFor(baseURL)
	_, models, listErr, err := rt.CheckProvider(ctx, app.ProviderSpec{Name: name, BaseURL: baseURL})
	if existing {
		return name, true, models, nil
	}
	switch {
	case err != nil:
		return "", false, nil, err
	case listErr != nil:
		return "", false, nil, fmt.Errorf("no model list from %s: %v (an OpenAI-compatible server's base URL usually ends in /v1)", baseURL, listErr)
	case len(models) == 0:
		return "", false, nil, fmt.Errorf("the server at %s lists no models", baseURL)
	}
	return name, false, models, nil
}

// AddServer saves the server at baseURL as [providers.NAME] (type
// openai, models = [model]) in the global config file, keeping the file's
// other content, and returns NAME. An existing provider of that URL is
// reused, not written again. The caller switches to it (or, during
// onboarding, starts with it). Errors: config.AddProvider's.
func AddServer(rt *app.Runtime, baseURL, model string) (string, error) {
	baseURL = strings.TrimRight(strings.TrimSpace(baseURL), "/")
	name, existing := rt.ProviderFor(baseURL)
	if existing {
		return name, nil
	}
	return name, rt.AddProvider(app.ProviderSpec{Name: name, BaseURL: baseURL, Model: model})
}

// UseServer switches the session to provider name (just saved by
// AddServer, so the configuration is read again) with model.
func (c *Controller) UseServer(ctx context.Context, name, model string) error {
	if _, err := c.svc.Reload(ctx, map[string]string{"provider": name, "model": model}); err != nil {
		return err
	}
	return c.live.Refresh(ctx)
}
