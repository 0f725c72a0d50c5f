package webpage

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/webpage/webpagetest"
)

func TestFetchMarkdownTextHTML(t *testing.T) {
	srv := webpagetest.Serve(t, webpagetest.HTMLHandler)
	f := New(Options{AllowPrivate: true})
	p, err := f.Fetch(context.Background(), srv.URL+"/page", "", 0)
	require.NoError(t, err)
	require.Equal(t, 200, p.Status)
	require.Equal(t, "text/html", p.ContentType)
	require.Equal(t, "Test & Page", p.Title)
	require.Contains(t, p.Content, "# Heading")
	require.Contains(t, p.Content, "Hello **world**")
	require.Contains(t, p.Content, "[the intro]("+srv.URL+"/docs/intro)", "relative links become absolute")
	require.Contains(t, p.Content, "| A | B |")
	require.Contains(t, p.Content, "- one")
	require.NotContains(t, p.Content, "do-not-show")
	require.NotContains(t, p.Content, "color:red")

	p, err = f.Fetch(context.Background(), srv.URL, FormatText, 0)
	require.NoError(t, err)
	require.Contains(t, p.Content, "Heading\n")
	require.Contains(t, p.Content, "Hello world, see the intro.")
	require.NotContains(t, p.Content, "do-not-show")
	require.NotContains(t, p.Content, "<")

	p, err = f.Fetch(context.Background(), srv.URL, FormatHTML, 0)
	require.NoError(t, err)
	require.Equal(t, webpagetest.Page, p.Content)

	_, err = f.Fetch(context.Background(), srv.URL, "pdf", 0)
	require.ErrorContains(t, err, "unknown format")
}

