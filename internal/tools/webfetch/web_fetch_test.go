package webfetch

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/webpage/webpagetest"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/webpage"
)

func TestWebFetchTool(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", webpagetest.HTMLHandler)
	mux.HandleFunc("/missing", http.NotFound)
	srv := webpagetest.Serve(t, mux.ServeHTTP)
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
