package models

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/listmodels"
	"github.com/zelvior/aidex/internal/llm/wire"
	"github.com/zelvior/aidex/internal/tools"
)

func TestListModelsTool(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		require.Equal(t, "/v1/models", r.URL.Path)
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"alpha-coder","object":"model"},{"id":"beta-chat","object":"model"}]}`))
	}))
	defer srv.Close()
	base, err := catalog.Load(wire.CatalogFormats())
	require.NoError(t, err)
	cat, err := base.WithOverrides(map[string]catalog.Override{"fake": {Type: "openai", BaseURL: srv.URL + "/v1", Models: []string{"static-one"}}})
	require.NoError(t, err)

	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(Tools(listmodels.Options{Catalog: cat, Lister: &catalog.Lister{CacheDir: t.TempDir()}, Current: "fake"})...))
	require.NoError(t, reg.Check())
	call := func(args string) tools.Result {
		return reg.Call(context.Background(), nil, "list_models", json.RawMessage(args))
	}
	r := call(`{}`)
	require.True(t, r.OK, r.Error)
	require.Contains(t, r.Output, "provider fake (live, current)")
	require.Contains(t, r.Output, "alpha-coder")
	require.Contains(t, r.Output, "beta-chat")
	require.Equal(t, 2, r.Meta.Matches)

	r = call(`{"query":"CODER"}`)
	require.True(t, r.OK, r.Error)
	require.Contains(t, r.Output, "alpha-coder")
	require.NotContains(t, r.Output, "beta-chat")
	require.Equal(t, int32(1), hits.Load(), "the second call is served from the cache")

	r = call(`{"provider":"no-such-provider"}`)
	require.False(t, r.OK)
	require.Equal(t, tools.CategoryNotFound, r.Category)
	require.Contains(t, r.Error, "fake")

	// Without a Lister: the catalog's static list, no network.
	reg2 := tools.NewRegistry()
	require.NoError(t, reg2.Register(Tools(listmodels.Options{Catalog: cat, Current: "fake"})...))
	r = reg2.Call(context.Background(), nil, "models", json.RawMessage(`{}`))
	require.True(t, r.OK, r.Error)
	require.Contains(t, r.Output, "provider fake (static, current)")
	require.Contains(t, r.Output, "static-one")
	require.Equal(t, int32(1), hits.Load())
}
