// Package webpage (the page fetcher; the tool is internal/tools/webfetch) fetches web pages for the model's web_fetch tool
// (internal/tools/webfetch; kind.Network, so the permission policy asks in
// ask mode). HTML is
// turned into Markdown with github.com/JohannesKaufmann/html-to-markdown/v2
// (or plain text, or kept as HTML); other text types are returned as they
// are; binary types are refused.
//
// Safety: only http and https; the download is capped (MaxDownloadBytes)
// and timed (Timeout); redirects are capped and each hop re-checked; and
// unless AllowPrivate (config web_fetch_allow_private) every connection to
// a loopback, private, link-local (cloud metadata), CGNAT, multicast or
// otherwise non-public address is refused. The check runs at dial time on
// the resolved address (net.Dialer.Control), so a redirect or a DNS name
// (re)bound to 127.0.0.1 is refused too. Environment proxies are not used:
// a proxy would resolve names itself and defeat that check. Every URL,
// redirects included, is normalised by permission/urlnorm first (the form
// the permission rules were matched against) and that form is checked and
// fetched: no user information is sent.
package webpage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/permission/urlnorm"
)

// Defaults and limits.
const (
	// DefaultTimeout bounds a whole fetch, redirects and body included.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxDownloadBytes caps the bytes read from the server (5 MiB).
	DefaultMaxDownloadBytes = 5 << 20
	// DefaultMaxRedirects caps the redirects followed.
	DefaultMaxRedirects = 5
	// DefaultMaxBytes is the default cap of the returned content (bytes).
	DefaultMaxBytes = 100_000
	// MaxMaxBytes is the largest max_bytes accepted (bytes).
	MaxMaxBytes = 1_000_000
	// DefaultUserAgent identifies aidex to servers.
	DefaultUserAgent = "aidex-web-fetch/1 (+https://github.com/zelvior/aidex)"
)

// ErrPrivateAddress is wrapped when a URL's host is (or resolves to) a
// non-public address and AllowPrivate is off.
var ErrPrivateAddress = errors.New("private, loopback or link-local address refused")

// ErrNotText is wrapped when the response is not a text type.
var ErrNotText = errors.New("not a text response")

// Format is the output form of a fetched HTML page.
type Format string

// The formats.
const (
	FormatMarkdown Format = "markdown"
	FormatText     Format = "text"
	FormatHTML     Format = "html"
)

// Options configure New.
type Options struct {
	// AllowPrivate lets fetches reach loopback, private and link-local
	// addresses (config web_fetch_allow_private).
	AllowPrivate bool
	// Timeout bounds one fetch (0 = DefaultTimeout).
	Timeout time.Duration
	// MaxDownloadBytes caps the body read (0 = DefaultMaxDownloadBytes).
	MaxDownloadBytes int64
	// MaxRedirects caps redirects (0 = DefaultMaxRedirects; < 0 = none).
	MaxRedirects int
	// UserAgent is sent as User-Agent ("" = DefaultUserAgent).
	UserAgent string
}

// Fetcher fetches pages; it is safe for concurrent use.
type Fetcher struct {
	o     Options
	hc    *http.Client
	allow func(netip.Addr) bool
}

// New returns a Fetcher with its own HTTP client (no environment proxy;
// the address check at dial time).
func New(o Options) *Fetcher {
	return newFetcher(o, nil)
}

// newFetcher lets tests replace the address check (allow nil = IsPublic,
// or everything with AllowPrivate).
func newFetcher(o Options, allow func(netip.Addr) bool) *Fetcher {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxDownloadBytes <= 0 {
		o.MaxDownloadBytes = DefaultMaxDownloadBytes
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	f := &Fetcher{o: o, allow: allow}
	if f.allow == nil {
		f.allow = IsPublic
		if o.AllowPrivate {
			f.allow = func(netip.Addr) bool { return true }
		}
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: f.control}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 20 * time.Second,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	f.hc = &http.Client{Transport: tr, Timeout: o.Timeout, CheckRedirect: f.checkRedirect}
	return f
}

// control refuses connections to disallowed addresses; it sees the address
// after DNS resolution, for every connection (redirects included).
func (f *Fetcher) control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", ErrPrivateAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", ErrPrivateAddress, host)
	}
	if !f.allow(ip.Unmap().WithZone("")) {
		return fmt.Errorf("%w: %s (set web_fetch_allow_private = true to allow)", ErrPrivateAddress, ip)
	}
	return nil
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if f.o.MaxRedirects < 0 || len(via) > f.o.MaxRedirects {
		return fmt.Errorf("stopped after %d redirects (last to %s)", len(via), req.URL.Redacted())
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return f.checkURL(req.URL)
	}
	u, err := urlnorm.Parse(req.URL.String())
	if err != nil {
		return fmt.Errorf("redirect to an invalid URL %s: %w", req.URL.Redacted(), err)
	}
	if err := f.checkURL(u); err != nil {
		return err
	}
	req.URL, req.Host = u, ""
	return nil
}

// checkURL refuses non-http(s) URLs and literal disallowed hosts early,
// with a clear message (the dial check catches resolved names). u is
// normalised (urlnorm) for http(s).
func (f *Fetcher) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("only http and https URLs can be fetched, not %q", u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("the URL has no host")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !f.allow(ip.Unmap().WithZone("")) {
			return fmt.Errorf("%w: %s (set web_fetch_allow_private = true to allow)", ErrPrivateAddress, ip)
		}
	} else if h := strings.ToLower(strings.TrimSuffix(host, ".")); (h == "localhost" || strings.HasSuffix(h, ".localhost")) && !f.o.AllowPrivate {
		return fmt.Errorf("%w: %s (set web_fetch_allow_private = true to allow)", ErrPrivateAddress, host)
	}
	return nil
}

