package web

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"
)

// streamStartTTL is how long a token of POST /stream/start stays valid.
const streamStartTTL = time.Minute

// maxStreamStarts bounds the tokens waiting for their GET /stream.
const maxStreamStarts = 64

// streamStarts are the chat requests of POST /api/v1/stream/start waiting
// for their GET /api/v1/stream?token=T (iptic-memex's two-step stream for
// EventSource, which cannot POST): each token is random, single-use and
// expires after a minute. The token only names the request; both calls
// are authenticated as every API call is, and the message never goes
// into a URL.
type streamStarts struct {
	mu sync.Mutex
	m  map[string]streamStart
}

type streamStart struct {
	req ChatRequest
	at  time.Time
}

// put stores req and returns its token; false when too many wait.
func (ss *streamStarts) put(req ChatRequest, now time.Time) (string, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for tok, st := range ss.m {
		if now.Sub(st.at) > streamStartTTL {
			delete(ss.m, tok)
		}
	}
	if len(ss.m) >= maxStreamStarts {
		return "", false
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	tok := hex.EncodeToString(b)
	if ss.m == nil {
		ss.m = map[string]streamStart{}
	}
	ss.m[tok] = streamStart{req: req, at: now}
	return tok, true
}

// take removes and returns the request of tok, when it has not expired.
func (ss *streamStarts) take(tok string, now time.Time) (ChatRequest, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st, ok := ss.m[tok]
	delete(ss.m, tok)
	if !ok || now.Sub(st.at) > streamStartTTL {
		return ChatRequest{}, false
	}
	return st.req, true
}

// handleStreamStart keeps a chat request for GET /stream and answers its
// token: {"token": T, "stream_url": "/api/v1/stream?token=T"}.
func (s *Server) handleStreamStart(w http.ResponseWriter, r *http.Request) {
	var req ChatRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if strings.TrimSpace(req.Message) == "" && len(req.Attachments) == 0 {
		writeError(w, http.StatusBadRequest, `the message is empty: POST {"message": "..."}`)
		return
	}
	tok, ok := s.streams.put(req, time.Now())
	if !ok {
		writeError(w, http.StatusTooManyRequests, "too many streams started and not opened: open them (GET /api/v1/stream?token=T) or wait a minute")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": tok, "stream_url": APIPrefix + "/stream?token=" + tok})
}

// handleStream runs the chat request a POST /stream/start token names and
// streams it as POST /chat does.
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) {
	req, ok := s.streams.take(r.URL.Query().Get("token"), time.Now())
	if !ok {
		writeError(w, http.StatusNotFound, "unknown or expired stream token: POST /api/v1/stream/start first (a token is good for one stream, for a minute), or POST /api/v1/chat to stream directly")
		return
	}
	s.chat(w, r, req)
}
