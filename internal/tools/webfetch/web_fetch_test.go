package webfetch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/webpage"
)

const page = `<!DOCTYPE html><html><head><title>Test &amp; Page</title>
<style>body{color:red}</style><script>var secret = "do-not-show";</script></head>
<body><h1>Heading</h1><p>Hello <strong>world</strong>, see <a href="/docs/intro">the intro</a>.</p>
<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
<ul><li>one</li><li>two</li></ul></body></html>`

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func htmlHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(page))
}

func TestWebFetchTool(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", htmlHandler)
	mux.HandleFunc("/missing", http.NotFound)
	srv := serve(t, mux.ServeHTTP)
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(Tools(webpage.New(webpage.Options{AllowPrivate: true}))...))
	require.NoError(t, reg.Check())
	call := func(args any) tools.Result {
		b, _ := json.Marshal(args)
		return reg.Call(context.Background(), nil, "web_fetch", b)
	}
	r := call(map[string]any{"url": srv.URL, "max_bytes": 20})
	require.True(t, r.OK, r.Error)
	require.True(t, strings.HasPrefix(r.Output, "URL: "+srv.URL+"/\nStatus: 200\nContent-Type: text/html\nTitle: Test & Page\n\n# Heading"), r.Output)
	require.Contains(t, r.Output, "[content cut at 20 bytes")
	require.True(t, r.Meta.Truncated)

	r = call(map[string]any{"url": srv.URL + "/missing"})
	require.False(t, r.OK)
	require.Equal(t, tools.CategoryNotFound, r.Category)
	require.Contains(t, r.Error, "404")

	reg2 := tools.NewRegistry()
	require.NoError(t, reg2.Register(Tools(webpage.New(webpage.Options{}))...))
	r = reg2.Call(context.Background(), nil, "fetch", json.RawMessage(`{"url":"`+srv.URL+`"}`))
	require.False(t, r.OK)
	require.Equal(t, tools.CategorySecurity, r.Category)
}
