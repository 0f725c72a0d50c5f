package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// baseEnv are the variables a stdio server inherits from aidex without being
// listed in env_vars (Codex's default set): enough to find programs and a home.
var baseEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ",
	"SYSTEMROOT", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "PATHEXT", "COMSPEC", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"}

// stdioTransport builds the command of a stdio server: its own process
// group (a Job Object on Windows), the base environment plus env_vars and
// env, stderr to the log.
func (s *server) stdioTransport() *groupTransport {
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.cfg.Cwd
	getenv := s.m.opts.Getenv
	for _, k := range append(baseEnv, s.cfg.EnvVars...) {
		if v := getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range s.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	group := proc.NewGroup(cmd)
	s.mu.Lock()
	if s.stderr == nil {
		s.stderr = newStderrLog(s.m.opts.LogDir, s.cfg.Name)
	}
	cmd.Stderr = s.stderr
	s.mu.Unlock()
	return &groupTransport{CommandTransport: sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, group: group}
}

// groupTransport is the SDK's command transport with the server's process
// group joined as it starts: on Windows the command starts suspended
// (proc.NewGroup) and runs only once it is in its Job Object, so every
// process it starts (npx's node, a server's workers) ends with it.
type groupTransport struct {
	sdk.CommandTransport
	group *proc.Group
}

// Connect starts the server's process and puts it in its group; a server
// that cannot be held in its group is killed and not used.
func (t *groupTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if err != nil {
		t.group.Close()
		return nil, err
	}
	if err := t.group.Attach(t.Command.Process); err != nil {
		_ = conn.Close()
		t.group.Close()
		return nil, fmt.Errorf("MCP server process: %w", err)
	}
	return conn, nil
}

// killGroup kills a stdio server's process group (nil: nothing) and
// releases it.
func killGroup(g *proc.Group) {
	if g == nil {
		return
	}
	_ = g.Signal(true)
	g.Close()
}

// connectHTTP connects to a remote server: streamable HTTP, or legacy SSE when
// configured so or when the endpoint refuses streamable HTTP's POST.
func (s *server) connectHTTP(startCtx context.Context, client *sdk.Client) (*sdk.ClientSession, error) {
	// The event streams live on the context of the connection: it must outlive the
	// start-up (bounded by startCtx until then) and end when the session closes.
	ctx, cancel := context.WithCancel(context.WithoutCancel(startCtx))
	stop := context.AfterFunc(startCtx, cancel)
	sess, err := s.dialHTTP(ctx, client)
	if !stop() || err != nil {
		cancel()
		if err == nil {
			_ = sess.Close()
			err = startCtx.Err()
		}
		return nil, err
	}
	s.mu.Lock()
	s.cancelConn = cancel
	s.mu.Unlock()
	return sess, nil
}

func (s *server) dialHTTP(ctx context.Context, client *sdk.Client) (*sdk.ClientSession, error) {
	hc, rec, err := s.httpClient(ctx)
	if err != nil {
		return nil, err
	}
	if s.cfg.TransportName() == "sse" {
		return client.Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc}, nil)
	}
	// MaxRetries 0: the go-sdk's default reconnections, so that a call whose
	// event stream the server closes (SEP-1699) resumes with Last-Event-ID.
	sess, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc}, nil)
	if err == nil || s.cfg.Transport == "http" || ctx.Err() != nil {
		return sess, rec.explain(err)
	}
	switch rec.last.Load() {
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusBadRequest:
		// A legacy HTTP+SSE server: its endpoint only answers GET with an event stream.
		if sess, err2 := client.Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc}, nil); err2 == nil {
			return sess, nil
		}
	}
	return nil, rec.explain(err)
}

