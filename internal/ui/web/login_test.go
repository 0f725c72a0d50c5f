package web

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// postCode posts {"code": code} to /auth/code without the token, as the
// page does, and returns the status and the token cookie it set ("").
func postCode(e *env, code string, hdr map[string]string) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+"/auth/code", strings.NewReader(`{"code":"`+code+`"}`))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if strings.HasPrefix(c.Name, "aidex_token_") {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				e.t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict", c)
			}
			return resp.StatusCode, c.Value
		}
	}
	return resp.StatusCode, ""
}

// `aidex web --open` hands the browser a one-time code, not the token: the
// code buys the token cookie once, within LoginCodeTTL, from this origin
// only; the login URL never carries the token.
func TestLoginCode(t *testing.T) {
	e := newEnv(t, nil, "")
	code, err := e.srv.NewLoginCode()
	if err != nil {
		t.Fatal(err)
	}
	u := LoginURL("127.0.0.1", e.ts.Listener.Addr(), code)
	if strings.Contains(u, testToken) || !strings.HasSuffix(u, "/?code="+code) {
		t.Fatalf("login URL %q", u)
	}
	// The page at the login URL is the app itself; GET spends nothing.
	if st, body, _ := e.do(mustReq(t, http.MethodGet, u)); st != http.StatusOK || !strings.Contains(string(body), "app.js") {
		t.Fatalf("GET login URL: %d", st)
	}
	if st, _ := postCode(e, code, map[string]string{"Origin": "http://evil.example"}); st != http.StatusForbidden {
		t.Errorf("cross-origin exchange: %d, want 403", st)
	}
	st, cookie := postCode(e, code, map[string]string{"Origin": e.ts.URL})
	if st != http.StatusNoContent || cookie != testToken {
		t.Fatalf("exchange: %d cookie %q", st, cookie)
	}
	if st, cookie := postCode(e, code, nil); st != http.StatusUnauthorized || cookie != "" {
		t.Errorf("second exchange of the same code: %d %q, want 401", st, cookie)
	}
	for _, bad := range []string{"", "wrong", testToken} {
		if st, _ := postCode(e, bad, nil); st != http.StatusUnauthorized {
			t.Errorf("code %q: %d, want 401", bad, st)
		}
	}
	old, _ := e.srv.NewLoginCode()
	setClock(&e.srv.logins, time.Now().Add(LoginCodeTTL+time.Second))
	if st, _ := postCode(e, old, nil); st != http.StatusUnauthorized {
		t.Errorf("expired code: %d, want 401", st)
	}
	e.srv.logins.mu.Lock()
	defer e.srv.logins.mu.Unlock()
	if len(e.srv.logins.codes) != 0 {
		t.Errorf("codes left: %d", len(e.srv.logins.codes))
	}
}

// setClock makes l's clock read t.
func setClock(l *loginCodes, t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.now = func() time.Time { return t }
}

func mustReq(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
