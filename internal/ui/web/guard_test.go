package web

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/httpguard"
)

func TestNoTokenIs401(t *testing.T) {
	e := newEnv(t, nil, "")
	for _, path := range []string{"/api/status", "/api/sessions", "/api/fs/read?path=a.txt", "/api/config", "/api/nope", "/api/events"} {
		req := e.req(http.MethodGet, path, nil)
		req.Header.Del("Authorization")
		if status, body, _ := e.do(req); status != http.StatusUnauthorized {
			t.Errorf("GET %s without token: %d %s, want 401", path, status, body)
		}
	}
	req := e.req(http.MethodPost, "/api/chat", map[string]any{"message": "hi"})
	req.Header.Set("Authorization", "Bearer wrong")
	if status, _, _ := e.do(req); status != http.StatusUnauthorized {
		t.Errorf("POST /api/chat with a wrong token: %d, want 401", status)
	}
	req = e.req(http.MethodGet, "/api/status", nil)
	req.Header.Set("Authorization", "Basic "+testToken)
	if status, _, _ := e.do(req); status != http.StatusUnauthorized {
		t.Errorf("Basic scheme: %d, want 401", status)
	}
}

func TestTokenCookieFromPageURL(t *testing.T) {
	e := newEnv(t, nil, "")
	client := *e.client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Get(e.ts.URL + "/?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("page with token: %d Location %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Value != testToken {
		t.Fatalf("cookie = %+v, want one HttpOnly SameSite=Strict cookie with the token", cookies)
	}
	req, _ := http.NewRequest(http.MethodGet, e.ts.URL+"/api/status", nil)
	req.AddCookie(cookies[0])
	if status, body, _ := e.do(req); status != http.StatusOK {
		t.Fatalf("status with the cookie: %d %s", status, body)
	}
	// A wrong token in the URL sets nothing.
	resp, err = client.Get(e.ts.URL + "/?token=nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
		t.Fatalf("wrong token: %d cookies %v, want 401 and none", resp.StatusCode, resp.Cookies())
	}
}

func TestHostCheck(t *testing.T) {
	e := newEnv(t, nil, "")
	_, port, _ := net.SplitHostPort(e.ts.Listener.Addr().String())
	cases := map[string]int{
		"127.0.0.1:" + port:           http.StatusOK,
		"localhost:" + port:           http.StatusOK,
		"LOCALHOST:" + port:           http.StatusOK, // host names are case-insensitive
		"[::1]:" + port:               http.StatusOK,
		"evil.example:" + port:        http.StatusForbidden,
		"rebind.evil.example:" + port: http.StatusForbidden,
		"0.0.0.0:" + port:             http.StatusForbidden, // E-114
		"LOCALHOST.:" + port:          http.StatusForbidden, // E-116: trailing dot refused
		"[::ffff:127.0.0.1]:" + port:  http.StatusForbidden, // E-117: mapped form refused
		"127.0.0.1:1":                 http.StatusForbidden, // another port
		"127.0.0.1":                   http.StatusForbidden,
	}
	if httpguard.NewHostRules(e.ts.Listener.Addr(), "").OK("") {
		t.Error("an empty Host is accepted")
	}
	for host, want := range cases {
		for _, path := range []string{"/api/status", "/"} {
			req := e.req(http.MethodGet, path, nil)
			req.Host = host
			status, body, _ := e.do(req)
			if status != want {
				t.Errorf("Host %q %s: %d %s, want %d", host, path, status, body, want)
			}
		}
	}
}

func TestOriginCheck(t *testing.T) {
	e := newEnv(t, nil, "")
	own := "http://" + e.ts.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(e.ts.Listener.Addr().String())
	cases := []struct {
		origin string
		extra  map[string]string
		want   int
	}{
		{"", nil, http.StatusOK},
		{own, nil, http.StatusOK},
		{"https://evil.example", nil, http.StatusForbidden},
		{"null", nil, http.StatusForbidden},                  // E-101
		{"http://localhost:3000", nil, http.StatusForbidden}, // E-108
		{"http://127.0.0.1:" + port + ".evil.example", nil, http.StatusForbidden},
		{"https://127.0.0.1:" + port, nil, http.StatusForbidden}, // another scheme
		{own, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{own, map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusOK},
	}
	for _, c := range cases {
		req := e.req(http.MethodPost, "/api/chat/stop", map[string]any{})
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		for k, v := range c.extra {
			req.Header.Set(k, v)
		}
		if status, body, _ := e.do(req); status != c.want {
			t.Errorf("POST with Origin %q %v: %d %s, want %d", c.origin, c.extra, status, body, c.want)
		}
	}
	// A GET from a foreign origin is refused too (E-103), and never gets CORS headers.
	e.write(".env", "SECRET=1\n")
	req := e.req(http.MethodGet, "/api/fs/read?path=.env", nil)
	req.Header.Set("Origin", "https://evil.example")
	status, body, hdr := e.do(req)
	if status != http.StatusForbidden || strings.Contains(string(body), "SECRET") {
		t.Errorf("foreign GET: %d %s, want 403 without the file", status, body)
	}
	if hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS header sent: %q", hdr.Get("Access-Control-Allow-Origin"))
	}
}

func TestPreflightDenied(t *testing.T) {
	e := newEnv(t, nil, "")
	req := e.req(http.MethodOptions, "/api/sessions", nil)
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization")
	status, _, hdr := e.do(req)
	if status != http.StatusForbidden {
		t.Errorf("preflight: %d, want 403", status)
	}
	for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers"} {
		if hdr.Get(h) != "" {
			t.Errorf("%s = %q on a preflight", h, hdr.Get(h))
		}
	}
}

