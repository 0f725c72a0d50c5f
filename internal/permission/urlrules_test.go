package permission

import (
	"testing"

	"github.com/zelvior/aidex/internal/kind"
)

// TestURLRulesMatchNormalisedForms is hole 11 of issue 22: URL rules are
// matched against the normalised URL, so case, default port, trailing
// dot, user information, percent-encoding and white space do not slip
// past a deny rule, and an allow rule does not reach another host.
func TestURLRulesMatchNormalisedForms(t *testing.T) {
	f := newFixture(t)
	p := newPolicy(t, f, ModeAsk, true, rule(t, Deny, "web_fetch(https://blocked.example/*)"),
		rule(t, Allow, "web_fetch(https://ok.example/*)"))
	net := func(u string) Request { return Request{Tool: "web_fetch", Kind: kind.Network, Command: u} }
	for _, c := range []struct {
		url  string
		want Decision
	}{
		{"https://blocked.example/x", Deny},
		{"HTTPS://BLOCKED.EXAMPLE/x", Deny},
		{"https://blocked.example:443/x", Deny},
		{"https://blocked.example:0443/x", Deny},
		{"https://blocked.example./x", Deny},
		{"https://u@blocked.example/x", Deny},
		{"https://u:pw@blocked.example/x", Deny},
		{" https://blocked.example/x", Deny},
		{"https://blocked.example/x ", Deny},
		{"https://blocked%2Eexample/x", Deny},
		{"https://ｂｌｏｃｋｅｄ.example/x", Deny},
		{"https://blocked.example", Deny},
		{"https://blocked.example/a/../x", Deny},
		{"https://ok.example/doc", Allow},
		{"HTTPS://OK.EXAMPLE:443/doc", Allow},
		{"https://ok.example@evil.example/doc", Ask},
		{"https://ok.example.evil.example/doc", Ask},
		{"https:ok.example/doc", Ask},
		{"https://other.example/", Ask},
	} {
		if v := p.Check(net(c.url)); v.Decision != c.want {
			t.Errorf("web_fetch %q: %s (%s: %s), want %s", c.url, v.Decision, v.Rule, v.Reason, c.want)
		}
	}
	upper := newPolicy(t, f, ModeAsk, true, rule(t, Deny, "web_fetch(HTTPS://Blocked.Example:443/*)"))
	if v := upper.Check(net("https://blocked.example/x")); v.Decision != Deny {
		t.Errorf("a deny rule written with upper case and the default port does not match: %+v", v)
	}
	if got := p.SuggestRule(net("HTTPS://u@Go.Dev:443/doc")); got != "web_fetch(https://go.dev/*)" {
		t.Errorf("SuggestRule = %q, want the normalised host", got)
	}
}
