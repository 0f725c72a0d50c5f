package helper

import (
	"reflect"
	"strings"
	"testing"
)

func TestSpecRoundTrip(t *testing.T) {
	s := Spec{Namespaces: true, Loopback: true, NetOff: true,
		Writable: []string{"/ws", "/tmp"}, Protected: []string{"/ws/.git/hooks"},
		MaskDirs: []string{"/home/u/.ssh"}, MaskFiles: []string{"/home/u/.netrc"}, GoMaxProcs: "4",
		Path: "/bin/sh", Args: []string{"sh", "-c", "echo -- -w /x"}}
	got, err := Parse(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, s)
	}
	got, err = Parse([]string{"--", "/bin/true"})
	if err != nil || got.Path != "/bin/true" || !reflect.DeepEqual(got.Args, []string{"/bin/true"}) {
		t.Errorf("bare command: %+v %v", got, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"-w", "/x"},
		{"-w"},
		{"-w", "relative", "--", "/bin/true"},
		{"-x", "--", "/bin/true"},
		{"--"},
		{"-p", "--", "/bin/true"},
		{"-p"},
	} {
		if _, err := Parse(args); err == nil {
			t.Errorf("Parse(%q) accepted", args)
		} else if !strings.Contains(err.Error(), "command") && !strings.Contains(err.Error(), "argument") {
			t.Errorf("Parse(%q): unclear error %v", args, err)
		}
	}
}

// TestCommandEnv: the command gets its own GOMAXPROCS back (or none), not
// the helper's.
func TestCommandEnv(t *testing.T) {
	env := []string{"A=1", "GOMAXPROCS=1", "B=2"}
	for _, c := range []struct {
		own  string
		want []string
	}{
		{"", []string{"A=1", "B=2"}},
		{"8", []string{"A=1", "B=2", "GOMAXPROCS=8"}},
	} {
		got := Spec{GoMaxProcs: c.own}.CommandEnv(env)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("own %q: got %q, want %q", c.own, got, c.want)
		}
	}
	if !reflect.DeepEqual(env, []string{"A=1", "GOMAXPROCS=1", "B=2"}) {
		t.Errorf("CommandEnv changed its argument: %q", env)
	}
}
