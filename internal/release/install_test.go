package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// repoRoot is the repository's root, where install.sh, install.ps1 and
// scripts/release.sh live.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// needShell skips a test where install.sh cannot run: no POSIX sh, curl or
// wget, tar or a SHA-256 tool.
func needShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("install.sh is for Linux and macOS")
	}
	for _, tools := range [][]string{{"sh"}, {"tar"}, {"curl", "wget"}, {"sha256sum", "shasum", "openssl"}} {
		found := false
		for _, tool := range tools {
			if _, err := exec.LookPath(tool); err == nil {
				found = true
			}
		}
		if !found {
			t.Skipf("install.sh needs one of %v", tools)
		}
	}
}

// fakeRelease writes into dir one archive per Unix platform whose aidex is
// a shell script printing "aidex fake OS/ARCH" (and creating the file
// $AIDEX_TEST_RAN when run), and their SHA256SUMS.
func fakeRelease(t *testing.T, dir string) {
	t.Helper()
	var sums strings.Builder
	for _, p := range Platforms() {
		if p.OS == "windows" {
			continue
		}
		script := "#!/bin/sh\n[ -z \"${AIDEX_TEST_RAN:-}\" ] || : >\"$AIDEX_TEST_RAN\"\necho \"aidex fake " + p.String() + "\"\n"
		var buf bytes.Buffer
		err := Archive(&buf, p, []File{
			{Name: "aidex", Exec: true, Data: []byte(script)},
			{Name: "aidex-chat", Exec: true, Data: []byte("#!/bin/sh\nexit 0\n")},
			{Name: "aidex-sandbox", Exec: true, Data: []byte("#!/bin/sh\nexit 0\n")},
			{Name: "aidex-nats", Exec: true, Data: []byte("#!/bin/sh\nexit 0\n")},
			{Name: "LICENSE", Data: []byte("license")},
		}, stamp)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p.ArchiveName()), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(buf.Bytes())
		sums.WriteString(hex.EncodeToString(h[:]) + "  " + p.ArchiveName() + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, ChecksumFile), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// server serves dir over HTTP and records the paths asked for.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func serve(t *testing.T, dir string) *server {
	s := &server{}
	files := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// installRun is one run of install.sh.
type installRun struct {
	out, errOut string
	err         error
	dir         string // the install folder it was told to use
	ran         string // the file a fake aidex creates when it runs
}

// runInstall runs install.sh with base as AIDEX_INSTALL_BASE, a fresh HOME,
// and, when uname is not empty, fake uname and sysctl commands answering
// uname -s, uname -m and `sysctl -n sysctl.proc_translated` with
// uname[0], uname[1] and uname[2].
func runInstall(t *testing.T, base string, uname []string, args ...string) installRun {
	t.Helper()
	tmp := t.TempDir()
	r := installRun{dir: filepath.Join(tmp, "bin"), ran: filepath.Join(tmp, "ran")}
	path := os.Getenv("PATH")
	if uname != nil {
		fake := filepath.Join(tmp, "fake")
		os.Mkdir(fake, 0o755)
		for name, body := range map[string]string{
			"uname":  "case $1 in -s) echo '" + uname[0] + "' ;; -m) echo '" + uname[1] + "' ;; *) exit 1 ;; esac\n",
			"sysctl": "[ -n '" + uname[2] + "' ] || exit 1\necho '" + uname[2] + "'\n",
		} {
			if err := os.WriteFile(filepath.Join(fake, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		path = fake + string(os.PathListSeparator) + path
	}
	if args == nil {
		args = []string{"--dir", r.dir}
	}
	cmd := exec.Command("sh", append([]string{filepath.Join(repoRoot(t), "install.sh")}, args...)...)
	cmd.Env = []string{"PATH=" + path, "HOME=" + filepath.Join(tmp, "home"), "AIDEX_INSTALL_BASE=" + base, "AIDEX_TEST_RAN=" + r.ran}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	r.err = cmd.Run()
	r.out, r.errOut = out.String(), errOut.String()
	return r
}

// install.sh picks the archive of the OS and CPU uname reports (the native
// one under Rosetta 2), installs both programs where --dir says, runs the
// installed aidex only to print its version, and says how to put the
// folder on PATH.
func TestInstallShPicksThePlatformsArchive(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	fakeRelease(t, dir)
	srv := serve(t, dir)
	for _, c := range []struct {
		uname []string
		want  string
	}{
		{[]string{"Linux", "x86_64", ""}, "linux/amd64"},
		{[]string{"Linux", "aarch64", ""}, "linux/arm64"},
		{[]string{"Linux", "arm64", ""}, "linux/arm64"},
		{[]string{"Darwin", "x86_64", ""}, "darwin/amd64"},
		{[]string{"Darwin", "x86_64", "0"}, "darwin/amd64"},
		{[]string{"Darwin", "x86_64", "1"}, "darwin/arm64"}, // Rosetta 2
		{[]string{"Darwin", "arm64", ""}, "darwin/arm64"},
	} {
		t.Run(strings.Join(c.uname, "_"), func(t *testing.T) {
			srv.mu.Lock()
			srv.paths = nil
			srv.mu.Unlock()
			r := runInstall(t, srv.URL, c.uname)
			if r.err != nil {
				t.Fatalf("install.sh: %v\n%s%s", r.err, r.out, r.errOut)
			}
			archive := "aidex-" + strings.ReplaceAll(c.want, "/", "-") + ".tar.gz"
			srv.mu.Lock()
			paths := strings.Join(srv.paths, " ")
			srv.mu.Unlock()
			if paths != "/"+ChecksumFile+" /"+archive {
				t.Errorf("install.sh downloaded %s, want /%s /%s", paths, ChecksumFile, archive)
			}
			out, err := exec.Command(filepath.Join(r.dir, "aidex")).Output()
			if err != nil || string(out) != "aidex fake "+c.want+"\n" {
				t.Errorf("installed aidex printed %q (%v), want the %s one", out, err, c.want)
			}
			for _, helper := range []string{"aidex-chat", "aidex-sandbox", "aidex-nats"} {
				if fi, err := os.Stat(filepath.Join(r.dir, helper)); err != nil || fi.Mode().Perm() != 0o755 {
					t.Errorf("%s installed: %v, %v; want mode 0755", helper, fi, err)
				}
			}
			for _, want := range []string{"installed aidex fake " + c.want + " into " + r.dir, "not on your PATH", `export PATH="` + r.dir + `:$PATH"`} {
				if !strings.Contains(r.errOut, want) {
					t.Errorf("install.sh said:\n%s\nwant it to say %q", r.errOut, want)
				}
			}
		})
	}
}

// Without --dir, install.sh installs into $AIDEX_INSTALL_DIR, else
// ~/.local/bin; a folder already on PATH gets no PATH note.
func TestInstallShFolder(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	fakeRelease(t, dir)
	srv := serve(t, dir)
	linux := []string{"Linux", "x86_64", ""}

	r := runInstall(t, srv.URL, linux, []string{}...)
	home := filepath.Join(filepath.Dir(r.dir), "home")
	if r.err != nil {
		t.Fatalf("install.sh: %v\n%s", r.err, r.errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "bin", "aidex")); err != nil {
		t.Errorf("install.sh without --dir: %v; want aidex in ~/.local/bin\n%s", err, r.errOut)
	}

	// AIDEX_INSTALL_DIR, already on PATH.
	tmp := t.TempDir()
	cmd := exec.Command("sh", filepath.Join(repoRoot(t), "install.sh"))
	cmd.Env = []string{"PATH=" + tmp + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir(), "AIDEX_INSTALL_BASE=" + srv.URL, "AIDEX_INSTALL_DIR=" + tmp}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh with AIDEX_INSTALL_DIR: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "aidex")); err != nil {
		t.Errorf("install.sh with AIDEX_INSTALL_DIR: %v; want aidex there", err)
	}
	if strings.Contains(string(out), "PATH") {
		t.Errorf("install.sh into a folder on PATH said:\n%s\nwant no PATH note", out)
	}
}

// install.sh refuses, with a reason, an archive whose SHA-256 is not the
// one SHA256SUMS lists, one SHA256SUMS does not list, a broken SHA256SUMS,
// a failed download and a platform without a release; it then installs
// nothing and runs nothing it downloaded.
func TestInstallShRefuses(t *testing.T) {
	needShell(t)
	linux := []string{"Linux", "x86_64", ""}
	archive := Platform{"linux", "amd64"}.ArchiveName()
	for _, c := range []struct {
		name   string
		tamper func(dir string)
		uname  []string
		want   string
		args   []string // nil: --dir DIR
	}{
		{"tampered archive", func(dir string) {
			// A valid archive whose aidex would run, but not the one listed.
			var buf bytes.Buffer
			Archive(&buf, Platform{"linux", "amd64"}, []File{
				{Name: "aidex", Exec: true, Data: []byte("#!/bin/sh\n: >\"$AIDEX_TEST_RAN\"\necho evil\n")},
				{Name: "aidex-chat", Exec: true, Data: []byte("#!/bin/sh\n")},
				{Name: "aidex-sandbox", Exec: true, Data: []byte("#!/bin/sh\n")},
				{Name: "aidex-nats", Exec: true, Data: []byte("#!/bin/sh\n")},
			}, time.Now())
			os.WriteFile(filepath.Join(dir, archive), buf.Bytes(), 0o644)
		}, linux, "checksum mismatch for " + archive, nil},
		{"one byte changed", func(dir string) {
			data, _ := os.ReadFile(filepath.Join(dir, archive))
			data[len(data)/2] ^= 1
			os.WriteFile(filepath.Join(dir, archive), data, 0o644)
		}, linux, "checksum mismatch for " + archive, nil},
		{"archive not listed", func(dir string) {
			data, _ := os.ReadFile(filepath.Join(dir, ChecksumFile))
			var keep []string
			for _, l := range strings.SplitAfter(string(data), "\n") {
				if !strings.Contains(l, archive) {
					keep = append(keep, l)
				}
			}
			os.WriteFile(filepath.Join(dir, ChecksumFile), []byte(strings.Join(keep, "")), 0o644)
		}, linux, "lists no SHA-256 for " + archive, nil},
		{"checksum not hex", func(dir string) {
			os.WriteFile(filepath.Join(dir, ChecksumFile), []byte("<html>not found</html>  "+archive+"\n"), 0o644)
		}, linux, "lists no SHA-256 for " + archive, nil},
		{"checksum too short", func(dir string) {
			os.WriteFile(filepath.Join(dir, ChecksumFile), []byte("abc123  "+archive+"\n"), 0o644)
		}, linux, "lists no SHA-256 for " + archive, nil},
		{"no checksum file", func(dir string) { os.Remove(filepath.Join(dir, ChecksumFile)) }, linux, "could not download", nil},
		{"no archive", func(dir string) { os.Remove(filepath.Join(dir, archive)) }, linux, "could not download", nil},
		{"unknown CPU", func(string) {}, []string{"Linux", "riscv64", ""}, "no release for Linux on riscv64", nil},
		{"unknown OS", func(string) {}, []string{"FreeBSD", "amd64", ""}, "no release for FreeBSD", nil},
		{"Windows shell", func(string) {}, []string{"MINGW64_NT-10.0", "x86_64", ""}, "install.ps1", nil},
		{"--dir without a folder", func(string) {}, linux, "--dir needs a folder", []string{"--dir"}},
		{"--dir empty", func(string) {}, linux, "--dir needs a folder", []string{"--dir", ""}},
		{"unknown argument", func(string) {}, linux, "unknown argument --yes", []string{"--yes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			fakeRelease(t, dir)
			c.tamper(dir)
			srv := serve(t, dir)
			r := runInstall(t, srv.URL, c.uname, c.args...)
			if r.err == nil {
				t.Fatalf("install.sh succeeded:\n%s", r.errOut)
			}
			if !strings.Contains(r.errOut, c.want) {
				t.Errorf("install.sh said:\n%s\nwant %q", r.errOut, c.want)
			}
			if entries, _ := os.ReadDir(r.dir); len(entries) > 0 {
				t.Errorf("install.sh refused but left %v in %s", entries, r.dir)
			}
			if _, err := os.Stat(r.ran); err == nil {
				t.Errorf("install.sh ran the downloaded aidex before refusing")
			}
		})
	}
}
