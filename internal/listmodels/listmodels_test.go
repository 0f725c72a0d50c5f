package listmodels

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/llm/wire"
)

func TestListStatic(t *testing.T) {
	base, err := catalog.Load(wire.CatalogFormats())
	require.NoError(t, err)
	cat, err := base.WithOverrides(map[string]catalog.Override{"fake": {Type: "openai", BaseURL: "http://127.0.0.1:1/v1", Models: []string{"static-one", "static-two"}}})
	require.NoError(t, err)
	o := Options{Catalog: cat, Current: "fake"}

	l, err := o.List(context.Background(), Query{Text: " TWO "})
	require.NoError(t, err)
	require.Equal(t, "provider fake (static, current)\nstatic-two\n", l.Text)
	require.Equal(t, 2, l.Models)

	_, err = o.List(context.Background(), Query{Provider: "no-such-provider"})
	require.ErrorIs(t, err, ErrUnknownProvider)
	require.ErrorContains(t, err, `unknown provider "no-such-provider": known providers are`)

	_, err = Options{}.List(context.Background(), Query{})
	require.ErrorIs(t, err, ErrNoCatalog)
}
