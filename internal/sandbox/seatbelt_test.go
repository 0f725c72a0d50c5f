package sandbox

import (
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

func TestSeatbeltProfile(t *testing.T) {
	sp := helper.Spec{
		NetOff:    true,
		Writable:  []string{"/Users/me/proj", "/private/tmp"},
		Protected: []string{"/Users/me/proj/.git/hooks", "/Users/me/proj/.aidex"},
		MaskDirs:  []string{"/Users/me/.ssh"},
		MaskFiles: []string{`/Users/me/we"ird\.netrc`},
	}
	p := seatbeltProfile(sp)
	order := []string{
		"(deny default)",
		"(allow file-read*)",
		"(allow file-write*\n  (subpath \"/Users/me/proj\")\n  (subpath \"/private/tmp\"))",
		"(deny file-write*\n  (subpath \"/Users/me/proj/.git/hooks\")",
		"(deny file-read* file-write*\n  (subpath \"/Users/me/.ssh\")\n  (literal \"/Users/me/we\\\"ird\\\\.netrc\"))",
		"(allow network-bind network-inbound (local ip \"localhost:*\"))",
	}
	at := 0
	for _, want := range order {
		i := strings.Index(p[at:], want)
		if i < 0 {
			t.Fatalf("profile lacks (or misorders) %q:\n%s", want, p)
		}
		at += i + len(want)
	}
	if strings.Contains(p, "(allow network*") {
		t.Errorf("network off profile allows the network:\n%s", p)
	}
	sp.NetOff = false
	if on := seatbeltProfile(sp); !strings.Contains(on, "(allow network* system-socket)") {
		t.Errorf("network on profile:\n%s", on)
	}
	if strings.Count(p, "(") != strings.Count(p, ")") {
		t.Errorf("unbalanced parentheses:\n%s", p)
	}
}
