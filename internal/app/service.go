package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/gitdir"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/session"
)

// ErrOpenStore is wrapped by [Start]'s error when the session store
// cannot be opened (an I/O problem, not bad configuration).
var ErrOpenStore = errors.New("open sessions")

// Service is one front end's handle on aidex: the options it was started
// with, the current runtime (provider, model, permission mode) and the
// session store. Every front end starts with [Start] and works in
// sessions from [Service.Session], so the start-up sequence (load →
// warnings → notice → open the store) and session handling are written
// once.
//
// Switching model, provider or mode replaces the service's runtime;
// sessions rebuild their engine for it before their next run. A Service
// is safe for concurrent use.
type Service struct {
	store *session.Store
	// lockDir holds the sessions' run locks ("" in tests without one).
	lockDir string

	// switching serialises Reload and SetMode, so neither loses the
	// other's change while a runtime loads.
	switching sync.Mutex

	// report is StartOptions.Report (nil: ignored); mcp holds the MCP
	// servers, started at the first session.
	report func(Report)
	mcp    mcpSlot

	mu   sync.Mutex
	opts Options // Flags are owned (cloned) and updated by switches
	rt   *Runtime
	gen  int // runtime generation: engines built for an older one are rebuilt
	// sources are the slash commands of other sources (AddCommandSource).
	sources []commandSource
	// prefetch is the git summary Start began (nil: none); Close stops it.
	prefetch *gitPrefetch

	// loads are the conversations PickRecent is loading.
	loads loads
	// review is the review of the project's pending content (content.go);
	// approvedNow what it approved for this service only.
	review      contentReview
	approvedNow *sessionApprovals
	// hookState holds what the Setup hooks exported (CLAUDE_ENV_FILE),
	// under every session's own; Close removes its temp folder.
	hookState *hookState
	// setupContext is the Setup hooks' additional context, for each
	// session's first prompt (guarded by mu).
	setupContext []string
}

// StartOptions configure [Start]. Base skips choosing a provider (for
// front ends that may have to onboard first; call [Service.Choose]
// before starting a session). Report is told each configuration warning
// and the notice of an automatically chosen provider (nil: ignored).
//
// Sandbox is set by front ends that run the model's commands (runs,
// the terminal UI, the web UI, Ralph): Start then decides the OS sandbox
// at once, reports (a warning) when commands are not sandboxed because
// the machine cannot, and fails when a sandbox mode the user asked for
// is unavailable (fail closed; the error names --sandbox off).
type StartOptions struct {
	Options
	Base    bool
	Report  func(Report)
	Sandbox bool
	// PrefetchGit starts reading the workspace's git state (the system
	// prompt's git line) in the background while the session store opens:
	// for front ends that build an engine soon after Start.
	PrefetchGit bool
	// Setup, when set, runs the Setup hooks with this trigger
	// (SetupInit, SetupMaintenance) once the service is up.
	Setup string
}

// Report is a message for the user at start-up: a configuration warning
// (Warning true) or the notice of an automatically chosen provider.
//
// InSession marks a report every session's first run also shows, as a
// notice event (an MCP server that failed to start): a front end that shows
// the sessions' events may skip it.
//
// Progress marks a line about work under way before a session can run (an
// MCP server still starting: npx installing its package; no session event
// has been sent yet): a front end shows it as it comes, on stderr or as a
// notice event of kind "mcp". It may come from another goroutine.
type Report struct {
	Text      string
	Warning   bool
	InSession bool
	Progress  bool
}

// Start is the start-up sequence every front end shares: load the
// configuration and the catalog (and, unless o.Base, choose the provider
// and model), report warnings and the notice, and open the session store
// (in the background while the configuration loads: its data directory
// comes from the environment alone). Close the Service when done.
// Errors: configuration problems (they name the file and key), an
// unusable provider (wrapping ErrMissingKey when only the key is
// missing), a store that cannot be opened (wrapping ErrOpenStore).
func Start(ctx context.Context, o StartOptions) (*Service, error) {
	o.Flags = maps.Clone(o.Flags)
	if o.Flags == nil {
		o.Flags = map[string]string{}
	}
	o.SandboxProbe = probeOnce(o.SandboxProbe)
	if o.approvedNow == nil {
		o.approvedNow = &sessionApprovals{}
	}
	opening := openStoreEarly(ctx, o.Getenv)
	svc, err := start(ctx, o, opening)
	if err != nil {
		opening.discard()
	}
	return svc, err
}