// nonPublic lists prefixes that are not globally reachable beyond what
// netip's predicates cover (IANA special-purpose registries).
var nonPublic = [...]netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT shared space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// IsPublic reports whether a is a globally reachable unicast address: not
// loopback, private (RFC 1918, fc00::/7), link-local (169.254/16 with the
// cloud metadata service, fe80::/10), unspecified, multicast, CGNAT,
// documentation or reserved. IPv4 embedded in IPv6 (::ffff:a.b.c.d,
// 64:ff9b::/96 NAT64, 2002::/16 6to4) is judged by the IPv4 address.
func IsPublic(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
			return IsPublic(netip.AddrFrom4([4]byte(b[12:16])))
		case netip.MustParsePrefix("2002::/16").Contains(a):
			return IsPublic(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return true
}

// Page is a fetched page. URL is the final URL after redirects; Content
// the converted text, cut at the caller's cap (Truncated then true);
// Bytes the size of the downloaded body.
type Page struct {
	URL         string
	Status      int
	ContentType string
	Title       string
	Content     string
	Truncated   bool
	Bytes       int
}

// Fetch GETs rawURL and returns its content in format (HTML pages only;
// other text is returned as is), cut at maxBytes bytes (0 =
// DefaultMaxBytes; at most MaxMaxBytes). Errors: a bad URL or scheme,
// ErrPrivateAddress, ErrNotText, HTTP status >= 400 (with the start of the
// body), timeouts, and bodies over MaxDownloadBytes (cut, not an error,
// for text: Truncated is set).
func (f *Fetcher) Fetch(ctx context.Context, rawURL string, format Format, maxBytes int) (Page, error) {
	u, err := urlnorm.Parse(rawURL)
	if err != nil {
		return Page{}, fmt.Errorf("invalid URL %q: %w", rawURL, err)
	}
	if err := f.checkURL(u); err != nil {
		return Page{}, err
	}
	switch format {
	case "":
		format = FormatMarkdown
	case FormatMarkdown, FormatText, FormatHTML:
	default:
		return Page{}, fmt.Errorf("unknown format %q: use markdown, text or html", format)
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	maxBytes = min(maxBytes, MaxMaxBytes)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fmt.Errorf("invalid URL %q: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", f.o.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5")
	resp, err := f.hc.Do(req)
	if err != nil {
		return Page{}, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	body, cut, err := readCapped(resp.Body, f.o.MaxDownloadBytes)
	if err != nil {
		return Page{}, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	p := Page{URL: resp.Request.URL.String(), Status: resp.StatusCode, Bytes: len(body)}
	if resp.StatusCode >= 400 {
		return p, fmt.Errorf("fetch %s: the server answered %s: %s", u.Redacted(), resp.Status, snippet(body))
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(body)
	}
	mt, params, _ := mime.ParseMediaType(ct)
	p.ContentType = mt
	if !isText(mt) {
		return p, fmt.Errorf("fetch %s: %w: the server sent %s (%d bytes); web_fetch returns text only", u.Redacted(), ErrNotText, mt, len(body))
	}
	text := toUTF8(body, params["charset"])
	if isHTML(mt) {
		p.Title = title(text)
		text, err = convertHTML(ctx, text, format, resp.Request.URL)
		if err != nil {
			return p, fmt.Errorf("fetch %s: convert HTML: %w", u.Redacted(), err)
		}
	}
	p.Content, p.Truncated = cutUTF8(text, maxBytes)
	p.Truncated = p.Truncated || cut
	return p, nil
}

func readCapped(r io.Reader, limit int64) ([]byte, bool, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("read body: %w", err)
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

func isHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

func isText(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"), isHTML(mt):
		return true
	case mt == "application/json", mt == "application/xml", mt == "application/javascript",
		mt == "application/x-javascript", mt == "application/ecmascript", mt == "application/x-yaml",
		mt == "application/yaml", mt == "application/toml", mt == "application/x-sh":
		return true
	case strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	return false
}

// toUTF8 decodes Latin-1 style charsets and replaces invalid UTF-8.
func toUTF8(b []byte, charset string) string {
	switch strings.ToLower(strings.TrimSpace(charset)) {
	case "iso-8859-1", "latin1", "latin-1", "windows-1252", "cp1252", "us-ascii":
		if !utf8.Valid(b) {
			r := make([]rune, len(b))
			for i, c := range b {
				r[i] = rune(c)
			}
			return string(r)
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// cutUTF8 cuts s to at most n bytes at a rune boundary.
func cutUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

func snippet(b []byte) string {
	const n = 300
	s := strings.ToValidUTF8(string(b[:min(len(b), n)]), "?")
	s = strings.Join(strings.Fields(s), " ")
	if len(b) > n {
		s += "..."
	}
	return s
}

// IsNetError reports whether err, from Fetch, comes from the transport
// (connecting, sending, reading the answer) rather than from the request
// as given (a malformed URL, a refused scheme).
func IsNetError(err error) bool {
	return strings.HasPrefix(err.Error(), "fetch ")
}
