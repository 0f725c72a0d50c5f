// Package httpguard holds the request checks aidex's local HTTP servers
// share (the web UI, aidex mcp serve --http): which Host header values a
// server bound to a local address answers (DNS rebinding), whether a
// request comes from the server's own origin, and the bearer token check.
package httpguard

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// HostRules decides which Host header values a server answers: the
// loopback names with the bound port ("127.0.0.1:PORT", "localhost:PORT",
// "[::1]:PORT"), the bound host itself, and, when bound to a wildcard
// address, the IP literals of the machine's interfaces. DNS names other
// than "localhost" are never accepted (DNS rebinding). Host names are
// compared case-insensitively; a trailing dot ("localhost.") is refused,
// and so are IPv4-mapped IPv6 forms ("[::ffff:127.0.0.1]") and 0.0.0.0.
//
// LocalIP lists the machine's interface addresses as Host values without
// the port (set by [NewHostRules] for a wildcard bind; tests replace it).
type HostRules struct {
	port    string
	allowed map[string]bool
	// anyIP accepts any IP literal of a local interface (wildcard bind).
	anyIP   bool
	LocalIP func() map[string]bool
}

// NewHostRules returns the rules of a server listening on bound, started
// for host (the --host the user gave: "" or a wildcard for any address).
func NewHostRules(bound net.Addr, host string) *HostRules {
	_, port, _ := net.SplitHostPort(bound.String())
	h := &HostRules{port: port, allowed: map[string]bool{}}
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		h.allowed[name+":"+port] = true
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	switch {
	case host == "" || host == "0.0.0.0" || host == "::":
		if host != "" {
			h.anyIP = true
			h.LocalIP = interfaceIPs
		}
	default:
		h.allowed[net.JoinHostPort(host, port)] = true
	}
	return h
}

// Port returns the bound port.
func (h *HostRules) Port() string { return h.port }

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

// OK reports whether the Host header value host is accepted.
func (h *HostRules) OK(host string) bool {
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
	return h.LocalIP()[name]
}

// SameOrigin reports whether r's Origin (when sent) is the server's own
// origin: "http://" + the Host the request was sent to. Browsers send
// Origin on every cross-origin request and on same-origin requests other
// than GET/HEAD; "null" (sandboxed frames, file://) is refused. A request
// without Origin (curl, scripts) passes; it still needs the token.
// Sec-Fetch-Site: cross-site or same-site is refused as well.
func SameOrigin(r *http.Request) bool {
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

// Bearer reports whether r carries "Authorization: Bearer TOKEN" with
// token, compared in constant time. An empty token never matches.
func Bearer(r *http.Request, token string) bool {
	a := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(a, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && TokenOK(strings.TrimSpace(tok), token)
}

// TokenOK compares a presented token with the server's in constant time;
// an empty token never matches.
func TokenOK(presented, token string) bool {
	return presented != "" && token != "" && subtle.ConstantTimeCompare([]byte(presented), []byte(token)) == 1
}
