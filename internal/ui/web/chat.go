package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
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
// response and, through the host, to the session's followers. The run
// belongs to the host, not to the request: when the page goes away (a
// reload) while an approval or question waits, the run waits for it to
// be answered from a page that comes back (approval_timeout, then it is
// denied); without one waiting, the run is cancelled as before.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, req ChatRequest) {
	parts, err := s.messageParts(r.Context(), req)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var sw *sse
	sink := func(name string, v any) {
		if sw != nil {
			sw.event(name, v)
		}
	}
	ls, run, status, err := s.startRun(r.Context(), req.SessionID, app.RunOptions{Sink: sink, Watched: true})
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	defer run.End()
	stop := context.AfterFunc(r.Context(), run.Detach)
	defer stop()
	s.adoptUploads(ls.sess.ID, req.Attachments)
	ctx := run.Context()
	sw = newSSE(w)
	if s.runBuiltin(ctx, ls, sw, req.Message) {
		return
	}
	parts, ok := s.expandChat(ctx, ls, req.Message, parts, run.Emit)
	if !ok {
		return
	}
	done, err := ls.live.Run(ctx, parts, run.Emit)
	if done == nil {
		// The engine refused before starting (busy): end the stream cleanly.
		msg := "the run did not start"
		if err != nil {
			msg = err.Error()
		}
		run.Emit(agent.Event{Type: agent.EventError, SessionID: ls.sess.ID, Error: &agent.ErrorInfo{Message: msg, Kind: "engine", Fatal: true}})
		run.Emit(agent.Event{Type: agent.EventDone, SessionID: ls.sess.ID, Done: &agent.DoneInfo{StopReason: agent.StopError}})
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
func (s *Server) expandChat(ctx context.Context, ls *liveSession, msg string, parts []llm.Part, emit func(agent.Event)) ([]llm.Part, bool) {
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
		ls.hs.Publish("notice", map[string]string{"text": x.Notice})
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
// starts a run of it in the host (o) and makes sure it has an engine for
// the current runtime. The status is the HTTP status for the error: 404
// unknown session, 409 a run already going, 429 too many runs. End the
// run when done.
func (s *Server) startRun(ctx context.Context, id string, o app.RunOptions) (*liveSession, *app.Run, int, error) {
	hs, err := s.liveFor(ctx, id)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return nil, nil, http.StatusNotFound, err
		}
		return nil, nil, http.StatusInternalServerError, err
	}
	run, err := hs.Start(context.WithoutCancel(ctx), o)
	switch {
	case errors.Is(err, app.ErrRunning):
		return nil, nil, http.StatusConflict, fmt.Errorf("session %s already has a run in progress: wait for it or stop it (POST /api/v1/sessions/%s/cancel)", hs.ID(), hs.ID())
	case errors.Is(err, app.ErrTooManyRuns):
		return nil, nil, http.StatusTooManyRequests, fmt.Errorf("too many chats at once (%d): wait for one to finish", s.opts.MaxRuns)
	case err != nil:
		return nil, nil, http.StatusServiceUnavailable, err
	}
	if _, err := hs.Prepare(ctx); err != nil {
		run.End()
		return nil, nil, http.StatusBadRequest, err
	}
	return view(hs), run, 0, nil
}

// liveFor returns the host's live session for id ("" = current, created
// when there is none), loading it from the store when needed.
func (s *Server) liveFor(ctx context.Context, id string) (*app.HostSession, error) {
	s.mu.Lock()
	if id == "" {
		id = s.current
	}
	s.mu.Unlock()
	hs, err := s.host.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.current == "" || s.current == id {
		s.current = hs.ID()
	}
	s.mu.Unlock()
	return hs, nil
}

// stopSession cancels session id's run ("" = current) and reports
// whether one was going, with the id.
func (s *Server) stopSession(id string) (bool, string) {
	s.mu.Lock()
	if id == "" {
		id = s.current
	}
	s.mu.Unlock()
	hs := s.host.Get(id)
	return hs != nil && hs.Cancel(), id
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
	stopped, id := s.stopSession(req.SessionID)
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
func (s *sse) event(name string, v any) { s.eventID(0, name, v) }

// eventID writes one event with its id line ("id: SEQ"; none for 0).
func (s *sse) eventID(id uint64, name string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Reset()
	if id != 0 {
		s.buf.WriteString("id: ")
		s.buf.Write(strconv.AppendUint(s.buf.AvailableBuffer(), id, 10))
		s.buf.WriteByte('\n')
	}
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

// pendingView is one waiting approval request in GET /api/approvals.
type pendingView = app.PendingApproval

// handleApproval answers an approval: POST /api/approvals/{id}
// {"decision": "once"|"session"|"always"|"deny", "reason": "...",
// "session_id": "..."}.
func (s *answersAPI) handleApproval(w http.ResponseWriter, r *http.Request) {
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
	if err := s.host.Approve(req.SessionID, r.PathValue("id"), d, req.Reason); err != nil {
		writeError(w, hostStatus(err), err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "decision": d})
}

// handleApprovalsList lists the waiting approval requests (for a second
// tab): GET /api/approvals.
func (s *answersAPI) handleApprovalsList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"approvals": s.host.Approvals()})
}

// hostStatus is the HTTP status of an error of the host's answers.
func hostStatus(err error) int {
	switch {
	case errors.Is(err, app.ErrNotWaiting):
		return http.StatusNotFound
	case errors.Is(err, app.ErrAmbiguous):
		return http.StatusConflict
	case errors.Is(err, app.ErrBadToken):
		return http.StatusForbidden
	case errors.Is(err, app.ErrExpired):
		return http.StatusGone
	case errors.Is(err, agent.ErrBadAnswer):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
