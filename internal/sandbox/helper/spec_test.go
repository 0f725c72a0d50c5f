package helper

import (
	"reflect"
	"strings"
	"testing"
)

func TestSpecRoundTrip(t *testing.T) {
	s := Spec{Namespaces: true, Loopback: true, NetOff: true,
		Writable: []string{"/ws", "/tmp"}, Protected: []string{"/ws/.git/hooks"},
		MaskDirs: []string{"/home/u/.ssh"}, MaskFiles: []string{"/home/u/.netrc"},
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
	} {
		if _, err := Parse(args); err == nil {
			t.Errorf("Parse(%q) accepted", args)
		} else if !strings.Contains(err.Error(), "command") && !strings.Contains(err.Error(), "argument") {
			t.Errorf("Parse(%q): unclear error %v", args, err)
		}
	}
}