func TestJSONOnlyBodies(t *testing.T) {
	e := newEnv(t, nil, "")
	for _, ct := range []string{"application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", ""} {
		req := e.req(http.MethodPost, "/api/fs/write", "path=a.txt&content=x")
		req.Header.Set("Content-Type", ct)
		if ct == "" {
			req.Header.Del("Content-Type")
		}
		if status, body, _ := e.do(req); status != http.StatusUnsupportedMediaType {
			t.Errorf("Content-Type %q: %d %s, want 415", ct, status, body)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "a.txt")); err == nil {
		t.Error("a form body wrote a file")
	}
	req := e.req(http.MethodPost, "/api/fs/write", `{"path":"a.txt","content":"x"}`)
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if status, body, _ := e.do(req); status != http.StatusOK {
		t.Errorf("JSON with charset: %d %s", status, body)
	}
}

func TestBodyCap(t *testing.T) {
	e := newEnv(t, nil, "")
	big := `{"path":"big.txt","content":"` + strings.Repeat("a", MaxBodyBytes+10) + `"}`
	status, body, _ := e.do(e.req(http.MethodPost, "/api/fs/write", big))
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("11 MiB body: %d %.200s, want 413", status, body)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "big.txt")); err == nil {
		t.Error("an oversized body wrote a file")
	}
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, nil, "")
	for _, path := range []string{"/", "/app.js", "/api/status"} {
		_, _, hdr := e.do(e.req(http.MethodGet, path, nil))
		csp := hdr.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if hdr.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", path)
		}
	}
	_, body, hdr := e.do(e.req(http.MethodGet, "/", nil))
	if !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		t.Errorf("page Content-Type %q", hdr.Get("Content-Type"))
	}
	page := string(body)
	if strings.Contains(page, "<script>") || strings.Contains(page, "onclick=") || strings.Contains(page, "onload=") || strings.Contains(page, "style=") {
		t.Error("the page has inline script, handlers or styles (blocked by the CSP)")
	}
	if !strings.Contains(page, `<script type="module" src="/app.js">`) {
		t.Error("the page does not load app.js as a module")
	}
}

// TestTwoPOSTsOnOneConnection sends two POSTs over one raw HTTP/1.1
// connection: both must be answered (every handler reads its body).
func TestTwoPOSTsOnOneConnection(t *testing.T) {
	e := newEnv(t, nil, "")
	conn, err := net.Dial("tcp", e.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	host := e.ts.Listener.Addr().String()
	for i, body := range []string{`{"path":"one.txt","content":"1"}`, `{"path":"two.txt","content":"2"}`} {
		fmt.Fprintf(conn, "POST /api/fs/write HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			host, testToken, len(body), body)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("POST %d: %v", i+1, err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("POST %d: %d close=%v %s", i+1, resp.StatusCode, resp.Close, data)
		}
	}
	// A refused POST (415) must not break the connection for the next one.
	for i, ct := range []string{"text/plain", "application/json"} {
		body := `{"path":"three.txt","content":"3"}`
		fmt.Fprintf(conn, "POST /api/fs/write HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
			host, testToken, ct, len(body), body)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d after a refusal: %v", i+3, err)
		}
		resp.Body.Close()
		if want := []int{415, 200}[i]; resp.StatusCode != want {
			t.Fatalf("request %d: %d, want %d", i+3, resp.StatusCode, want)
		}
	}
	if e.read("one.txt") != "1" || e.read("two.txt") != "2" || e.read("three.txt") != "3" {
		t.Fatal("files not written")
	}
}
