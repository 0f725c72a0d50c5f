package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
)

// runtimeAPI serves the runtime's endpoints: status, models, providers
// and switching them, the config, tools and MCP servers, image
// generation.
type runtimeAPI struct{ *Server }

// historyAPI serves the stored sessions: the history, the session list, a
// session's view, resuming one, its checkpoints and /rewind.
type historyAPI struct{ *Server }

// Status is the body of GET /api/status.
type Status struct {
	Version        string `json:"version"`
	Provider       string `json:"provider"`
	Model          string `json:"model"`
	Workspace      string `json:"workspace"`
	PermissionMode string `json:"permission_mode"`
	SessionID      string `json:"session_id,omitempty"`
	Running        bool   `json:"running"`
	Notice         string `json:"notice,omitempty"`
	ShellTools     bool   `json:"shell_tools"`
	ContextWindow  int    `json:"context_window,omitempty"`
	Ralph          bool   `json:"ralph"`
	Images         bool   `json:"images"`
	// SafeMode is the config's safe_mode (the built-in deny list of
	// destructive commands); HasKey is whether the provider in use has an
	// API key (or needs none).
	SafeMode bool `json:"safe_mode"`
	HasKey   bool `json:"has_key"`
	// ConfigFile is the global config file (where web_allow_shell_tools
	// is set by hand).
	ConfigFile string `json:"config_file"`
}

func (s runtimeAPI) handleStatus(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rt := s.svc.Runtime()
	st := Status{Version: s.opts.Version, Provider: rt.Provider.Name, Model: rt.Model, Workspace: rt.Workspace,
		PermissionMode: rt.Config.PermissionMode, SessionID: s.current, Notice: rt.Notice,
		ShellTools: rt.Config.WebAllowShellTools, ContextWindow: rt.ModelInfo().ContextWindow,
		Ralph: s.ralph != nil, Images: true, SafeMode: rt.Config.SafeMode,
		HasKey:     !rt.Provider.RequiresKey || rt.Provider.APIKey(rt.Getenv) != "",
		ConfigFile: rt.Config.Paths.ConfigFile}
	if hs := s.host.Get(s.current); hs != nil {
		st.Running = hs.Running()
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, st)
}

// ModelView is one model in GET /api/models: the catalog's model with its
// labels ("FREE", "$3/$15", "200K").
type ModelView struct {
	catalog.Model
	PriceLabel   string `json:"price_label,omitempty"`
	ContextLabel string `json:"context_label,omitempty"`
}

// ModelsResponse is the body of GET /api/models: the provider's list, where
// it came from (live, cache, stale-cache, static), when it was fetched and
// its age in seconds, a note for the user, and the model in use.
type ModelsResponse struct {
	Provider   string         `json:"provider"`
	Current    string         `json:"current"`
	Source     catalog.Source `json:"source"`
	FetchedAt  time.Time      `json:"fetched_at,omitzero"`
	AgeSeconds int64          `json:"age_seconds,omitempty"`
	Note       string         `json:"note,omitempty"`
	Models     []ModelView    `json:"models"`
}

