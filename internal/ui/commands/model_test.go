package commands

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
)

// closedFixture is a controller on the catalog provider groq, served by a
// local server whose live list holds two models.
func closedFixture(t *testing.T) *fixture {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"llama-3.3-70b-versatile"},{"id":"meta-llama/llama-4-scout-17b-16e-instruct"}]}`))
			return
		}
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	home := apptest.NewHome(t, "provider = \"groq\"\nmodel = \"llama-3.3-70b-versatile\"\n[providers.groq]\nbase_url = \""+srv.URL+"/v1\"\napi_key = \"k\"\n")
	ctx := context.Background()
	svc, err := app.Start(ctx, app.StartOptions{Options: app.Options{Workspace: home.WS, Flags: map[string]string{}, Getenv: home.Getenv}})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	c, err := New(ctx, Config{Service: svc, Session: sess})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return &fixture{c: c, ws: home.WS}
}

// /model with a model the provider's list does not hold is an error
// naming the closest ones, and the model stays; ids from the list, with
// or without a slash, switch.
func TestModelCommandRefusesUnknownModel(t *testing.T) {
	f := closedFixture(t)
	_, _, err := f.exec(t, "/model llama-3.3-70b")
	require.ErrorContains(t, err, `unknown model "llama-3.3-70b" for groq; closest: llama-3.3-70b-versatile`)
	require.Equal(t, "llama-3.3-70b-versatile", f.c.Runtime().Model)

	_, _, err = f.exec(t, "/model foo/bar")
	require.ErrorContains(t, err, `no provider "foo" and no groq model "foo/bar" (providers: `)

	out, _ := f.mustExec(t, "/model meta-llama/llama-4-scout-17b-16e-instruct")
	require.Contains(t, out, "model: groq/meta-llama/llama-4-scout-17b-16e-instruct")
}

// Providers that take any id (custom servers here) switch to an id no list
// holds.
func TestModelCommandOpenProviderTakesAnyID(t *testing.T) {
	f := newFixture(t, "")
	out, _ := f.mustExec(t, "/model anything-goes")
	require.Contains(t, out, "model: fake/anything-goes")
}
