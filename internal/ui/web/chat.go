package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
)

// Attachment limits for files dropped into the chat: each at most 2 MiB,
// at most 8 per message. They are sent to the model as message parts and
// kept in the session; nothing is written to disk.
const (
	maxAttachmentBytes = 2 << 20
	maxAttachments     = 8
)

// ChatRequest is the body of POST /api/chat: the user's message, the
// session to use ("" for the page's current session, created when there is
// none) and files attached to the message.
type ChatRequest struct {
	Message     string       `json:"message"`
	SessionID   string       `json:"session_id,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
	// Stream false asks for one JSON answer (ChatResult) instead of the
	// SSE stream, as Accept: application/json does.
	Stream *bool `json:"stream,omitempty"`
}

// Attachment is a file attached to a chat message: its name, MIME type
// and content, as text (Text) or base64 bytes (Data). Images become image
// parts; anything else is added as text.
type Attachment struct {
	Name string `json:"name"`
	MIME string `json:"mime,omitempty"`
	Text string `json:"text,omitempty"`
	Data string `json:"data,omitempty"`
	// Upload names a file stored by POST /api/upload (its ID) instead of
	// Text or Data: it is loaded as documents and images are (PDF, DOCX,
	// XLSX, … as text; images as image parts).
	Upload string `json:"upload,omitempty"`
}

// handleChat runs one chat turn and streams its events as SSE, or answers
// with one ChatResult when the client asks for JSON (see wantsJSON).
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req ChatRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if wantsJSON(r, req.Stream) {
		s.chatJSON(w, r, req)
		return
	}
	s.chat(w, r, req)
}

// chat runs the chat turn req and streams its events as SSE, to the
// response and to the session's event subscribers.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, req ChatRequest) {
	parts, err := s.messageParts(r.Context(), req)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ls, release, status, err := s.startRun(r.Context(), req.SessionID)
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	defer release()
	s.adoptUploads(ls.sess.ID, req.Attachments)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s.mu.Lock()
	ls.cancel = cancel
	s.mu.Unlock()

	sw := newSSE(w)
	emit := func(e agent.Event) {
		if e.Type == agent.EventApproval && e.Approval != nil && e.Approval.Answer == "" {
			s.approvals.open(ls.sess.ID, *e.Approval)
		}
		var v any = e
		if e.Type == agent.EventInteraction {
			v = s.interactionEvent(ls.sess.ID, e)
		}
		sw.event(string(e.Type), v)
		ls.subs.publish(string(e.Type), v)
	}
	if s.runBuiltin(ctx, ls, sw, req.Message) {
		return
	}
	s.mu.Lock()
	ls.send = func(name string, v any) {
		sw.event(name, v)
		ls.subs.publish(name, v)
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		ls.send = nil
		s.mu.Unlock()
	}()
	parts, ok := s.expandChat(ctx, ls, sw, req.Message, parts, emit)
	if !ok {
		return
	}
	done, err := ls.live.Run(ctx, parts, emit)
	if done == nil {
		// The engine refused before starting (busy): end the stream cleanly.
		msg := "the run did not start"
		if err != nil {
			msg = err.Error()
		}
		emit(agent.Event{Type: agent.EventError, SessionID: ls.sess.ID, Error: &agent.ErrorInfo{Message: msg, Kind: "engine", Fatal: true}})
		emit(agent.Event{Type: agent.EventDone, SessionID: ls.sess.ID, Done: &agent.DoneInfo{StopReason: agent.StopError}})
	}
}

// runBuiltin runs a message that is one of the web chat's built-in slash
// commands (or a refused one, see slash.go) instead of sending it to the
// model: the stream gets a "command" event (CommandEvent) and done, or a
// non-fatal error event (kind "command") and done with stop_reason
// "error". It reports whether the message was such a command.
func (s *Server) runBuiltin(ctx context.Context, ls *liveSession, sw *sse, msg string) bool {
	ev, handled, err := s.builtinCommand(ctx, ls, msg)
	if !handled {
		return false
	}
	stop := agent.StopDone
	if err != nil {
		stop = agent.StopError
		sw.event(string(agent.EventError), agent.Event{Type: agent.EventError, SessionID: ls.sess.ID, Error: &agent.ErrorInfo{Message: err.Error(), Kind: "command"}})
	} else {
		sw.event("command", ev)
	}
	sw.event(string(agent.EventDone), agent.Event{Type: agent.EventDone, SessionID: ls.sess.ID, Done: &agent.DoneInfo{StopReason: stop}})
	return true
}

// expandChat expands a message that starts with a custom slash command
// ("/review main.go"), server-side: its text part (the last of parts)
// becomes the expansion, and the expansion's notice goes out as a
// "notice" event ({"text": ...}). Other messages keep their parts. A
// failed expansion ends the stream with a fatal error event and done;
// ok is then false.
func (s *Server) expandChat(ctx context.Context, ls *liveSession, sw *sse, msg string, parts []llm.Part, emit func(agent.Event)) ([]llm.Part, bool) {
	if !strings.HasPrefix(strings.TrimSpace(msg), "/") {
		return parts, true
	}
	x, err := ls.live.Expand(ctx, msg, emit)
	if err != nil {
		emit(agent.Event{Type: agent.EventError, SessionID: ls.sess.ID, Error: &agent.ErrorInfo{Message: err.Error(), Kind: "command", Fatal: true}})
		emit(agent.Event{Type: agent.EventDone, SessionID: ls.sess.ID, Done: &agent.DoneInfo{StopReason: agent.StopError}})
		return nil, false
	}
	if x == nil {
		return parts, true
	}
	if x.Notice != "" {
		sw.event("notice", map[string]string{"text": x.Notice})
		ls.subs.publish("notice", map[string]string{"text": x.Notice})
	}
	out := append([]llm.Part(nil), parts[:len(parts)-1]...)
	return append(out, llm.Part{Type: llm.PartText, Text: x.Text}), true
}

// messageParts turns a chat request into the user message's parts.
func (s *Server) messageParts(ctx context.Context, req ChatRequest) ([]llm.Part, error) {
	if strings.TrimSpace(req.Message) == "" && len(req.Attachments) == 0 {
		return nil, errors.New("the message is empty: send {\"message\": \"...\"}")
	}
	if len(req.Attachments) > maxAttachments {
		return nil, fmt.Errorf("too many attachments (%d): at most %d per message", len(req.Attachments), maxAttachments)
	}
	var parts []llm.Part
	for _, a := range req.Attachments {
		if a.Upload != "" {
			ps, err := s.uploadParts(ctx, a.Upload)
			if err != nil {
				return nil, err
			}
			parts = append(parts, ps...)
			continue
		}
		p, err := attachmentPart(a)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	if strings.TrimSpace(req.Message) != "" {
		parts = append(parts, llm.Part{Type: llm.PartText, Text: req.Message})
	}
	return parts, nil
}

func attachmentPart(a Attachment) (llm.Part, error) {
	name := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, a.Name)
	if name == "" {
		name = "attachment"
	}
	data := []byte(a.Text)
	if a.Data != "" {
		var err error
		if data, err = base64.StdEncoding.DecodeString(a.Data); err != nil {
			return llm.Part{}, fmt.Errorf("attachment %s: data is not base64: %v", name, err)
		}
	}
	if len(data) > maxAttachmentBytes {
		return llm.Part{}, fmt.Errorf("attachment %s is %d bytes: the limit is %d MiB per file", name, len(data), maxAttachmentBytes>>20)
	}
	switch a.MIME {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return llm.Part{Type: llm.PartImage, MIMEType: a.MIME, Data: data}, nil
	}
	if !utf8.Valid(data) {
		return llm.Part{}, fmt.Errorf("attachment %s is not text (nor a PNG, JPEG, GIF or WebP image)", name)
	}
	return llm.Part{Type: llm.PartText, Text: fmt.Sprintf("Attached file %s:\n\n```\n%s\n```", name, data)}, nil
}

// startRun picks the session (id, else the current one, else a new one),
// makes sure it has an engine for the current runtime and marks it
// running. The status is the HTTP status for the error: 404 unknown
// session, 409 a run already going, 429 too many runs.
func (s *Server) startRun(ctx context.Context, id string) (*liveSession, func(), int, error) {
	ls, err := s.liveFor(ctx, id)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return nil, nil, http.StatusNotFound, err
		}
		return nil, nil, http.StatusInternalServerError, err
	}
	s.mu.Lock()
	if ls.running {
		s.mu.Unlock()
		return nil, nil, http.StatusConflict, fmt.Errorf("session %s already has a run in progress: wait for it or stop it (POST /api/v1/sessions/%s/cancel)", ls.sess.ID, ls.sess.ID)
	}
	if s.runs >= s.opts.MaxRuns {
		s.mu.Unlock()
		return nil, nil, http.StatusTooManyRequests, fmt.Errorf("too many chats at once (%d): wait for one to finish", s.opts.MaxRuns)
	}
	ls.running = true
	s.runs++
	s.running.Add(1)
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		ls.running, ls.cancel = false, nil
		s.runs--
		s.mu.Unlock()
		s.running.Done()
	}
	if err := s.prepare(ctx, ls); err != nil {
		release()
		return nil, nil, http.StatusBadRequest, err
	}
	return ls, release, 0, nil
}

// prepare gives a session its app.Session (web confinement, the web
// approver) on its first run, or rebuilds its engine when a switch
// changed the runtime since.
func (s *Server) prepare(ctx context.Context, ls *liveSession) error {
	if ls.live != nil {
		return ls.live.Refresh(ctx)
	}
	live, err := s.svc.Session(ctx, ls.sess, app.SessionOptions{Web: true,
		Approver: &webApprover{a: &s.approvals, session: ls.sess.ID},
		Asker:    &webAsker{x: &s.interactions, session: ls.sess.ID},
		Chooser:  &webChooser{s: s, session: ls.sess.ID}})
	if err != nil {
		return err
	}
	s.mu.Lock()
	ls.live = live
	s.mu.Unlock()
	return nil
}

// liveFor returns the live session for id ("" = current, created when
// there is none), loading it from the store when needed.
func (s *Server) liveFor(ctx context.Context, id string) (*liveSession, error) {
	s.mu.Lock()
	if id == "" {
		id = s.current
	}
	if ls := s.live[id]; id != "" && ls != nil {
		s.mu.Unlock()
		return ls, nil
	}
	s.mu.Unlock()
	var sess *agent.Session
	var err error
	if id == "" {
		sess, err = s.svc.Pick(ctx, "", false)
	} else {
		sess, err = s.svc.Store().Load(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls := s.live[sess.ID]; ls != nil {
		return ls, nil
	}
	ls := &liveSession{sess: sess}
	s.live[sess.ID] = ls
	if s.current == "" || s.current == id {
		s.current = sess.ID
	}
	return ls, nil
}

// handleChatStop cancels a session's run: POST /api/chat/stop
// {"session_id": ID} ("" = current session).
func (s *Server) handleChatStop(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SessionID string `json:"session_id"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	s.mu.Lock()
	id := req.SessionID
	if id == "" {
		id = s.current
	}
	ls := s.live[id]
	stopped := ls != nil && ls.running && ls.cancel != nil
	if stopped {
		ls.cancel()
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"stopped": stopped, "session_id": id})
}

