package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/app/toolcall"
)

// The workspace's files are offered as the resource template
// FileTemplate: aidex://workspace/PATH, PATH relative to the workspace
// with "/" separators. A read goes through read_file and the tool
// pipeline (confinement, deny rules, protected paths, the permission
// mode), so its text is what read_file returns: numbered lines, documents
// as text. completion/complete completes PATH from the workspace's
// entries; resources/subscribe watches a file and sends
// notifications/resources/updated when it changes.
const (
	// FileURIPrefix starts the URI of every workspace file.
	FileURIPrefix = "aidex://workspace/"
	// FileTemplate is the URI template of the workspace's files.
	FileTemplate = FileURIPrefix + "{+path}"
	// maxCompletions is the most values a completion returns (the
	// protocol's limit: 100).
	maxCompletions = 100
	// maxCompletionScan bounds the directory entries read for one
	// completion (a huge directory costs bounded time).
	maxCompletionScan = 10000
	// defaultPollEvery is how often subscribed files are checked for
	// changes.
	defaultPollEvery = time.Second
)

func fileTemplate() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{
		Name:        "workspace-file",
		Title:       "Workspace file",
		URITemplate: FileTemplate,
		Description: "A file of the workspace, PATH relative to it, as aidex's read_file shows it (numbered lines; PDF, DOCX, XLSX and notebooks as text), under aidex's permission policy. Subscribe to be told when it changes.",
		MIMEType:    "text/plain",
	}
}

// relOf returns the workspace-relative path of a workspace file URI;
// ok is false for another URI, an absolute path or one with "..".
func relOf(uri string) (rel string, ok bool) {
	rel, ok = strings.CutPrefix(uri, FileURIPrefix)
	if !ok || !fs.ValidPath(rel) || rel == "." {
		return "", false
	}
	return rel, true
}

// readResource reads a workspace file through read_file. Errors: an URI
// that is not a workspace file (resource not found), a refused or failed
// read (its message, with the allow rule when an approval was needed).
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rel, ok := relOf(uri)
	if !ok {
		return nil, &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "resource not found: " + uri + " (aidex offers workspace files as " + FileTemplate + ", PATH relative to the workspace)"}
	}
	ts, owned, err := s.toolSession(req.Session)
	if err != nil {
		return nil, err
	}
	if owned {
		defer ts.Close()
	}
	args, _ := json.Marshal(map[string]string{"path": rel})
	out, err := ts.CallTool(ctx, "read_file", args, toolcall.Options{Approve: elicitApprover(req.Session)})
	if err != nil && !errors.Is(err, toolcall.ErrInternal) {
		return nil, err
	}
	if !out.Result.OK {
		return nil, &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: uri + ": " + resultOf(out).Content[0].(*mcp.TextContent).Text}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: out.Result.Output}}}, nil
}

// complete answers completion/complete: the path argument of the
// workspace file template completes from the workspace's entries (the
// directory of the value typed so far, names starting with its last
// part, directories with a trailing "/", hidden entries only when the
// part starts with "."); any other reference (aidex offers no prompts)
// gets no values.
func (s *Server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if p == nil || p.Ref == nil || p.Ref.Type != "ref/resource" || p.Ref.URI != FileTemplate || p.Argument.Name != "path" {
		return res, nil
	}
	values, more := completePath(s.Workspace(), p.Argument.Value)
	res.Completion.Values, res.Completion.HasMore = values, more
	if !more {
		res.Completion.Total = len(values)
	}
	return res, nil
}

// completePath lists the workspace entries that complete prefix (a
// workspace-relative path), at most maxCompletions, sorted, as clean
// workspace-relative paths; more is true when there were more. Entries are read through an os.Root at the
// workspace, so a symlink or ".." never lists a directory outside it.
func completePath(workspace, prefix string) (values []string, more bool) {
	dir, part := path.Split(prefix)
	d := "."
	if dir != "" {
		d = strings.TrimSuffix(dir, "/") // "/" and "a//" leave "" and "a/": not valid
	}
	if !fs.ValidPath(d) {
		return []string{}, false
	}
	base := "" // what the values start with: the directory as a clean path ("./" lists the top)
	if d != "." {
		base = d + "/"
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return []string{}, false
	}
	defer root.Close()
	f, err := root.Open(d)
	if err != nil {
		return []string{}, false
	}
	defer f.Close()
	values = []string{}
	for scanned := 0; scanned < maxCompletionScan; {
		entries, err := f.ReadDir(256)
		for _, e := range entries {
			scanned++
			name := e.Name()
			if !strings.HasPrefix(name, part) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(part, ".")) {
				continue
			}
			if e.IsDir() {
				name += "/"
			}
			values = append(values, base+name)
		}
		if err != nil || len(entries) == 0 {
			break // io.EOF: the whole directory was read
		}
		if scanned >= maxCompletionScan {
			more = true
		}
	}
	slices.Sort(values)
	if len(values) > maxCompletions {
		values, more = values[:maxCompletions], true
	}
	return values, more
}

