package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// server is one configured server and its live connection.
type server struct {
	cfg config.MCPServer
	m   *Manager
	// turn holds a token while a tool call runs on a server without
	// supports_parallel_tool_calls: one call at a time (capacity 1).
	turn chan struct{}

	mu        sync.Mutex
	state     State
	err       error
	sess      *sdk.ClientSession
	group     *proc.Group // a stdio server's process group (a Job Object on Windows)
	stderr    *stderrLog
	dead      bool // the connection ended (a crash): restart on the next call
	restarted bool // restarted once already
	tools     []*sdk.Tool
	prompts   []*sdk.Prompt
	progress  map[any]string // progress token -> tool name
	// progressMu is held while a progress notification is reported and
	// while a call's token is removed, so that no progress is reported
	// after its call ended (the SDK may deliver a notification late).
	progressMu sync.Mutex
	// rec records a remote server's HTTP answers (an authorisation challenge).
	rec *statusRecorder
	// cancelConn ends a remote server's connection context (its event streams).
	cancelConn context.CancelFunc
	started    time.Time
	ready      time.Time
}

func (s *server) startupTimeout() time.Duration { return StartupTimeout(s.cfg) }

// StartupTimeout is how long a server's start (process or connection,
// initialize and the first tools/list) may take: its startup_timeout_sec, else
// [DefaultPackageRunnerStartupTimeout] for a stdio server started through a
// package runner (npx, npm exec, pnpm dlx, yarn dlx, bunx, uvx, pipx run),
// which may first download and install its package, else
// [DefaultStartupTimeout].
func StartupTimeout(c config.MCPServer) time.Duration {
	switch {
	case c.StartupTimeoutSec > 0:
		return time.Duration(c.StartupTimeoutSec * float64(time.Second))
	case packageRunner(c.Command, c.Args):
		return DefaultPackageRunnerStartupTimeout
	}
	return DefaultStartupTimeout
}

// packageRunner reports whether command with args runs a package it may have
// to install first.
func packageRunner(command string, args []string) bool {
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	for _, ext := range []string{".cmd", ".exe", ".bat", ".ps1"} {
		base = strings.TrimSuffix(base, ext)
	}
	first := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			first = a
			break
		}
	}
	switch base {
	case "npx", "pnpx", "bunx", "uvx":
		return true
	case "npm", "bun":
		return first == "exec" || first == "x"
	case "pnpm", "yarn":
		return first == "dlx"
	case "pipx":
		return first == "run"
	}
	return false
}

func (s *server) toolTimeout() time.Duration {
	if s.cfg.ToolTimeoutSec > 0 {
		return time.Duration(s.cfg.ToolTimeoutSec * float64(time.Second))
	}
	return DefaultToolTimeout
}

// start connects and lists the tools, within the startup timeout.
func (s *server) start(ctx context.Context) {
	s.mu.Lock()
	s.started = time.Now()
	s.mu.Unlock()
	done := s.watchStart()
	err := s.connect(ctx)
	done(err)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ready = time.Now()
	if err != nil {
		s.state, s.err = StateFailed, err
		return
	}
	s.state, s.err = StateReady, nil
}

// connect starts (or reaches) the server, initialises the session and lists its
// tools and prompts. On failure everything it started is stopped.
func (s *server) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.startupTimeout())
	defer cancel()
	sess, group, err := s.open(ctx)
	if err != nil {
		return s.explain(ctx, err)
	}
	tools, err := listTools(ctx, sess)
	if err != nil {
		_ = s.closeSession(sess, group)
		return s.explain(ctx, s.challenged(fmt.Errorf("list tools: %w", err)))
	}
	var prompts []*sdk.Prompt
	if caps := sess.InitializeResult(); caps != nil && caps.Capabilities != nil && caps.Capabilities.Prompts != nil {
		prompts, _ = listPrompts(ctx, sess)
	}
	s.mu.Lock()
	s.sess, s.group, s.tools, s.prompts, s.dead = sess, group, tools, prompts, false
	s.mu.Unlock()
	s.m.gen.Add(1)
	go s.watch(sess)
	return nil
}

// watch marks the server dead when its connection ends on its own.
func (s *server) watch(sess *sdk.ClientSession) {
	_ = sess.Wait()
	s.mu.Lock()
	if s.sess == sess {
		s.dead = true
	}
	s.mu.Unlock()
}

// open connects over the configured transport.
func (s *server) open(ctx context.Context) (*sdk.ClientSession, *proc.Group, error) {
	client := s.m.clientFor(s)
	if s.cfg.TransportName() == "stdio" {
		t := s.stdioTransport()
		sess, err := client.Connect(ctx, t, nil)
		if err != nil {
			killGroup(t.group)
			return nil, nil, err
		}
		return sess, t.group, nil
	}
	sess, err := s.connectHTTP(ctx, client)
	return sess, nil, err
}