// sse writes Server-Sent Events; safe for concurrent use (the engine
// reports parallel tool results from several goroutines).
type sse struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf bytes.Buffer  // the event being written, reused
	enc *json.Encoder // encodes into buf
}

func newSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, rc: http.NewResponseController(w)}
	s.enc = json.NewEncoder(&s.buf)
	_ = s.rc.Flush()
	return s
}

// event writes one event: "event: NAME\ndata: JSON\n\n". JSON never
// contains a raw newline, so one data line suffices. The event is encoded
// into the stream's reused buffer and written in one call (no copy of the
// JSON, no formatting): a chat stream writes an event per text chunk.
func (s *sse) event(name string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Reset()
	s.buf.WriteString("event: ")
	s.buf.WriteString(name)
	s.buf.WriteString("\ndata: ")
	if s.enc.Encode(v) != nil { // Encode ends the JSON with a newline
		return
	}
	s.buf.WriteByte('\n')
	_, _ = s.w.Write(s.buf.Bytes())
	_ = s.rc.Flush()
	if s.buf.Cap() > maxKeptEventBuffer {
		s.buf = bytes.Buffer{} // a large tool result: do not keep its buffer
	}
}

// maxKeptEventBuffer is the largest event buffer (bytes) an SSE stream
// keeps for its next event.
const maxKeptEventBuffer = 64 << 10