// start is Start with the store being opened (nil: not yet).
func start(ctx context.Context, o StartOptions, opening *storeOpening) (*Service, error) {
	var rt *Runtime
	var err error
	if o.Base {
		rt, err = LoadBase(o.Options)
	} else {
		rt, err = Load(ctx, o.Options)
	}
	if err != nil {
		return nil, err
	}
	report(o.Report, rt)
	if n := gitdir.Find(rt.Workspace).Note; n != "" && o.Report != nil {
		o.Report(Report{Text: n, Warning: true})
	}
	if o.Sandbox {
		if _, err := rt.toolRoom().sandboxOn(); err != nil {
			return nil, err
		}
		if n := rt.SandboxInfo().Notice; n != "" && o.Report != nil {
			o.Report(Report{Text: n, Warning: true})
		}
	}
	if o.PrefetchGit {
		rt.gitPrefetch = startGitPrefetch(ctx, rt)
	}
	store, err := opening.take(ctx, rt.Config.Paths.DataDir)
	if err != nil {
		rt.gitPrefetch.stop()
		return nil, fmt.Errorf("%w: %w", ErrOpenStore, err)
	}
	svc := &Service{store: store, lockDir: sessionLockDir(rt.Config.Paths.DataDir), opts: o.Options, rt: rt, report: o.Report,
		prefetch: rt.gitPrefetch, approvedNow: o.approvedNow, hookState: &hookState{}}
	svc.AddCommandSource(svc.mcpCommands)
	if o.Setup != "" {
		setupHooks{svc}.run(ctx, o.Setup, o.Report)
	}
	return svc, nil
}

func report(fn func(Report), rt *Runtime) {
	if fn == nil {
		return
	}
	for _, w := range rt.Warnings {
		fn(Report{Text: w.String(), Warning: true})
	}
	if rt.Notice != "" {
		fn(Report{Text: rt.Notice})
	}
}

// Close stops the MCP servers, removes the session lock files nobody
// holds (left by an aidex that died) and closes the session store. Close
// sessions first. A server that does not close cleanly (a remote server
// gone) is no error of the session's: only the store's error is returned.
func (s *Service) Close() error {
	s.prefetch.stop()
	s.hookState.Close()
	_ = s.closeMCP()
	s.loads.wait()
	sweepSessionLocks(s.lockDir)
	return s.store.Close()
}

// Store returns the session store (listing, exporting, deleting sessions).
func (s *Service) Store() *session.Store { return s.store }

// Runtime returns the current runtime. Treat it as read-only: switches
// replace it.
func (s *Service) Runtime() *Runtime {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rt
}

// current returns the runtime with its generation.
func (s *Service) current() (*Runtime, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rt, s.gen
}

// Choose loads the runtime again with provider chosen ("" keeps the
// configured choice; a provider drops the configured model for its
// default) and makes it current. For front ends started with Base.
// Errors: as [Load]'s.
func (s *Service) Choose(ctx context.Context, provider string) (*Runtime, error) {
	changes := map[string]string{}
	if provider != "" {
		changes["provider"], changes["model"] = provider, ""
	}
	return s.Reload(ctx, changes)
}

// Reload loads the runtime again with config flags changed ("" deletes a
// flag; a mode set with SetMode is a flag too, so it is kept) and makes it
// current: sessions get a new engine at their next run. A failed load keeps the old runtime. Errors: as
// [Load]'s.
func (s *Service) Reload(ctx context.Context, changes map[string]string) (*Runtime, error) {
	return s.reload(ctx, changes, nil)
}

// reload is Reload; check, when set, vets the new runtime before it
// becomes current (its error keeps the old one).
func (s *Service) reload(ctx context.Context, changes map[string]string, check func(*Runtime) error) (*Runtime, error) {
	s.switching.Lock()
	defer s.switching.Unlock()
	s.mu.Lock()
	o := s.opts
	o.Flags = maps.Clone(s.opts.Flags)
	s.mu.Unlock()
	for k, v := range changes {
		if v == "" {
			delete(o.Flags, k)
		} else {
			o.Flags[k] = v
		}
	}
	rt, err := Load(ctx, o)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(rt); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.opts, s.rt = o, rt
	s.gen++
	s.mu.Unlock()
	return rt, nil
}