// handleModels lists a provider's models: GET
// /api/models?provider=NAME&refresh=1 (provider defaults to the one in use).
func (s runtimeAPI) handleModels(w http.ResponseWriter, r *http.Request) {
	rt := s.Runtime()
	name := r.URL.Query().Get("provider")
	if name == "" {
		name = rt.Provider.Name
	}
	p, ok := rt.Catalog.Provider(name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown provider %q: GET /api/v1/providers lists them", name))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	ml, err := rt.Lister().List(ctx, p, catalog.ListOptions{Refresh: r.URL.Query().Get("refresh") == "1"})
	if err != nil {
		writeError(w, http.StatusGatewayTimeout, err.Error())
		return
	}
	out := ModelsResponse{Provider: ml.Provider, Source: ml.Source, FetchedAt: ml.FetchedAt, Note: ml.Note, Models: []ModelView{}}
	if name == rt.Provider.Name {
		out.Current = rt.Model
	}
	if !ml.FetchedAt.IsZero() {
		out.AgeSeconds = int64(time.Since(ml.FetchedAt).Seconds())
	}
	for _, m := range ml.Models {
		out.Models = append(out.Models, ModelView{Model: m, PriceLabel: catalog.PriceLabel(m), ContextLabel: catalog.ContextLabel(m.ContextWindow)})
	}
	writeJSON(w, http.StatusOK, out)
}

// handleModelSwitch switches the model: POST /api/models/switch
// {"model": "ID" | "PROVIDER/ID"}.
func (s runtimeAPI) handleModelSwitch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Provider string `json:"provider"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	if strings.TrimSpace(req.Model) == "" {
		writeError(w, http.StatusBadRequest, `model is empty: send {"model": "ID"} or {"model": "PROVIDER/ID"}`)
		return
	}
	spec := req.Model
	if req.Provider != "" {
		spec = req.Provider + "/" + req.Model
	}
	rt, err := s.svc.SwitchModel(r.Context(), spec)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"provider": rt.Provider.Name, "model": rt.Model, "notice": rt.Notice})
}

// handleProviderSwitch switches the provider (to its default model): POST
// /api/provider/switch {"provider": "NAME"}.
func (s runtimeAPI) handleProviderSwitch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Provider string `json:"provider"`
		Model    string `json:"model"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	if strings.TrimSpace(req.Provider) == "" {
		writeError(w, http.StatusBadRequest, `provider is empty: send {"provider": "NAME"}`)
		return
	}
	if _, ok := s.Runtime().Catalog.Provider(req.Provider); !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown provider %q: GET /api/v1/providers lists them", req.Provider))
		return
	}
	s.runtimeAPI.switchRuntime(w, r, map[string]string{"provider": req.Provider, "model": req.Model})
}

// switchRuntime reloads the runtime with changed config flags ("" deletes
// a flag) and answers with the new status. A failed load keeps the old
// runtime and answers 400 with the reason.
func (s runtimeAPI) switchRuntime(w http.ResponseWriter, r *http.Request, changes map[string]string) {
	rt, err := s.runtimeAPI.reload(r.Context(), changes)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"provider": rt.Provider.Name, "model": rt.Model, "notice": rt.Notice})
}

// reload loads the runtime again with the flags changed ("" deletes a
// flag); sessions get a new engine at their next run.
func (s runtimeAPI) reload(ctx context.Context, changes map[string]string) (*app.Runtime, error) {
	return s.svc.Reload(ctx, changes)
}

// ProviderView is one provider in GET /api/providers: the catalog entry
// (never its key), whether a key is set and where it comes from (an
// environment variable's name or "config api_key").
type ProviderView struct {
	catalog.Provider
	KeySet    bool   `json:"key_set"`
	KeySource string `json:"key_source,omitempty"`
	KeyHint   string `json:"key_hint,omitempty"`
	Current   bool   `json:"current"`
}

// handleProviders lists the providers grouped "no signup needed", "free
// tier, quick signup", "paid or custom".
func (s runtimeAPI) handleProviders(w http.ResponseWriter, r *http.Request) {
	rt := s.Runtime()
	type group struct {
		Group     string         `json:"group"`
		Providers []ProviderView `json:"providers"`
	}
	out := []group{}
	for _, g := range rt.Catalog.Groups() {
		gv := group{Group: g.Group, Providers: []ProviderView{}}
		for _, p := range g.Providers {
			src := p.KeySource(rt.Getenv)
			gv.Providers = append(gv.Providers, ProviderView{Provider: p, KeySet: src != "", KeySource: src,
				KeyHint: p.KeyHint(), Current: p.Name == rt.Provider.Name})
		}
		out = append(out, gv)
	}
	writeJSON(w, http.StatusOK, map[string]any{"groups": out, "current": rt.Provider.Name})
}