func TestFetchPlainTextAndCharset(t *testing.T) {
	srv := webpagetest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/latin1" {
			w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
			_, _ = w.Write([]byte{'c', 'a', 'f', 0xE9})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"a": "<b>not converted</b>"}`))
	})
	f := New(Options{AllowPrivate: true})
	p, err := f.Fetch(context.Background(), srv.URL+"/data.json", FormatMarkdown, 0)
	require.NoError(t, err)
	require.Equal(t, `{"a": "<b>not converted</b>"}`, p.Content)
	p, err = f.Fetch(context.Background(), srv.URL+"/latin1", "", 0)
	require.NoError(t, err)
	require.Equal(t, "café", p.Content)
}

func TestFetchBinaryRefused(t *testing.T) {
	srv := webpagetest.Serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\nxxxx"))
	})
	_, err := New(Options{AllowPrivate: true}).Fetch(context.Background(), srv.URL, "", 0)
	require.ErrorIs(t, err, ErrNotText)
}

func TestFetchCaps(t *testing.T) {
	big := strings.Repeat("é", 5000) // 10000 bytes
	srv := webpagetest.Serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(big))
	})
	p, err := New(Options{AllowPrivate: true}).Fetch(context.Background(), srv.URL, "", 1001)
	require.NoError(t, err)
	require.True(t, p.Truncated)
	require.Equal(t, 1000, len(p.Content), "cut at a rune boundary")
	require.Equal(t, 10000, p.Bytes)

	p, err = New(Options{AllowPrivate: true, MaxDownloadBytes: 64}).Fetch(context.Background(), srv.URL, "", 0)
	require.NoError(t, err)
	require.True(t, p.Truncated)
	require.Equal(t, 64, p.Bytes)
}

func TestFetchTimeout(t *testing.T) {
	srv := webpagetest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	})
	_, err := New(Options{AllowPrivate: true, Timeout: 100 * time.Millisecond}).Fetch(context.Background(), srv.URL, "", 0)
	require.Error(t, err)
	require.ErrorContains(t, err, "Timeout")
}

func TestLoopbackRefusedByDefault(t *testing.T) {
	var hits atomic.Int32
	srv := webpagetest.Serve(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1); webpagetest.HTMLHandler(w, r) })
	f := New(Options{})
	for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), "http://[::1]:9/", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://0.0.0.0:1/"} {
		_, err := f.Fetch(context.Background(), u, "", 0)
		require.ErrorIs(t, err, ErrPrivateAddress, u)
		require.ErrorContains(t, err, "web_fetch_allow_private")
	}
	require.Zero(t, hits.Load())
}

func TestDialCheckSeesResolvedAddress(t *testing.T) {
	var hits atomic.Int32
	srv := webpagetest.Serve(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1); webpagetest.HTMLHandler(w, r) })
	// Names pass the early check (AllowPrivate), but the dial-time check
	// refuses what "localhost" resolves to: the rebinding case.
	f := newFetcher(Options{AllowPrivate: true}, func(a netip.Addr) bool { return !a.IsLoopback() })
	_, err := f.Fetch(context.Background(), strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), "", 0)
	require.ErrorIs(t, err, ErrPrivateAddress)
	require.Zero(t, hits.Load())
}

func TestRedirectsRechecked(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/final", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/final", webpagetest.HTMLHandler)
	srv := webpagetest.Serve(t, mux.ServeHTTP)
	// The test server itself (127.0.0.1) is allowed; everything else must
	// be public.
	f := newFetcher(Options{MaxRedirects: 3}, func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") || IsPublic(a) })

	p, err := f.Fetch(context.Background(), srv.URL+"/ok", "", 0)
	require.NoError(t, err)
	require.Equal(t, srv.URL+"/final", p.URL)

	_, err = f.Fetch(context.Background(), srv.URL+"/metadata", "", 0)
	require.ErrorIs(t, err, ErrPrivateAddress)
	_, err = f.Fetch(context.Background(), srv.URL+"/file", "", 0)
	require.ErrorContains(t, err, "only http and https")
	_, err = f.Fetch(context.Background(), srv.URL+"/loop", "", 0)
	require.ErrorContains(t, err, "stopped after 4 redirects")
}

func TestSchemesRefused(t *testing.T) {
	f := New(Options{AllowPrivate: true})
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "gopher://x", "javascript:alert(1)", "//example.com", "http://"} {
		_, err := f.Fetch(context.Background(), u, "", 0)
		require.Error(t, err, u)
	}
}

func TestControl(t *testing.T) {
	f := New(Options{})
	for _, a := range []string{"127.0.0.1:80", "[::1]:443", "[::ffff:127.0.0.1]:80", "169.254.169.254:80", "[fe80::1%eth0]:80", "10.1.2.3:80", "192.168.1.1:80", "100.64.0.1:80", "[fd00::1]:80", "0.0.0.0:80", "[64:ff9b::7f00:1]:80", "[2002:7f00:1::]:80", "not-an-address"} {
		require.ErrorIs(t, f.control("tcp", a, nil), ErrPrivateAddress, a)
	}
	for _, a := range []string{"93.184.216.34:443", "[2606:4700::6810:84e5]:443", "8.8.8.8:53"} {
		require.NoError(t, f.control("tcp", a, nil), a)
	}
	require.NoError(t, New(Options{AllowPrivate: true}).control("tcp", "127.0.0.1:80", nil))
}

func TestIsPublic(t *testing.T) {
	for _, s := range []string{"93.184.216.34", "8.8.8.8", "2606:4700::1", "1.1.1.1"} {
		require.True(t, IsPublic(netip.MustParseAddr(s)), s)
	}
	for _, s := range []string{"127.0.0.1", "127.9.9.9", "10.0.0.1", "172.16.0.1", "192.168.0.1", "169.254.169.254", "100.100.100.200",
		"0.0.0.0", "255.255.255.255", "224.0.0.1", "::", "::1", "fe80::1", "fc00::1", "ff02::1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "2002:a00:1::", "198.18.0.1", "2001:db8::1"} {
		require.False(t, IsPublic(netip.MustParseAddr(s)), s)
	}
}

// FuzzIsPublic: mapped and embedded IPv4 are judged like the IPv4
// address, and no loopback/private/link-local address is public.
func FuzzIsPublic(f *testing.F) {
	f.Add([]byte{127, 0, 0, 1})
	f.Add([]byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var a netip.Addr
		switch len(b) {
		case 4:
			a = netip.AddrFrom4([4]byte(b))
		case 16:
			a = netip.AddrFrom16([16]byte(b))
		default:
			return
		}
		pub := IsPublic(a)
		if a.Is4In6() && pub != IsPublic(a.Unmap()) {
			t.Fatalf("%s: mapped and unmapped differ", a)
		}
		u := a.Unmap()
		if pub && (u.IsLoopback() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsUnspecified() || u.IsMulticast()) {
			t.Fatalf("%s judged public", a)
		}
		if a.Is4() {
			var nat64 [16]byte
			copy(nat64[:], netip.MustParseAddr("64:ff9b::").AsSlice())
			copy(nat64[12:], b)
			if IsPublic(netip.AddrFrom16(nat64)) != pub {
				t.Fatalf("%s: NAT64 form differs", a)
			}
		}
	})
}

func TestFetchHTTPErrorQuotesBody(t *testing.T) {
	srv := webpagetest.Serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte("access denied by policy"))
	})
	p, err := New(Options{AllowPrivate: true}).Fetch(context.Background(), srv.URL, "", 0)
	require.Error(t, err)
	require.Equal(t, 403, p.Status)
	require.ErrorContains(t, err, "access denied by policy")
	require.False(t, errors.Is(err, ErrPrivateAddress))
}

// BenchmarkConvertMarkdown measures HTML-to-Markdown conversion of a
// ~60 KB page.
func BenchmarkConvertMarkdown(b *testing.B) {
	src := "<html><body>" + strings.Repeat(`<h2>Section</h2><p>Some <a href="/x">linked</a> text with <code>code</code>.</p><ul><li>a</li><li>b</li></ul>`, 500) + "</body></html>"
	u, _ := url.Parse("https://example.com/docs/")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := convertHTML(context.Background(), src, FormatMarkdown, u); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFetchNormalisesURL is hole 11 of issue 22: the fetcher checks and
// fetches the same normalised URL the permission rules were matched
// against: no user information is sent, dot segments are removed, and
// spellings of a private host are refused before any connection.
func TestFetchNormalisesURL(t *testing.T) {
	var gotPath, gotAuth string
	srv := webpagetest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAuth = r.URL.Path, r.Header.Get("Authorization")
		webpagetest.HTMLHandler(w, r)
	})
	f := newFetcher(Options{}, func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") })
	raw := " " + strings.Replace(srv.URL, "http://127.0.0.1", "HTTP://u:pw@127.0.0.1.", 1) + "/a/../x#frag"
	p, err := f.Fetch(context.Background(), raw, "", 0)
	require.NoError(t, err)
	require.Equal(t, "/x", gotPath)
	require.Empty(t, gotAuth, "user information from the URL must not be sent")
	require.Equal(t, srv.URL+"/x", p.URL)

	strict := New(Options{})
	for _, u := range []string{"http://LOCALHOST../", "http://localhost%2E/", "http://[::ffff:7f00:1]/", "http://127.0.0.1./",
		"http://u@localhost/", "http://ｌｏｃａｌｈｏｓｔ/", "http://a.localhost./"} {
		_, err := strict.Fetch(context.Background(), u, "", 0)
		require.ErrorIs(t, err, ErrPrivateAddress, u)
		require.ErrorContains(t, err, "web_fetch_allow_private", u)
	}
}
