package web

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/httpguard"
)

// MaxBodyBytes caps every request body: 10 MiB. Larger bodies get 413.
const MaxBodyBytes = 10 << 20

// contentSecurityPolicy is sent with every response. Scripts and styles
// come only from the server itself (no inline code), images only from the
// server or data:/blob: URLs (no remote images: a model cannot make the
// page leak data through an image URL), and no site may frame the page.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// guard wraps the server's routes with the checks every request passes:
// Host (403), security headers, no CORS (OPTIONS 403), Origin (403), the
// token for /api/* (401), JSON-only bodies (415) and the body cap (413).
type guard struct {
	hosts  *httpguard.HostRules
	token  string
	cookie string // cookie name, per port: browsers share cookies across ports
	next   http.Handler
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Cross-Origin-Resource-Policy", "same-origin")
	if !g.hosts.OK(r.Host) {
		writeError(w, http.StatusForbidden, "Host "+strconv.Quote(r.Host)+" is not this server's address: open the URL aidex web printed (http://127.0.0.1:"+g.hosts.Port()+"/...)")
		return
	}
	if r.Method == http.MethodOptions {
		writeError(w, http.StatusForbidden, "cross-origin requests are not allowed (no CORS)")
		return
	}
	if !httpguard.SameOrigin(r) {
		writeError(w, http.StatusForbidden, "request from another origin refused: only the page served by this aidex web may call its API")
		return
	}
	api := r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/")
	if api {
		hdr.Set("Cache-Control", "no-store")
		if !g.authorized(r) {
			writeError(w, http.StatusUnauthorized, "missing or wrong token: open the URL aidex web printed (with ?token=), or send Authorization: Bearer TOKEN")
			return
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if !isJSON(r.Header.Get("Content-Type")) {
			writeError(w, http.StatusUnsupportedMediaType, "request bodies must be JSON: send Content-Type: application/json")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	}
	g.next.ServeHTTP(w, r)
}

// authorized checks the token from the Authorization header or the cookie,
// in constant time.
func (g *guard) authorized(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); a != "" {
		scheme, tok, ok := strings.Cut(a, " ")
		return ok && strings.EqualFold(scheme, "Bearer") && g.tokenOK(strings.TrimSpace(tok))
	}
	if c, err := r.Cookie(g.cookie); err == nil {
		return g.tokenOK(c.Value)
	}
	return false
}

func (g *guard) tokenOK(t string) bool { return httpguard.TokenOK(t, g.token) }

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}
