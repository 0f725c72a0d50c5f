// Package web is aidex's browser front end: an HTTP API over the same
// engine, sessions and permission policy as the terminal, and an embedded
// single-page app (plain ES modules, no build step) that uses it.
//
// A browser-reachable server is a different trust boundary from a
// terminal: any page the user visits can send requests to localhost. So
// every /api/* request needs the per-launch token (Authorization: Bearer,
// or the HttpOnly SameSite=Strict cookie set when the page is opened with
// ?token=, or when it exchanges the one-time ?code= of `aidex web --open`
// at POST /auth/code, see login.go), the Host header must be the bound address (DNS rebinding),
// requests from another Origin are refused, bodies must be JSON and at
// most 10 MiB, there is no CORS, and pages carry a strict
// Content-Security-Policy. Chats run with the web confinement
// (app.SessionOptions.Web): always confined to the workspace, shell tools
// only with web_allow_shell_tools.
//
// Chat answers stream as Server-Sent Events
// (https://html.spec.whatwg.org/multipage/server-sent-events.html) whose
// event names are the engine's event types (text, tool_call, approval,
// tool_result, usage, todos, error, done) and whose data is the event as
// JSON (agent.Event). A Ralph run (POST /api/ralph/run, GET
// /api/ralph/events) streams the same way with Ralph's event names
// (task_start, the engine's events, verify_start, verify, task_done,
// paused, resumed, finished) and ralph.Event as data; it belongs to the
// server, not to the tab that started it (see ralph.go).
package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/httpguard"
)

// GCPercent is the garbage collector's target (GOGC) `aidex web` runs with
// when the user set none: 200, twice the default, so that many concurrent
// streams are not slowed by collector assists (p99 event latency of 50
// streams: 4–131 ms at 100, 1.2–12 ms at 200; the live heap stays ~17 MiB).
const GCPercent = 200

// Options configure a Server.
//
// Setup loads the runtime (workspace, config flags, environment); model and
// provider switches reload it with changed flags. Token is the per-launch
// secret (see NewToken), required. Host is the --host the listener was
// bound to ("" or "127.0.0.1" for loopback). Version is shown in the page.
// Ralph serves the Ralph endpoints (nil: a ralph.Service of the
// workspace whose runs use the server's session store and current runtime
// with the web confinement). Images generates images for POST /api/image
// (nil: app.Runtime.ImageGenerator, built from the current configuration at each
// request).
// MaxRuns caps concurrent chat runs over all sessions (0: 64); more get
// 429. Log gets debug lines (unknown fields in request bodies); nil
// discards them.
type Options struct {
	Setup   app.Options
	Token   string
	Host    string
	Version string
	Ralph   Ralph
	Images  ImageGenerator
	MaxRuns int
	Log     *slog.Logger
}

// Server is the web UI and its API. Create it with New, serve it with
// Serve (or Handler for tests), and Close it when done. Its own methods
// serve the page, the chat and the session streams; the other endpoint
// groups are handler types it holds (runtimeAPI, historyAPI, answersAPI,
// filesAPI, ralphAPI), each over this server.
type Server struct {
	opts Options
	svc  *app.Service
	// baseMode is the permission mode the server started with: the
	// widest the chat's /mode may set.
	baseMode string

	mu      sync.Mutex
	current string // the session the page works in ("" until the first chat)
	// host owns the live sessions: their runs, events, approvals and
	// questions (the web keeps none of its own).
	host *app.Host
	// now is the clock of question expiry (tests move it).
	now func() time.Time

	logins  loginCodes
	uploads uploads
	streams streamStarts // POST /stream/start tokens (iptic-memex's flow)

	ralph Ralph
	// bg lives as long as the server: Ralph runs belong to it, not to the
	// request that started them. Close cancels it.
	bg       context.Context
	bgCancel context.CancelFunc

	// The server's endpoint groups, each a type of its own over this
	// server (the chat and session streams are the server's own).
	ralphAPI   ralphAPI
	runtimeAPI runtimeAPI
	filesAPI   filesAPI
	historyAPI historyAPI
	answersAPI answersAPI
}

// liveSession is one request's view of a live session of the host: the
// HostSession, its stored session and its live state (nil before the
// first run). It holds no state of its own.
type liveSession struct {
	hs   *app.HostSession
	sess *agent.Conversation
	live *app.Session
}

// view returns hs's liveSession.
func view(hs *app.HostSession) *liveSession {
	return &liveSession{hs: hs, sess: hs.Stored(), live: hs.Live()}
}

