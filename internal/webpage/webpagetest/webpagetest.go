// Package webpagetest serves the HTML page the web-page fetcher's tests
// and the web_fetch tool's tests read: a title with an entity, a style and
// a script to be dropped, a heading, a link, a table and a list. Only tests
// import it.
package webpagetest

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Page is the HTML document HTMLHandler serves (UTF-8, 409 bytes).
const Page = `<!DOCTYPE html><html><head><title>Test &amp; Page</title>
<style>body{color:red}</style><script>var secret = "do-not-show";</script></head>
<body><h1>Heading</h1><p>Hello <strong>world</strong>, see <a href="/docs/intro">the intro</a>.</p>
<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
<ul><li>one</li><li>two</li></ul></body></html>`

// Serve starts an httptest server with h, closed when the test ends.
func Serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// HTMLHandler answers every request with Page as text/html; charset=utf-8.
func HTMLHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(Page))
}
