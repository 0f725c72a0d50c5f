package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The release scripts/release.sh built (CI: .ci/run builds a snapshot and
// names its folder in AIDEX_RELEASE_DIR and its version in
// AIDEX_RELEASE_VERSION) holds every platform's archive and a SHA256SUMS
// listing them; install.sh installs this machine's from a local server and
// the installed aidex prints the stamped version; the same release with
// this machine's archive changed is refused. Without AIDEX_RELEASE_DIR the
// test is skipped: building six platforms takes minutes.
func TestInstallBuiltRelease(t *testing.T) {
	dir, version := os.Getenv("AIDEX_RELEASE_DIR"), os.Getenv("AIDEX_RELEASE_VERSION")
	if dir == "" || version == "" {
		t.Skip("no built release: run scripts/release.sh --snapshot --out DIR, then this test with AIDEX_RELEASE_DIR=DIR AIDEX_RELEASE_VERSION=VERSION")
	}
	needShell(t)
	var names []string
	for _, p := range Platforms() {
		names = append(names, p.ArchiveName())
	}
	want, err := Checksums(dir, names)
	if err != nil {
		t.Fatalf("the built release lacks an archive: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, ChecksumFile)); err != nil || string(got) != string(want) {
		t.Errorf("%s:\n%s(%v)\nwant:\n%s", ChecksumFile, got, err, want)
	}

	native := Platform{runtime.GOOS, runtime.GOARCH}
	if _, err := ParseDir(native.Dir()); err != nil {
		t.Skipf("no release archive for this machine (%s)", native)
	}
	srv := serve(t, dir)
	r := runInstall(t, srv.URL, nil)
	if r.err != nil {
		t.Fatalf("install.sh: %v\n%s", r.err, r.errOut)
	}
	for _, bin := range native.Binaries() {
		if fi, err := os.Stat(filepath.Join(r.dir, bin)); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s installed: %v; want it executable", bin, err)
		}
	}
	out, err := exec.Command(filepath.Join(r.dir, "aidex"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "aidex "+version+" (built ") {
		t.Errorf("installed aidex --version printed %q (%v), want aidex %s (built ...)", out, err, version)
	}

	// The same release with this machine's archive changed by one byte.
	bad := t.TempDir()
	for _, n := range []string{ChecksumFile, native.ArchiveName()} {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if n != ChecksumFile {
			data[len(data)/3] ^= 0x40
		}
		if err := os.WriteFile(filepath.Join(bad, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = runInstall(t, serve(t, bad).URL, nil)
	if r.err == nil || !strings.Contains(r.errOut, "checksum mismatch for "+native.ArchiveName()) {
		t.Errorf("install.sh of a changed archive: %v\n%s\nwant it refused for a checksum mismatch", r.err, r.errOut)
	}
	if entries, _ := os.ReadDir(r.dir); len(entries) > 0 {
		t.Errorf("install.sh refused but left %v in %s", entries, r.dir)
	}
}
