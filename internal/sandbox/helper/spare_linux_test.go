//go:build linux

package helper

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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

// TestMountsHoldSeesAMovedMount: a read-only bind that landed on a folder
// a command had moved into a protected path's place (and then moved
// away again) does not hold, nor does a path whose bind is missing; the
// bind on the path itself does. The test runs itself again in a user and
// mount namespace of its own (util-linux's unshare).
func TestMountsHoldSeesAMovedMount(t *testing.T) {
	if dir := os.Getenv("AIDEX_TEST_MOUNTS_HOLD"); dir != "" {
		mountsHoldInNamespace(t, dir)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1)")
	}
	cmd := exec.Command(unshare, "-r", "-m", "--propagation", "private", os.Args[0], "-test.run", "^TestMountsHoldSeesAMovedMount$", "-test.v")
	cmd.Env = append(os.Environ(), "AIDEX_TEST_MOUNTS_HOLD="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "=== RUN") && os.Getenv("CI") == "" {
		t.Skipf("unshare -rm cannot run here: %s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("in the namespace: %v\n%s", err, out)
	}
}

func mountsHoldInNamespace(t *testing.T, dir string) {
	ws := filepath.Join(dir, "ws")
	hooks := filepath.Join(ws, "sub", ".git", "hooks")
	for _, d := range []string{hooks, filepath.Join(dir, "fake", ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if (mounts{hooks: 1}).hold() {
		t.Fatal("holds with no mount at all")
	}
	// A command moves the repository's folder away and a fake in its
	// place while the spare mounts, then puts the real one back.
	sub, real, fake := filepath.Join(ws, "sub"), filepath.Join(ws, "sub-real"), filepath.Join(dir, "fake")
	must(os.Rename(sub, real))
	must(os.Rename(fake, sub))
	m := mounts{}
	must(bindReadOnly(hooks, hooks, m))
	m.settle()
	if !m.hold() {
		t.Fatal("does not hold right after the mount")
	}
	must(os.Rename(sub, fake))
	must(os.Rename(real, sub))
	if m.hold() {
		t.Error("holds with the bind on the folder moved away")
	}
	masksUnderMasks(t, dir)
	m = mounts{}
	must(bindReadOnly(hooks, hooks, m))
	m.settle()
	if !m.hold() {
		t.Error("does not hold with the bind on the path")
	}
	// A recursive bind of a folder above a mounted path, made after it,
	// leads the path to a copy of its mount: settled after the plan, the
	// path holds.
	must(unix.Mount(ws, ws, "", unix.MS_BIND|unix.MS_REC, ""))
	if m.hold() {
		t.Error("holds with a copy of the mount noted before the recursive bind")
	}
	m.settle()
	if !m.hold() {
		t.Error("does not hold once settled after the recursive bind")
	}
	m[hooks]++
	if m.hold() {
		t.Error("holds for another mount")
	}
}

// masksUnderMasks: a mask under a folder another mask covers is skipped,
// not noted.
func masksUnderMasks(t *testing.T, dir string) {
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(filepath.Join(run, "user", "1000"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := mounts{}
	if err := maskDirs([]string{run, filepath.Join(run, "user", "1000")}, m); err != nil {
		t.Fatal(err)
	}
	m.settle()
	if len(m) != 1 || !m.hold() {
		t.Errorf("masks noted %v, hold %v: want only the outer one, holding", m, m.hold())
	}
}