// webConfigKeys are the config keys POST /api/config may set. Everything
// that widens what the agent may do (permission_mode, permissions.*,
// safe_mode, confine, allowed_dirs, web_allow_shell_tools, tools.*,
// system_prompt_file, verify_command, workspace, web_fetch_allow_private,
// command_env_allow) is edited only by hand in the config file.
var webConfigKeys = []string{
	"provider", "model", "stream", "max_tokens", "temperature", "reasoning_effort", "thinking_budget",
	"request_timeout", "stream_idle_timeout", "max_retries", "max_tool_turns", "compaction_threshold", "approval_timeout",
	"ollama_base_url", "custom_base_url", "custom_chat_model",
	"image_provider", "image_model", "image_api_key", "image_base_url", "cloudflare_account_id",
}

// webConfigKeyOK reports whether the page may set key: a key of
// webConfigKeys or providers.NAME.api_key.
func webConfigKeyOK(key string) bool {
	if slices.Contains(webConfigKeys, key) {
		return true
	}
	rest, ok := strings.CutPrefix(key, "providers.")
	if !ok {
		return false
	}
	name, field, ok := strings.Cut(rest, ".")
	return ok && name != "" && !strings.ContainsAny(name, ".\"'[]") && field == "api_key"
}

// handleConfigGet shows the configuration, secrets masked: GET /api/config.
func (s runtimeAPI) handleConfigGet(w http.ResponseWriter, r *http.Request) {
	rt := s.Runtime()
	writeJSON(w, http.StatusOK, map[string]any{
		"file":     rt.Config.Paths.ConfigFile,
		"entries":  config.List(rt.Config),
		"editable": webConfigKeys,
	})
}

