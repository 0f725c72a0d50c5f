package cli

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// verboseTransport logs a one-line summary of every model request and
// response on w: method, URL without its query (which may hold a key),
// body size, status and time. Headers are never logged, so keys never
// appear.
type verboseTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	w    io.Writer
}

func (t *verboseTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	u := *req.URL
	u.RawQuery = ""
	t.log("→ %s %s (%d bytes)", req.Method, redactURL(u.String()), req.ContentLength)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.log("← %s failed after %s: %v", u.Host, time.Since(start).Round(time.Millisecond), err)
		return nil, err
	}
	t.log("← %s %s in %s", resp.Status, resp.Header.Get("Content-Type"), time.Since(start).Round(time.Millisecond))
	return resp, nil
}

func (t *verboseTransport) log(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "aidex: "+format+"\n", args...)
}

// redactURL hides userinfo in a URL (https://user:key@host).
func redactURL(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if at := strings.IndexByte(rest, '@'); at >= 0 && at < strings.IndexAny(rest+"/", "/") {
			return s[:i+3] + "REDACTED@" + rest[at+1:]
		}
	}
	return s
}

// verboseClient returns an HTTP client that logs on stderr, or nil when
// verbose output is off.
func (a *cliApp) verboseClient() *http.Client {
	return a.verboseClientTo(a.proc.Stderr)
}

// verboseClientFor is verboseClient for a headless run rendered by r: its
// lines go above r's spinner line when r draws one.
func (a *cliApp) verboseClientFor(r renderer) *http.Client {
	if p, ok := r.(*progress); ok {
		return a.verboseClientTo(aboveWriter{p: p, w: a.proc.Stderr})
	}
	return a.verboseClientTo(a.proc.Stderr)
}

// verboseClientTo returns an HTTP client that logs on w, or nil when
// verbose output is off.
func (a *cliApp) verboseClientTo(w io.Writer) *http.Client {
	if !a.flags.verbose {
		return nil
	}
	return &http.Client{Transport: &verboseTransport{base: http.DefaultTransport, w: w}}
}