// approvals holds the approval requests waiting for an answer, by session
// and approval id.
type approvals struct {
	mu      sync.Mutex
	pending map[string]*pendingApproval
}

type pendingApproval struct {
	session string
	info    agent.ApprovalInfo
	answer  chan approvalAnswer
	// answered is set when the answer was sent; the waiting Approve (which
	// may not have started waiting yet) removes the entry.
	answered bool
}

type approvalAnswer struct {
	decision agent.Answer
	reason   string
}

func approvalKey(session, id string) string { return session + "\x00" + id }

// open registers a request (before the page can see it, so an answer
// never arrives before its request exists).
func (a *approvals) open(session string, info agent.ApprovalInfo) *pendingApproval {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := approvalKey(session, info.ID)
	if p := a.pending[k]; p != nil {
		return p
	}
	p := &pendingApproval{session: session, info: info, answer: make(chan approvalAnswer, 1)}
	a.pending[k] = p
	return p
}

func (a *approvals) remove(session, id string) {
	a.mu.Lock()
	delete(a.pending, approvalKey(session, id))
	a.mu.Unlock()
}

// answer delivers a decision to the request with approval id (in session,
// when given). Errors: no such pending request (404), or the id is pending
// in several sessions and none was named (409).
func (a *approvals) answer(session, id string, ans approvalAnswer) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var found []string
	for k, p := range a.pending {
		if !p.answered && p.info.ID == id && (session == "" || p.session == session) {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return http.StatusNotFound, fmt.Errorf("no approval %q is waiting (already answered, or its run ended)", id)
	case 1:
	default:
		return http.StatusConflict, fmt.Errorf("approval %q is waiting in several sessions: add \"session_id\"", id)
	}
	p := a.pending[found[0]]
	p.answered = true
	p.answer <- ans
	return http.StatusOK, nil
}

