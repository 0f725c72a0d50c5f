// Package urlnorm is the one URL normaliser of aidex: the permission
// policy matches web_fetch rules against the normalised form, and the web
// fetcher checks (SSRF) and fetches that same form, so the URL that is
// judged is the URL that is fetched.
//
// Normalise trims surrounding white space, lower-cases the scheme, drops
// the user information and the fragment (never sent), decodes the host's
// percent-encoding, drops its trailing dots, maps it through IDNA (UTS #46,
// the lookup profile net/http dials with) to lower-case ASCII, writes IP
// addresses in their canonical form (IPv4-mapped IPv6 as IPv4), drops the
// scheme's default port (":443" for https, ":80" for http; a port with
// leading zeros counts as its number), decodes percent-encoded unreserved
// characters of the path and removes its dot segments ("/a/../b" is
// "/b"), and makes an empty path "/".
//
// So `HTTPS://BLOCKED.EXAMPLE/x`, `https://blocked.example:443/x`,
// `https://blocked.example./x`, `https://u@blocked.example/x`,
// `https://blocked%2Eexample/x` and ` https://blocked.example/x` are all
// `https://blocked.example/x`.
package urlnorm

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
)

// defaultPorts are the ports a scheme uses when none is given.
var defaultPorts = map[string]int{"http": 80, "https": 443}

// Parse normalises raw (see the package doc) and returns it parsed. It
// fails for a URL that does not parse, has no host (including opaque
// forms like "https:host/x"), or whose host or port is not valid.
func Parse(raw string) (*url.URL, error) {
	raw, err := unescapeHost(strings.TrimFunc(raw, unicode.IsSpace))
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, errors.New("the URL has no host (write scheme://host/path)")
	}
	host, err := normalHost(u.Hostname())
	if err != nil {
		return nil, err
	}
	port, err := normalPort(u.Scheme, u.Port())
	if err != nil {
		return nil, err
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host, u.User = host, nil
	u.Fragment, u.RawFragment = "", ""
	if err := normalPath(u); err != nil {
		return nil, err
	}
	return u, nil
}

// Normalize returns the normalised form of raw as a string (see Parse).
func Normalize(raw string) (string, error) {
	u, err := Parse(raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// unescapeHost decodes percent-escapes in the host of raw
// ("blocked%2Eexample"), which url.Parse refuses; a decoded host holding a
// character that would change how the URL splits is refused.
func unescapeHost(raw string) (string, error) {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw, nil
	}
	rest := raw[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth := rest[:end]
	at := strings.LastIndexByte(auth, '@') + 1
	if !strings.Contains(auth[at:], "%") || strings.HasPrefix(auth[at:], "[") {
		return raw, nil
	}
	host, err := url.PathUnescape(auth[at:])
	if err != nil || strings.ContainsAny(host, "/?#@%[]\\ ") {
		return "", fmt.Errorf("invalid percent-encoding in the host %q", auth[at:])
	}
	return raw[:i+3] + auth[:at] + host + rest[end:], nil
}

// normalHost returns host (already percent-decoded by url.Parse) without
// trailing dots, as a canonical IP address or as lower-case IDNA ASCII.
func normalHost(host string) (string, error) {
	h := strings.TrimRight(host, ".")
	if h == "" {
		return "", fmt.Errorf("the URL has no host name (%q)", host)
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().String(), nil
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("invalid host name %q: %w", host, err)
	}
	return strings.ToLower(a), nil
}

// normalPort returns port as a decimal number, or "" when it is empty or
// the scheme's default.
func normalPort(scheme, port string) (string, error) {
	if port == "" {
		return "", nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("invalid port %q", port)
	}
	if d, ok := defaultPorts[scheme]; ok && d == n {
		return "", nil
	}
	return strconv.Itoa(n), nil
}

// normalPath decodes percent-encoded unreserved characters of u's path,
// upper-cases the other escapes, removes dot segments and makes an empty
// path "/".
func normalPath(u *url.URL) error {
	ep := removeDotSegments(decodeUnreserved(u.EscapedPath()))
	if ep == "" {
		ep = "/"
	}
	p, err := url.PathUnescape(ep)
	if err != nil {
		return fmt.Errorf("invalid path: %w", err)
	}
	u.Path, u.RawPath = p, ep
	return nil
}

// decodeUnreserved decodes %XX escapes of unreserved characters (letters,
// digits, "-", ".", "_", "~") and upper-cases the hex digits of the rest.
func decodeUnreserved(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' || i+2 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			b.WriteByte(s[i])
			continue
		}
		if c := byte(v); isUnreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(s[i+1:i+3]))
		}
		i += 2
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
}

// removeDotSegments is RFC 3986 section 5.2.4 on an escaped path.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

// Pattern normalises the scheme and authority of a URL rule pattern
// ("HTTPS://Blocked.Example:443/*" is "https://blocked.example/*") so it
// matches the normalised URLs: lower case, the scheme's default port and
// the host's trailing dots dropped, IDNA for a host without "*", "/"
// appended when the pattern ends at the authority. A pattern without
// "://" is returned unchanged.
func Pattern(p string) string {
	i := strings.Index(p, "://")
	if i <= 0 || strings.Contains(p[:i], "/") {
		return p
	}
	scheme := strings.ToLower(p[:i])
	rest := p[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
		rest += "/"
	}
	auth, tail := rest[:end], rest[end:]
	host, port := auth, ""
	if j := strings.LastIndexByte(auth, ':'); j >= 0 && !strings.HasSuffix(auth, "]") {
		host, port = auth[:j], auth[j+1:]
	}
	host = strings.ToLower(strings.TrimRight(host, "."))
	if !strings.Contains(host, "*") {
		if a, err := idna.Lookup.ToASCII(host); err == nil {
			host = strings.ToLower(a)
		}
	}
	if np, err := normalPort(scheme, port); err == nil {
		port = np
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host + tail
}
