package cli

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// `aidex providers test` names the provider once in its errors, not
// "groq: groq: ...".
func TestProvidersTestNamesProviderOnce(t *testing.T) {
	e := newCmdEnv(t, "")
	_, _, err := e.run(t, newProvidersTestCmd, "groq")
	require.Error(t, err)
	require.Contains(t, err.Error(), "GROQ_API_KEY")
	require.Equal(t, 1, strings.Count(err.Error(), "groq:"), err.Error())

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Invalid API Key","type":"invalid_request_error"}}`)
	}))
	defer srv.Close()
	e = newCmdEnv(t, fmt.Sprintf("[providers.groq]\nbase_url = %q\napi_key = \"bad\"\n", srv.URL))
	_, _, err = e.run(t, newProvidersTestCmd, "groq")
	require.Error(t, err)
	require.Contains(t, err.Error(), "401")
	require.Equal(t, 1, strings.Count(err.Error(), "groq:"), err.Error())
}

func TestProviderErr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"groq: HTTP 401: Invalid API Key", "groq: HTTP 401: Invalid API Key"},
		{`provider "groq" has no base URL: set base_url for it in config`, `provider "groq" has no base URL: set base_url for it in config`},
		{"context deadline exceeded", "groq: context deadline exceeded"},
		{"groqcloud: down", "groq: groqcloud: down"},
	} {
		in := errors.New(c.in)
		got := providerErr("groq", in)
		require.Equal(t, c.want, got.Error())
		require.ErrorIs(t, got, in)
	}
}
