package web

import (
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// MaxBodyBytes caps every request body: 10 MiB. Larger bodies get 413.
const MaxBodyBytes = 10 << 20

// contentSecurityPolicy is sent with every response. Scripts and styles
// come only from the server itself (no inline code), images only from the
// server or data:/blob: URLs (no remote images: a model cannot make the
// page leak data through an image URL), and no site may frame the page.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// hostRules decides which Host header values the server answers: the
// loopback names with the bound port ("127.0.0.1:PORT", "localhost:PORT",
// "[::1]:PORT"), the bound host itself, and, when bound to a wildcard
// address, the IP literals of the machine's interfaces. DNS names other
// than "localhost" are never accepted (DNS rebinding). Host names are
// compared case-insensitively; a trailing dot ("localhost.") is refused,
// and so are IPv4-mapped IPv6 forms ("[::ffff:127.0.0.1]") and 0.0.0.0.
type hostRules struct {
	port    string
	allowed map[string]bool
	// anyIP accepts any IP literal of a local interface (wildcard bind).
	anyIP   bool
	localIP func() map[string]bool
}

func newHostRules(bound net.Addr, host string) *hostRules {
	_, port, _ := net.SplitHostPort(bound.String())
	h := &hostRules{port: port, allowed: map[string]bool{}}
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		h.allowed[name+":"+port] = true
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	switch {
	case host == "" || host == "0.0.0.0" || host == "::":
		if host != "" {
			h.anyIP = true
			h.localIP = interfaceIPs
		}
	default:
		h.allowed[net.JoinHostPort(host, port)] = true
	}
	return h
}

// interfaceIPs lists the machine's interface addresses as Host values
// without the port ("192.168.1.5", "[fe80::1]").
func interfaceIPs() map[string]bool {
	out := map[string]bool{}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return out
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			ip := n.IP.String()
			if strings.Contains(ip, ":") {
				ip = "[" + ip + "]"
			}
			out[ip] = true
		}
	}
	return out
}

// ok reports whether the Host header value h is accepted.
func (h *hostRules) ok(host string) bool {
	host = strings.ToLower(host)
	if h.allowed[host] {
		return true
	}
	if !h.anyIP {
		return false
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil || port != h.port || net.ParseIP(name) == nil || name == "0.0.0.0" || name == "::" {
		return false
	}
	if strings.Contains(name, ":") {
		name = "[" + name + "]"
	}
	return h.localIP()[name]
}

// guard wraps the server's routes with the checks every request passes:
// Host (403), security headers, no CORS (OPTIONS 403), Origin (403), the
// token for /api/* (401), JSON-only bodies (415) and the body cap (413).
type guard struct {
	hosts  *hostRules
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
	if !g.hosts.ok(r.Host) {
		writeError(w, http.StatusForbidden, "Host "+strconv.Quote(r.Host)+" is not this server's address: open the URL aidex web printed (http://127.0.0.1:"+g.hosts.port+"/...)")
		return
	}
	if r.Method == http.MethodOptions {
		writeError(w, http.StatusForbidden, "cross-origin requests are not allowed (no CORS)")
		return
	}
	if !g.sameOrigin(r) {
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

// sameOrigin reports whether r's Origin (when sent) is this server's own
// origin: "http://" + the Host the request was sent to. Browsers send
// Origin on every cross-origin request and on same-origin requests other
// than GET/HEAD; "null" (sandboxed frames, file://) is refused. A request
// without Origin (curl, scripts) passes; it still needs the token.
// Sec-Fetch-Site: cross-site is refused as well.
func (g *guard) sameOrigin(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s == "cross-site" || s == "same-site" {
		return false
	}
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return true
	}
	if len(origins) > 1 {
		return false
	}
	return strings.EqualFold(origins[0], "http://"+r.Host)
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

func (g *guard) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(g.token)) == 1
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}