// httpClient returns the server's HTTP client (Options.HTTPClient, or one that
// sends http_headers and the bearer token), wrapped to record response statuses.
func (s *server) httpClient(ctx context.Context) (*http.Client, *statusRecorder, error) {
	var hc *http.Client
	if f := s.m.opts.HTTPClient; f != nil {
		c, err := f(ctx, s.cfg.Name, s.cfg.URL)
		if err != nil {
			return nil, nil, err
		}
		hc = c
	}
	if hc == nil {
		hc = &http.Client{}
	}
	headers := http.Header{}
	for k, v := range s.cfg.HTTPHeaders {
		headers.Set(k, v)
	}
	for k, name := range s.cfg.EnvHTTPHeaders {
		if v := s.m.opts.Getenv(name); v != "" {
			headers.Set(k, v)
		}
	}
	if name := s.cfg.BearerTokenEnvVar; name != "" {
		tok := s.m.opts.Getenv(name)
		if tok == "" {
			return nil, nil, fmt.Errorf("bearer_token_env_var %s is not set in the environment: export it or remove the key", name)
		}
		headers.Set("Authorization", "Bearer "+tok)
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	rec := &statusRecorder{base: base, headers: headers, name: s.cfg.Name}
	c := *hc
	c.Transport = rec
	s.mu.Lock()
	s.rec = rec
	s.mu.Unlock()
	return &c, rec, nil
}

// statusRecorder adds headers and remembers the last response status (401, or
// 403 with a WWW-Authenticate challenge, means the server needs an OAuth
// login, at start-up or later: step-up authorization; 404/405 a legacy SSE
// server).
type statusRecorder struct {
	base    http.RoundTripper
	headers http.Header
	name    string
	last    atomic.Int32
	saw401  atomic.Bool
	// scope is the scope the last challenge asked for ("": none named).
	scope atomic.Value
}

// RoundTrip implements http.RoundTripper.
func (r *statusRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(r.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range r.headers {
			if req.Header.Get(k) == "" {
				req.Header[k] = v
			}
		}
	}
	resp, err := r.base.RoundTrip(req)
	if err == nil {
		r.last.Store(int32(resp.StatusCode))
		challenge := resp.Header.Values("WWW-Authenticate")
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden && len(challenge) > 0 {
			r.saw401.Store(true)
			if cs, err := oauthex.ParseWWWAuthenticate(challenge); err == nil {
				for _, c := range cs {
					if sc := c.Params["scope"]; sc != "" {
						r.scope.Store(sc)
					}
				}
			}
		}
	}
	return resp, err
}

// explain names a 401 (or a 403 challenge) as needing `aidex mcp login`.
func (r *statusRecorder) explain(err error) error {
	if r == nil || err == nil || !r.saw401.Load() {
		return err
	}
	scope, _ := r.scope.Load().(string)
	return &unauthorizedError{server: r.name, scope: scope}
}

type unauthorizedError struct{ server, scope string }

func (e *unauthorizedError) Error() string {
	if e.scope != "" {
		return fmt.Sprintf("needs authorisation (the server asks for scope %q): run `aidex mcp login %s`", e.scope, e.server)
	}
	return fmt.Sprintf("needs authorisation: run `aidex mcp login %s`", e.server)
}

func isUnauthorized(err error) bool {
	var u *unauthorizedError
	return errors.As(err, &u)
}

// stderrLog appends a stdio server's stderr to its log file and keeps the last
// non-empty line for failure reports.
type stderrLog struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	partial []byte
	last    string
}

func newStderrLog(dir, name string) *stderrLog {
	l := &stderrLog{}
	if dir == "" {
		return l
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return l
	}
	l.path = filepath.Join(dir, "mcp-"+name+".log")
	if f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		l.f = f
		fmt.Fprintf(f, "--- %s: starting %s\n", time.Now().Format(time.RFC3339), name)
	}
	return l
}

// Write implements io.Writer; it never fails.
func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_, _ = l.f.Write(p)
	}
	l.partial = append(l.partial, p...)
	sc := bufio.NewScanner(bytes.NewReader(l.partial))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			l.last = t
		}
	}
	if i := bytes.LastIndexByte(l.partial, '\n'); i >= 0 {
		l.partial = append(l.partial[:0], l.partial[i+1:]...)
	}
	if len(l.partial) > 4096 {
		l.partial = l.partial[len(l.partial)-4096:]
	}
	return len(p), nil
}

// LastLine returns the last non-empty line written.
func (l *stderrLog) LastLine() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.last) > 200 {
		return l.last[:200] + "..."
	}
	return l.last
}

// Path returns the log file ("" when stderr is not logged).
func (l *stderrLog) Path() string { return l.path }

// Close closes the log file.
func (l *stderrLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

var _ io.Writer = (*stderrLog)(nil)