// handleConfigPost sets keys in the global config file: POST /api/config
// {"values": {"KEY": "VALUE", ...}}. Only webConfigKeys and
// providers.NAME.api_key are accepted (403 for others, before anything is
// written). "warnings" names a key saved in a file that could not be made
// private (config.ErrNotPrivate).
func (s runtimeAPI) handleConfigPost(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Values map[string]string `json:"values"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	if len(req.Values) == 0 {
		writeError(w, http.StatusBadRequest, `nothing to set: send {"values": {"KEY": "VALUE"}}`)
		return
	}
	keys := make([]string, 0, len(req.Values))
	for k := range req.Values {
		if !webConfigKeyOK(k) {
			writeError(w, http.StatusForbidden, fmt.Sprintf("%s cannot be changed from the web UI: edit the config file by hand (aidex config set)", k))
			return
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	file := s.Runtime().Config.Paths.ConfigFile
	changes, warnings := map[string]string{}, []string{}
	for _, k := range keys {
		if err := config.Set(file, k, req.Values[k]); errors.Is(err, config.ErrNotPrivate) {
			warnings = append(warnings, err.Error()) // the key is saved
		} else if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if k == "model" || k == "provider" {
			changes[k] = "" // the saved value now wins over an earlier switch
		}
	}
	if _, err := s.runtimeAPI.reload(r.Context(), changes); err != nil {
		writeError(w, http.StatusBadRequest, "saved, but the configuration does not load: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "set": keys, "file": file, "warnings": warnings})
}

// SessionView is a session with its messages, plan and usage, for
// GET /api/history and GET /api/sessions/{id}.
type SessionView struct {
	ID       string          `json:"id"`
	Title    string          `json:"title,omitempty"`
	Provider string          `json:"provider,omitempty"`
	Model    string          `json:"model,omitempty"`
	Messages []llm.Message   `json:"messages"`
	Todos    []agent.Todo    `json:"todos"`
	Usage    llm.Usage       `json:"usage"`
	CostUSD  float64         `json:"cost_usd"`
	Summary  session.Summary `json:"summary,omitzero"`
	// Running says a run of the session is in progress; EventSeq is the
	// sequence number of the session's last event before the view was
	// made: follow GET /api/v1/sessions/{id}/events?after=EventSeq to see
	// the rest of the run.
	Running  bool   `json:"running,omitempty"`
	EventSeq uint64 `json:"event_seq,omitempty"`
}

func (s historyAPI) sessionView(ctx context.Context, id string) (SessionView, error) {
	var sess *agent.Conversation
	var running bool
	var seq uint64
	if hs := s.host.Get(id); hs != nil {
		// The event before the view: a page following from it misses nothing.
		seq = hs.LastSeq()
		if running = hs.Running(); !running {
			// A copy, made while no run changes it.
			st := hs.Stored()
			c := *st
			c.Messages = slices.Clone(st.Messages)
			sess = &c
		}
	}
	if sess == nil {
		var err error
		if sess, err = s.svc.Store().Load(ctx, id); err != nil {
			return SessionView{}, err
		}
	}
	sum, err := s.svc.Store().Info(ctx, sess.ID)
	if err != nil {
		return SessionView{}, err
	}
	v := SessionView{ID: sess.ID, Title: sum.Title, Provider: sum.Provider, Model: sum.Model, Messages: sess.Messages,
		Todos: sess.Todos, Usage: sess.Usage, CostUSD: sess.CostUSD, Summary: sum, Running: running, EventSeq: seq}
	if v.Messages == nil {
		v.Messages = []llm.Message{}
	}
	if v.Todos == nil {
		v.Todos = []agent.Todo{}
	}
	return v, nil
}

// handleHistory returns the current session: GET /api/history (an empty
// session before the first chat).
func (s historyAPI) handleHistory(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	id := s.current
	s.mu.Unlock()
	if id == "" {
		writeJSON(w, http.StatusOK, SessionView{Messages: []llm.Message{}, Todos: []agent.Todo{}})
		return
	}
	s.historyAPI.writeSession(w, r, id)
}

func (s historyAPI) writeSession(w http.ResponseWriter, r *http.Request, id string) {
	v, err := s.historyAPI.sessionView(r.Context(), id)
	switch {
	case errors.Is(err, session.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, session.ErrAmbiguous):
		writeError(w, http.StatusBadRequest, err.Error())
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, v)
	}
}

// handleHistoryClear starts a new, empty session (the old one stays in the
// store): POST /api/history/clear.
func (s historyAPI) handleHistoryClear(w http.ResponseWriter, r *http.Request) {
	var req struct{}
	if !s.decodeBody(w, r, &req) {
		return
	}
	sess, err := s.svc.Pick(r.Context(), "", false)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.host.Adopt(sess)
	s.mu.Lock()
	s.current = sess.ID
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"session_id": sess.ID})
}

// handleSessions lists this workspace's sessions, newest first (at most
// 100): GET /api/sessions.
func (s historyAPI) handleSessions(w http.ResponseWriter, r *http.Request) {
	rt := s.Runtime()
	list, err := s.svc.Store().List(r.Context(), session.ListOptions{Workspace: rt.Workspace, Limit: 100})
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if list == nil {
		list = []session.Summary{}
	}
	s.mu.Lock()
	cur := s.current
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"sessions": list, "current": cur})
}

// handleSession returns one session with its messages: GET
// /api/sessions/{id} (an unambiguous id prefix works).
func (s historyAPI) handleSession(w http.ResponseWriter, r *http.Request) {
	s.historyAPI.writeSession(w, r, r.PathValue("id"))
}

// handleResume makes a session the page's current one: POST
// /api/sessions/{id}/resume. Sessions of other workspaces are refused
// (403): their files are outside this server's confinement.
func (s historyAPI) handleResume(w http.ResponseWriter, r *http.Request) {
	var req struct{}
	if !s.decodeBody(w, r, &req) {
		return
	}
	sum, err := s.svc.Store().Info(r.Context(), r.PathValue("id"))
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, session.ErrNotFound) {
			status = http.StatusNotFound
		} else if errors.Is(err, session.ErrAmbiguous) {
			status = http.StatusBadRequest
		}
		writeError(w, status, err.Error())
		return
	}
	if rt := s.Runtime(); filepath.Clean(sum.Workspace) != filepath.Clean(rt.Workspace) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("session %s belongs to workspace %s: start aidex web there to resume it", sum.ID, sum.Workspace))
		return
	}
	if _, err := s.liveFor(r.Context(), sum.ID); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.mu.Lock()
	s.current = sum.ID
	s.mu.Unlock()
	s.historyAPI.writeSession(w, r, sum.ID)
}