// explain turns a start-up error into the one line shown to the user.
func (s *server) explain(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within the startup timeout of %s (raise startup_timeout_sec in %s)", s.startupTimeout(), s.cfg.Source)
		if packageRunner(s.cfg.Command, s.cfg.Args) {
			err = fmt.Errorf("%w; %s may still be installing the package: run `%s` once in a terminal so that it is cached",
				err, s.cfg.Command, strings.Join(append([]string{s.cfg.Command}, s.cfg.Args...), " "))
		}
	}
	if isUnauthorized(err) {
		return fmt.Errorf("needs authorisation: run `aidex mcp login %s`", s.cfg.Name)
	}
	return err
}

// challenged names a failed request of a remote server that answered with an
// authorisation challenge as needing `aidex mcp login` (step-up
// authorization: a server may accept initialize anonymously and ask later).
func (s *server) challenged(err error) error {
	s.mu.Lock()
	rec := s.rec
	s.mu.Unlock()
	return rec.explain(err)
}

// failure is the cause of a failed start with the last stderr line. Hold s.mu.
func (s *server) failure() string {
	msg := oneLine(s.err.Error())
	if s.stderr != nil {
		if last := s.stderr.LastLine(); last != "" {
			msg += fmt.Sprintf(" (last stderr line: %q)", last)
		}
	}
	return msg
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

// session returns the live session, restarting a crashed stdio server once.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	sess, dead, state := s.sess, s.dead, s.state
	s.mu.Unlock()
	switch {
	case state == StateDisabled:
		return nil, fmt.Errorf("MCP server %s is disabled (enabled = false in %s)", s.cfg.Name, s.cfg.Source)
	case sess != nil && !dead:
		return sess, nil
	case state == StateFailed && sess == nil:
		s.mu.Lock()
		defer s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %s is not running: %s", s.cfg.Name, s.failure())
	}
	return s.restart(ctx)
}

// restart starts a crashed server again, once per session.
func (s *server) restart(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	if s.restarted {
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %s stopped and was already restarted once; see its log %s", s.cfg.Name, s.logPath())
	}
	s.restarted = true
	old, group := s.sess, s.group
	s.sess, s.group = nil, nil
	s.mu.Unlock()
	if old != nil {
		_ = s.closeSession(old, group)
	}
	if err := s.connect(ctx); err != nil {
		s.mu.Lock()
		s.state, s.err = StateFailed, err
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %s stopped and could not be restarted: %w", s.cfg.Name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.err = StateReady, nil
	return s.sess, nil
}

func (s *server) close() error {
	s.mu.Lock()
	sess, group := s.sess, s.group
	s.sess, s.group, s.dead = nil, nil, true
	s.mu.Unlock()
	var err error
	if sess != nil {
		err = s.closeSession(sess, group)
	}
	if s.stderr != nil {
		_ = s.stderr.Close()
	}
	return err
}

// closeSession closes a session; a stdio server's process group is killed after a
// short grace period (a server's own children included).
func (s *server) closeSession(sess *sdk.ClientSession, group *proc.Group) error {
	done := make(chan error, 1)
	go func() { done <- sess.Close() }()
	select {
	case err := <-done:
		killGroup(group)
		s.endConn()
		if group != nil || isClosedErr(err) {
			return nil // a stdio server's exit status after the close is no error of use
		}
		return err
	case <-time.After(2 * time.Second):
		killGroup(group)
		s.endConn()
		<-done
		return nil
	}
}

func (s *server) endConn() {
	s.mu.Lock()
	cancel := s.cancelConn
	s.cancelConn = nil
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func isClosedErr(err error) bool {
	return err == nil || errors.Is(err, sdk.ErrConnectionClosed)
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	st := ServerStatus{Name: s.cfg.Name, Transport: s.cfg.TransportName(), State: s.state, Source: s.cfg.Source,
		Started: s.started, Ready: s.ready}
	if s.state == StateFailed {
		st.Error = s.failure()
	}
	for _, p := range s.prompts {
		st.Prompts = append(st.Prompts, ToolName(s.cfg.Name, p.Name))
	}
	s.mu.Unlock()
	st.Tools = s.toolInfos()
	for _, t := range st.Tools {
		st.DefinitionTokens += t.Tokens()
	}
	return st
}

func (s *server) logPath() string {
	if s.stderr == nil {
		return "(no log)"
	}
	return s.stderr.Path()
}

func (s *server) progressTool(token any) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.progress[token]
	return t, ok
}

func (s *server) refreshTools(ctx context.Context) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.startupTimeout())
	defer cancel()
	tools, err := listTools(ctx, sess)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.tools = tools
	s.mu.Unlock()
	s.m.gen.Add(1)
}

func (s *server) refreshPrompts(ctx context.Context) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.startupTimeout())
	defer cancel()
	if prompts, err := listPrompts(ctx, sess); err == nil {
		s.mu.Lock()
		s.prompts = prompts
		s.mu.Unlock()
	}
}

func listTools(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func listPrompts(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Prompt, error) {
	var out []*sdk.Prompt
	for p, err := range sess.Prompts(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// waitBriefly bounds how long a failed call waits to learn whether the
// connection ended.
func (s *server) waitBriefly() <-chan time.Time { return time.After(500 * time.Millisecond) }