// SwitchModel switches to spec: "MODEL" (the current provider) or
// "PROVIDER/MODEL". A model the provider's list does not hold is refused
// with the closest names (providers that take any id are not checked).
// Errors name what is wrong (empty spec, unknown provider or model,
// missing key).
func (s *Service) SwitchModel(ctx context.Context, spec string) (*Runtime, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("name a model: MODEL or PROVIDER/MODEL")
	}
	rt := s.Runtime()
	provider, model := rt.Provider.Name, spec
	p, m, slash := strings.Cut(spec, "/")
	if _, known := rt.Catalog.Provider(p); slash && known && m != "" {
		provider, model, slash = p, m, false
	}
	if err := rt.modelRoom().checkModel(ctx, spec, provider, model, slash); err != nil {
		return nil, err
	}
	return s.Reload(ctx, map[string]string{"provider": provider, "model": model})
}

// SwitchProvider switches to provider name with model ("": the configured
// model when the provider serves it, else the provider's default live
// model, free where there is one; see modelRoom.modelFor). Errors: unknown
// provider, missing key.
func (s *Service) SwitchProvider(ctx context.Context, name, model string) (*Runtime, error) {
	if _, ok := s.Runtime().Catalog.Provider(name); !ok {
		return nil, fmt.Errorf("unknown provider %q", name)
	}
	return s.Reload(ctx, map[string]string{"provider": name, "model": model})
}

// SetMode switches the permission mode (plan, ask, auto-edit, yolo; the
// aliases ParseMode accepts) for the sessions' next runs. The mode is kept
// as a command-line flag, so it outlasts reloads (a permission_mode saved
// in a config file afterwards does not override it). Errors: an unknown
// mode.
func (s *Service) SetMode(mode string) error {
	m, err := permission.ParseMode(mode)
	if err != nil {
		return err
	}
	s.switching.Lock()
	defer s.switching.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := *s.rt
	cfg := *rt.Config
	cfg.PermissionMode = string(m)
	rt.Config = &cfg
	s.rt = &rt
	s.opts.Flags = maps.Clone(s.opts.Flags)
	s.opts.Flags["permission_mode"] = string(m)
	s.gen++
	return nil
}

// ParseMode returns the canonical name of a permission mode ("plan",
// "ask", "auto-edit", "yolo") from any name SetMode accepts, for front
// ends that compare modes. Errors: an unknown mode (listing the valid
// ones).
func ParseMode(mode string) (string, error) {
	m, err := permission.ParseMode(mode)
	return string(m), err
}

// Mode returns the current permission mode, canonical ("ask",
// "auto-edit", "plan", "yolo").
func (s *Service) Mode() string {
	mode := s.Runtime().Config.PermissionMode
	if m, err := permission.ParseMode(mode); err == nil {
		return string(m)
	}
	return mode
}

// Pick returns the stored session a front end starts in: the one resume
// names (a full id or unique prefix), the workspace's latest with cont, or
// a new one. A resumed session continues with the current provider and
// model: [Service.Session] records them when it builds the engine. Errors: session.ErrNotFound and session.ErrAmbiguous (wrapped),
// the store's.
func (s *Service) Pick(ctx context.Context, resume string, cont bool) (*agent.Conversation, error) {
	rt := s.Runtime()
	var sess *agent.Conversation
	var err error
	switch {
	case resume != "":
		sess, err = s.store.Load(ctx, resume)
	case cont:
		if sess, err = s.store.Latest(ctx, rt.Workspace); err != nil {
			err = fmt.Errorf("--continue: %w", err)
		}
	default:
		return s.store.Create(ctx, rt.Workspace, rt.Provider.Name, rt.Model)
	}
	return sess, err
}

// Undo restores the files the last turn of session id changed ("" for
// the workspace's latest session) and returns them (absolute paths),
// each restored or deleted (a file the turn created). The turn's
// checkpoint (a snapshot of the whole workspace) covers what commands
// changed too; a session of an earlier aidex without one is undone with
// its per-file checkpoints. The state before the undo is kept as a
// checkpoint ([Service.Rewind] to it redoes the turn). Errors: wrapping
// session.ErrNothingToUndo when the workspace has no session yet or the
// session no changes left; session.ErrNotFound for an unknown id; the
// store's.
func (s *Service) Undo(ctx context.Context, id string) ([]session.Undone, error) {
	if id == "" {
		ws := s.Runtime().Workspace
		sess, err := s.store.Latest(ctx, ws)
		if errors.Is(err, session.ErrNotFound) {
			return nil, fmt.Errorf("%w: no session in %s yet", session.ErrNothingToUndo, ws)
		}
		if err != nil {
			return nil, err
		}
		id = sess.ID
	}
	sum, err := s.store.Info(ctx, id)
	if err != nil {
		return nil, err
	}
	if undone, ok, err := (snapshots{s}).undoSnapshot(ctx, sum.ID); ok || err != nil {
		return undone, err
	}
	return s.store.UndoTurn(ctx, sum.ID)
}
