package conformance

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// stdioBridge serves streamable HTTP for the suite and speaks stdio to one
// `aidex mcp serve` per HTTP session (started by its initialize): a
// request's SSE stream carries what aidex sends until its response, a
// notification or response is passed on (202), GET is the stream for
// what aidex sends outside a request, DELETE ends the session. It is the
// smallest transport that lets the suite's server mode (a URL only)
// drive aidex over stdio; HTTP-only scenarios over it test the bridge.
type stdioBridge struct {
	t    *testing.T
	args []string // aidex's arguments (mcp serve -w WS)
	env  []string

	mu       sync.Mutex
	sessions map[string]*stdioSession // by Mcp-Session-Id
	all      []*stdioSession          // every aidex started
}

// stdioSession is one `aidex mcp serve` process and the streams waiting
// for what it sends.
type stdioSession struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr *bytes.Buffer // read after the process ended

	mu      sync.Mutex
	waiting map[string]chan json.RawMessage // request id: its stream
	order   []string                        // ids of open request streams, oldest first
	get     chan json.RawMessage            // the GET stream (nil: none)
}

// envelope is what the bridge reads of a JSON-RPC message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (b *stdioBridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		b.post(w, r)
	case http.MethodGet:
		s := b.session(r)
		if s == nil {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		ch := make(chan json.RawMessage, 64)
		s.mu.Lock()
		s.get = ch
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.get = nil; s.mu.Unlock() }()
		stream(w, r, ch, "")
	case http.MethodDelete:
		if s := b.session(r); s != nil {
			b.mu.Lock()
			delete(b.sessions, r.Header.Get("Mcp-Session-Id"))
			b.mu.Unlock()
			s.close()
		}
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (b *stdioBridge) session(r *http.Request) *stdioSession {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sessions[r.Header.Get("Mcp-Session-Id")]
}

func (b *stdioBridge) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	var env envelope
	if err != nil || json.Unmarshal(body, &env) != nil {
		http.Error(w, "the bridge takes one JSON-RPC message per POST", http.StatusBadRequest)
		return
	}
	s := b.session(r)
	if env.Method == "initialize" {
		if s, err = b.start(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		id := make([]byte, 16)
		_, _ = rand.Read(id)
		sid := hex.EncodeToString(id)
		b.mu.Lock()
		b.sessions[sid] = s
		b.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", sid)
	}
	if s == nil {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	if env.Method == "" || len(env.ID) == 0 { // a notification or a response
		_ = s.send(body)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	key := string(env.ID)
	ch := make(chan json.RawMessage, 64)
	s.mu.Lock()
	s.waiting[key] = ch
	s.order = append(s.order, key)
	s.mu.Unlock()
	defer s.forget(key)
	if err := s.send(body); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	stream(w, r, ch, key)
}

// stream writes the messages of ch as SSE events until the response with
// id (never, for "": the GET stream) or the client leaves.
func stream(w http.ResponseWriter, r *http.Request, ch chan json.RawMessage, id string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
			_ = rc.Flush()
			var env envelope
			if id != "" && json.Unmarshal(msg, &env) == nil && env.Method == "" && string(env.ID) == id {
				return
			}
		}
	}
}

// start runs `aidex mcp serve` (this test binary as aidex) and routes
// what it writes.
func (b *stdioBridge) start() (*stdioSession, error) {
	cmd := exec.Command(os.Args[0], b.args...)
	cmd.Env = append(append(os.Environ(), roleEnv+"=aidex"), b.env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &stdioSession{cmd: cmd, in: in, waiting: map[string]chan json.RawMessage{}, stderr: &stderr}
	go s.route(out)
	b.mu.Lock()
	b.all = append(b.all, s)
	b.mu.Unlock()
	return s, nil
}

// close ends every aidex the bridge started, all at once (each exits when
// its stdin closes), logging their stderr when the test failed.
func (b *stdioBridge) close() {
	b.mu.Lock()
	all := b.all
	b.all = nil
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.close)
	}
	wg.Wait()
	for _, s := range all {
		if b.t.Failed() && s.stderr.Len() > 0 {
			b.t.Logf("aidex mcp serve (stdio) stderr: %s", s.stderr.String())
		}
	}
}

// route reads aidex's messages: a response goes to the stream of its
// request, anything else to the newest open request stream, else to the
// GET stream, else it is dropped.
func (s *stdioSession) route(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		msg := json.RawMessage(bytes.Clone(sc.Bytes()))
		var env envelope
		if json.Unmarshal(msg, &env) != nil {
			continue
		}
		s.mu.Lock()
		var ch chan json.RawMessage
		switch {
		case env.Method == "" && len(env.ID) > 0:
			ch = s.waiting[string(env.ID)]
		case len(s.order) > 0:
			ch = s.waiting[s.order[len(s.order)-1]]
		default:
			ch = s.get
		}
		if ch != nil {
			select {
			case ch <- msg:
			default: // a stream that stopped reading
			}
		}
		s.mu.Unlock()
	}
}

func (s *stdioSession) send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.in.Write(append(bytes.TrimSpace(msg), '\n'))
	return err
}

func (s *stdioSession) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiting, key)
	for i, k := range s.order {
		if k == key {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// close ends aidex's stdin (it exits when its client goes) and waits.
func (s *stdioSession) close() {
	s.mu.Lock()
	in := s.in
	s.in = nopWriteCloser{}
	s.mu.Unlock()
	if _, ok := in.(nopWriteCloser); ok {
		return
	}
	_ = in.Close()
	_ = s.cmd.Wait()
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return 0, io.ErrClosedPipe }
func (nopWriteCloser) Close() error                { return nil }
