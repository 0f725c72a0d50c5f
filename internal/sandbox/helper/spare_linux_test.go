//go:build linux

package helper

import (
	"reflect"
	"strings"
	"testing"
)

func TestDecodeRequest(t *testing.T) {
	body := []byte("/h\x00-n\x00\x00A=1\x00/ws\x00")
	argv, env, cwd, err := decodeRequest(3, 1, body)
	if err != nil || !reflect.DeepEqual(argv, []string{"/h", "-n", ""}) || !reflect.DeepEqual(env, []string{"A=1"}) || cwd != "/ws" {
		t.Errorf("got %q %q %q %v", argv, env, cwd, err)
	}
	for _, c := range []struct {
		argc, envc uint32
		body       string
	}{
		{3, 1, "/h\x00-n\x00\x00A=1\x00/ws"},     // no final NUL
		{3, 2, "/h\x00-n\x00\x00A=1\x00/ws\x00"}, // too few strings
		{1, 0, "/h\x00/ws\x00x\x00"},             // too many
		{0, 0, ""},
		{1 << 31, 1 << 31, "x\x00"},
	} {
		if _, _, _, err := decodeRequest(c.argc, c.envc, []byte(c.body)); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("decodeRequest(%d, %d, %q) = %v, want a malformed-request error", c.argc, c.envc, c.body, err)
		}
	}
}

// FuzzDecodeRequest: any body and counts give either the counted strings
// or an error, never a panic.
func FuzzDecodeRequest(f *testing.F) {
	f.Add(uint32(3), uint32(1), []byte("/h\x00-n\x00\x00A=1\x00/ws\x00"))
	f.Add(uint32(0), uint32(0), []byte("\x00"))
	f.Fuzz(func(t *testing.T, argc, envc uint32, body []byte) {
		argv, env, _, err := decodeRequest(argc, envc, body)
		if err == nil && (uint32(len(argv)) != argc || uint32(len(env)) != envc) {
			t.Errorf("counts %d/%d, got %d/%d strings", argc, envc, len(argv), len(env))
		}
	})
}

func TestConfigRoundTrip(t *testing.T) {
	s := Spec{Namespaces: true, Loopback: true, NetOff: true,
		Writable: []string{"/ws"}, Protected: []string{"/ws/.git/config"},
		MaskDirs: []string{"/run"}, MaskFiles: []string{"/home/u/.netrc"}}
	got, err := ParseConfig(s.EncodeConfig())
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Errorf("round trip: %+v %v", got, err)
	}
	full := s
	full.GoMaxProcs, full.Path, full.Args = "4", "/bin/true", []string{"true"}
	if !reflect.DeepEqual(full.EncodeConfig(), s.EncodeConfig()) {
		t.Error("EncodeConfig depends on the command or its GOMAXPROCS")
	}
	if _, err := ParseConfig(full.Encode()); err == nil {
		t.Error("ParseConfig accepted a command")
	}
}