// New loads the runtime (config, catalog, provider and model) and opens the
// session store (app.Start, deciding the OS sandbox of commands). Errors:
// a missing token, configuration problems (they name the file and key),
// an unusable provider, a sandbox mode asked for that this machine cannot
// provide, or a store that cannot be opened.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Token == "" {
		return nil, errors.New("web: no token: use NewToken")
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = 64
	}
	svc, err := app.Start(ctx, app.StartOptions{Options: o.Setup, Sandbox: true, PrefetchGit: true})
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, svc: svc, baseMode: svc.Mode(), now: time.Now, ralph: o.Ralph}
	s.ralphAPI, s.runtimeAPI, s.filesAPI = ralphAPI{Server: s}, runtimeAPI{s}, filesAPI{s}
	s.historyAPI, s.answersAPI = historyAPI{s}, answersAPI{Server: s}
	s.host = app.NewHost(svc, app.HostOptions{MaxRuns: func() int { return s.opts.MaxRuns }, Session: s.sessionOptions,
		Now: func() time.Time { return s.now() }})
	s.bg, s.bgCancel = context.WithCancel(context.WithoutCancel(ctx))
	if s.ralph == nil {
		s.ralph = svc.Ralph(true)
	}
	return s, nil
}

// Runtime returns the runtime in use (it changes on model switches).
func (s *Server) Runtime() *app.Runtime { return s.svc.Runtime() }

// Close cancels running chats (waiting up to 10 seconds for them to save
// their partial answers) and the Ralph run (likewise, for it to put its
// current task back to pending), stops the sessions' background processes
// and closes the session store.
func (s *Server) Close() error {
	s.ralphAPI.closeRalph()
	s.bgCancel()
	s.host.Close(closeRunsWait) // cancelled runs save what they have
	return s.svc.Close()
}

// sessionOptions are the options of a live session of the web: the web
// confinement, and approvals, questions and parallel answers answered
// by the page.
func (s *Server) sessionOptions(hs *app.HostSession) app.SessionOptions {
	return app.SessionOptions{Web: true, Approver: hs.Approver(), Asker: hs.Asker(),
		Chooser: &webChooser{s: s, hs: hs}}
}

// closeRunsWait bounds how long Close waits for cancelled chat runs to
// save their partial answers.
const closeRunsWait = 10 * time.Second

// Handler returns the server's HTTP handler for a listener bound at addr
// (the Host check accepts that port's loopback names and Options.Host).
func (s *Server) Handler(addr net.Addr) http.Handler {
	_, port, _ := net.SplitHostPort(addr.String())
	return &guard{hosts: httpguard.NewHostRules(addr, s.opts.Host), token: s.opts.Token, cookie: "aidex_token_" + port, next: s.routes(port)}
}

// Serve answers HTTP on ln until ctx ends, then shuts down (running chats
// are cancelled, in-flight requests get 5 seconds). It returns nil after a
// shutdown, else the server's error.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(ln.Addr()),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

func (s *Server) routes(port string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", s.page(port))
	mux.HandleFunc("POST /auth/code", s.handleLoginCode("aidex_token_"+port))
	for _, rt := range s.apiRoutes() {
		mux.HandleFunc(rt.method+" "+APIPrefix+rt.path, rt.handler)
		if !rt.v1Only {
			mux.HandleFunc(rt.method+" /api"+rt.path, deprecatedAlias(rt.path, rt.handler))
		}
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such API endpoint: "+r.Method+" "+r.URL.Path+" (the API is documented in docs/openapi.yaml)")
	})
	return mux
}

// apiError is the JSON body of every error response.
type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Error: msg})
}

// decodeBody reads the whole JSON body into v. Unknown fields are ignored
// (a newer page or client may send more) and logged at debug level with
// the endpoint. An empty body leaves v unchanged. It writes the error
// response (400 or 413) and returns false on failure.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body too large: the limit is "+strconv.Itoa(MaxBodyBytes>>20)+" MiB")
			return false
		}
		writeError(w, http.StatusBadRequest, "reading the request body: "+err.Error())
		return false
	}
	if len(data) == 0 {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err != nil && strings.HasPrefix(err.Error(), "json: unknown field ") {
		s.log().Debug("web: ignored unknown field in request body", "endpoint", r.Method+" "+r.URL.Path, "reason", err.Error())
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON body: "+err.Error())
		return false
	}
	return true
}

// log returns Options.Log, or a logger that discards.
func (s *Server) log() *slog.Logger {
	if s.opts.Log != nil {
		return s.opts.Log
	}
	return slog.New(slog.DiscardHandler)
}
