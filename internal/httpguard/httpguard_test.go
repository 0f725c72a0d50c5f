package httpguard

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestHostRulesWildcard(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4zero, Port: 8420}
	h := NewHostRules(addr, "0.0.0.0")
	h.LocalIP = func() map[string]bool { return map[string]bool{"192.168.1.5": true, "[fe80::1]": true} }
	for host, want := range map[string]bool{
		"192.168.1.5:8420": true, "[fe80::1]:8420": true, "127.0.0.1:8420": true,
		"192.168.1.6:8420": false, "192.168.1.5:80": false, "0.0.0.0:8420": false, "evil.example:8420": false,
	} {
		if got := h.OK(host); got != want {
			t.Errorf("wildcard ok(%q) = %v, want %v", host, got, want)
		}
	}
	h = NewHostRules(&net.TCPAddr{IP: net.ParseIP("10.0.0.2"), Port: 9000}, "10.0.0.2")
	if !h.OK("10.0.0.2:9000") || h.OK("10.0.0.3:9000") || !h.OK("localhost:9000") {
		t.Error("explicit host rules")
	}
}

func FuzzHostRules(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8420", "localhost:8420", "[::1]:8420", "evil:8420", "LOCALHOST.:8420", "[::ffff:127.0.0.1]:8420", "0.0.0.0:8420", "127.0.0.1:8420\x00", "", ":8420"} {
		f.Add(s)
	}
	h := NewHostRules(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8420}, "127.0.0.1")
	f.Fuzz(func(t *testing.T, host string) {
		if !h.OK(host) {
			return
		}
		switch strings.ToLower(host) {
		case "127.0.0.1:8420", "localhost:8420", "[::1]:8420":
		default:
			t.Fatalf("accepted Host %q", host)
		}
	})
}

func TestBearerAndSameOrigin(t *testing.T) {
	r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:9/mcp", nil)
	r.Host = "127.0.0.1:9"
	if Bearer(r, "tok") {
		t.Error("no Authorization accepted")
	}
	r.Header.Set("Authorization", "Bearer tok")
	if !Bearer(r, "tok") || Bearer(r, "other") || Bearer(r, "") {
		t.Error("bearer check")
	}
	if !SameOrigin(r) {
		t.Error("no Origin refused")
	}
	r.Header.Set("Origin", "http://127.0.0.1:9")
	if !SameOrigin(r) {
		t.Error("own origin refused")
	}
	r.Header.Set("Origin", "http://evil.example")
	if SameOrigin(r) {
		t.Error("another origin accepted")
	}
}