// watcher polls the workspace files a protocol server's clients
// subscribed to and notifies the subscribers of a change (its size,
// modification time, or whether it exists). URIs that are not workspace
// files are accepted and never change.
type watcher struct {
	srv       *mcp.Server
	workspace string
	every     time.Duration

	mu     sync.Mutex
	subs   map[string]int         // URI: subscriptions (over every session)
	seen   map[string]fileVersion // URI: the version last seen
	bySess map[*mcp.ServerSession]map[string]bool
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// fileVersion is what tells a file's change.
type fileVersion struct {
	exists bool
	size   int64
	mod    time.Time
}

func newWatcher(workspace string, every time.Duration) *watcher {
	if every <= 0 {
		every = defaultPollEvery
	}
	return &watcher{workspace: workspace, every: every, subs: map[string]int{}, seen: map[string]fileVersion{}, bySess: map[*mcp.ServerSession]map[string]bool{}}
}

// subscribe records a session's subscription and starts polling.
func (w *watcher) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if uri == "" {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/subscribe: the uri is empty"}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("the server is closing")
	}
	if w.bySess[req.Session] == nil {
		w.bySess[req.Session] = map[string]bool{}
		if req.Session != nil {
			ss := req.Session
			go func() { _ = ss.Wait(); w.forget(ss) }()
		}
	}
	if w.bySess[req.Session][uri] {
		return nil
	}
	w.bySess[req.Session][uri] = true
	w.subs[uri]++
	if w.subs[uri] == 1 {
		w.seen[uri] = w.version(uri)
	}
	if w.stop == nil {
		w.stop, w.done = make(chan struct{}), make(chan struct{})
		go w.poll(w.stop, w.done)
	}
	return nil
}

// unsubscribe drops a session's subscription (none: nothing to do).
func (w *watcher) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropLocked(req.Session, req.Params.URI)
	return nil
}

// forget drops the subscriptions of a session that ended.
func (w *watcher) forget(ss *mcp.ServerSession) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for uri := range w.bySess[ss] {
		w.dropLocked(ss, uri)
	}
	delete(w.bySess, ss)
}

func (w *watcher) dropLocked(ss *mcp.ServerSession, uri string) {
	if !w.bySess[ss][uri] {
		return
	}
	delete(w.bySess[ss], uri)
	if w.subs[uri]--; w.subs[uri] <= 0 {
		delete(w.subs, uri)
		delete(w.seen, uri)
	}
}

// close stops polling and waits for it.
func (w *watcher) close() {
	w.mu.Lock()
	w.closed = true
	stop, done := w.stop, w.done
	w.stop = nil
	w.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// poll checks the subscribed files every w.every until stop.
func (w *watcher) poll(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(w.every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		w.check()
	}
}

// check notifies the subscribers of every subscribed file that changed.
func (w *watcher) check() {
	w.mu.Lock()
	uris := make([]string, 0, len(w.subs))
	for uri := range w.subs {
		uris = append(uris, uri)
	}
	w.mu.Unlock()
	for _, uri := range uris {
		if _, ok := relOf(uri); !ok {
			continue
		}
		v := w.version(uri)
		w.mu.Lock()
		old, still := w.seen[uri]
		changed := still && old != v
		if changed {
			w.seen[uri] = v
		}
		w.mu.Unlock()
		if changed {
			_ = w.srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}

// version stats a workspace file through an os.Root at the workspace (a
// symlink out of it reads as missing).
func (w *watcher) version(uri string) fileVersion {
	rel, ok := relOf(uri)
	if !ok {
		return fileVersion{}
	}
	root, err := os.OpenRoot(w.workspace)
	if err != nil {
		return fileVersion{}
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	if err != nil {
		return fileVersion{}
	}
	return fileVersion{exists: true, size: fi.Size(), mod: fi.ModTime()}
}