func (a *approvals) list() []pendingView {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]pendingView, 0, len(a.pending))
	for _, p := range a.pending {
		if !p.answered {
			out = append(out, pendingView{SessionID: p.session, Approval: p.info})
		}
	}
	return out
}

// pendingView is one waiting approval request in GET /api/approvals.
type pendingView struct {
	SessionID string             `json:"session_id"`
	Approval  agent.ApprovalInfo `json:"approval"`
}

// webApprover answers a session's approval requests with the decisions
// posted to /api/approvals/{id}. The request itself reaches the page as
// the engine's approval event (registered by the chat's emit).
type webApprover struct {
	a       *approvals
	session string
}

// Approve waits for the page's answer or for ctx (the chat request: a
// closed tab ends the wait). Errors: ctx's error.
func (w *webApprover) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	p := w.a.open(w.session, req)
	defer w.a.remove(w.session, req.ID)
	select {
	case ans := <-p.answer:
		return ans.decision, ans.reason, nil
	case <-ctx.Done():
		return agent.AnswerDeny, "", ctx.Err()
	}
}

// handleApproval answers an approval: POST /api/approvals/{id}
// {"decision": "once"|"session"|"always"|"deny", "reason": "...",
// "session_id": "..."}.
func (s *Server) handleApproval(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Decision  string `json:"decision"`
		Reason    string `json:"reason"`
		SessionID string `json:"session_id"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	d := agent.Answer(req.Decision)
	switch d {
	case agent.AnswerOnce, agent.AnswerSession, agent.AnswerAlways, agent.AnswerDeny:
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("decision must be once, session, always or deny, not %q", req.Decision))
		return
	}
	status, err := s.approvals.answer(req.SessionID, r.PathValue("id"), approvalAnswer{decision: d, reason: req.Reason})
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "decision": d})
}

// handleApprovalsList lists the waiting approval requests (for a second
// tab): GET /api/approvals.
func (s *Server) handleApprovalsList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"approvals": s.approvals.list()})
}

var _ agent.Approver = (*webApprover)(nil)
