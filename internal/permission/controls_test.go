package permission

import (
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/attacktest"
	"github.com/zelvior/aidex/internal/permission/shell"
)

// controlLines are command lines with characters that can hide what they
// do: the approval would show "ls" while the shell runs more.
var controlLines = []struct{ line, shown string }{
	{"ls\rrm -rf src", `ls\rrm -rf src`},
	{"git status\r\n", `git status\r`},
	{"echo ok\x1b[2K\x1b[1A", `echo ok\x1b[2K\x1b[1A`},
	{"cat a.txt\x7f", `cat a.txt\x7f`},
	{"ls \u202e; rm -rf x", `ls \u202e; rm -rf x`},
	{"ls\u2066 x\u2069", `ls\u2066 x\u2069`},
	{"pwd\u200f", `pwd\u200f`},
	{"ls \u061c-la", `ls \u061c-la`},
	{"echo \x00", `echo \x00`},
	{"ls\u0085", `ls\x85`},
	{"echo 'unterminated\r", `echo 'unterminated\r`},
}

// A line with control characters is never allowed by a rule, never
// counted read-only, in any mode: it asks (denied headless and in plan
// mode), and the reason shows the characters escaped. Deny rules still win.
func TestControlCharactersAsk(t *testing.T) {
	f := newFixture(t)
	allowAll := []Rule{rule(t, Allow, "run_command(*)"), rule(t, Allow, "run_command(ls *)"), rule(t, Allow, "run_command(git status)")}
	for _, c := range controlLines {
		req := execReq(c.line)
		for _, mode := range []Mode{ModeAsk, ModeAutoEdit, ModeYolo} {
			p := newPolicy(t, f, mode, true, allowAll...)
			v := p.Check(req)
			if v.Decision == Deny && strings.HasPrefix(v.Rule, "safe_mode") {
				continue // an invisible character in a command name: safe_mode denies it outright
			}
			if v.Decision != Ask || v.Rule != RuleControlChars {
				t.Errorf("%s %q: want ask by %q, got %s (%s: %s)", mode, c.line, RuleControlChars, v.Decision, v.Rule, v.Reason)
				continue
			}
			if !strings.Contains(v.Reason, c.shown) {
				t.Errorf("%s %q: the reason does not show %s: %s", mode, c.line, c.shown, v.Reason)
			}
			for _, e := range v.Commands {
				if e.Decision == Allow || shell.HasControls(e.Command) || shell.HasControls(e.Reason) {
					t.Errorf("%s %q: entry %q is %s or shows raw control characters (%s)", mode, c.line, e.Command, e.Decision, e.Reason)
				}
			}
			if s := p.SuggestRule(req); s != "" {
				t.Errorf("%q: suggested the rule %q; no rule may allow it", c.line, s)
			}
		}
		if v := newPolicy(t, f, ModeYolo, false, allowAll...).Check(req); v.Decision != Deny {
			t.Errorf("headless %q: want deny, got %s (%s)", c.line, v.Decision, v.Reason)
		}
		if v := newPolicy(t, f, ModePlan, true).Check(req); v.Decision != Deny {
			t.Errorf("plan %q: want deny, got %s (%s)", c.line, v.Decision, v.Reason)
		}
	}
	// Deny rules still win over the ask.
	p := newPolicy(t, f, ModeYolo, true, rule(t, Deny, "run_command(rm *)"))
	if v := p.Check(execReq("ls\r; rm -rf src")); v.Decision != Deny || v.Rule != "run_command(rm *)" {
		t.Errorf("deny rule lost: %+v", v)
	}
	// Tabs and newlines are ordinary.
	if v := newPolicy(t, f, ModeAsk, true).Check(execReq("ls\t-la\ngit status")); v.Decision != Allow {
		t.Errorf("tab and newline: want allow, got %+v", v)
	}
}

// The shared attack cases' terminal escape sequences (E-126), put in a
// command line, make it ask.
func TestControlCharactersAttackCases(t *testing.T) {
	f := newFixture(t)
	p := newPolicy(t, f, ModeYolo, true, rule(t, Allow, "run_command(*)"))
	n := 0
	for _, c := range attacktest.Load(t) {
		for _, field := range []string{"command", "content"} {
			s, _ := c.Input[field].(string)
			if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }) {
				continue
			}
			n++
			line := "printf '%s' " + "'" + strings.ReplaceAll(s, "'", "") + "'"
			if v := p.Check(execReq(line)); v.Decision != Ask || v.Rule != RuleControlChars {
				t.Errorf("%s: %q: want ask by %q, got %s (%s)", c.ID, line, RuleControlChars, v.Decision, v.Reason)
			}
		}
	}
	if n == 0 {
		t.Fatal("no attack case carries control characters: the test tests nothing")
	}
}
