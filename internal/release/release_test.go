package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var stamp = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// stageRelease lays out stage/aidex-OS-ARCH/{aidex,aidex-chat,aidex-sandbox,aidex-nats} for each
// platform with contents naming the platform, and LICENSE and README.md in
// docs, with the given disk time and permission, and returns the stage
// folder and the document paths.
func stageRelease(t *testing.T, platforms []Platform, disk time.Time, perm os.FileMode) (string, []string) {
	t.Helper()
	root := t.TempDir()
	stage := filepath.Join(root, "stage")
	write := func(p string, data string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, disk, disk); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range platforms {
		for _, b := range p.Binaries() {
			write(filepath.Join(stage, p.Dir(), b), "binary "+b+" for "+p.String())
		}
	}
	docs := []string{filepath.Join(root, "doc", "README.md"), filepath.Join(root, "doc", "LICENSE")}
	write(docs[0], "readme")
	write(docs[1], "license")
	return stage, docs
}

// The same inputs give the same bytes whatever the files' times and
// permissions on disk and the order the documents are given in.
func TestPackIsReproducible(t *testing.T) {
	var sums [][]byte
	var archives []map[string][]byte
	for i, c := range []struct {
		disk time.Time
		perm os.FileMode
	}{
		{time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), 0o600},
		{time.Now(), 0o777},
	} {
		stage, docs := stageRelease(t, Platforms(), c.disk, c.perm)
		if i == 1 {
			docs[0], docs[1] = docs[1], docs[0]
		}
		out := t.TempDir()
		names, err := Pack(stage, out, docs, stamp)
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != len(Platforms()) {
			t.Fatalf("Pack wrote %v, want one archive per platform", names)
		}
		sum, err := os.ReadFile(filepath.Join(out, ChecksumFile))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, sum)
		m := map[string][]byte{}
		for _, n := range names {
			m[n], _ = os.ReadFile(filepath.Join(out, n))
		}
		archives = append(archives, m)
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Errorf("two packs of the same files differ:\n%s\n%s", sums[0], sums[1])
	}
	for n, data := range archives[0] {
		if !bytes.Equal(data, archives[1][n]) {
			t.Errorf("%s differs between two packs of the same files", n)
		}
	}
}

// entry is what a test checks of one archived file.
type entry struct {
	name  string
	mode  os.FileMode
	mtime time.Time
	owner string // "uid:gid:uname:gname" for tar, "" for zip
	data  string
}

func readArchive(t *testing.T, p Platform, data []byte) []entry {
	t.Helper()
	var es []entry
	if p.OS == "windows" {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			es = append(es, entry{f.Name, f.Mode(), f.Modified.UTC(), "", string(b)})
		}
		return es
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("%s: gzip header carries name %q and time %v, want neither", p.ArchiveName(), gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		owner := strings.Join([]string{itoa(h.Uid), itoa(h.Gid), h.Uname, h.Gname}, ":")
		es = append(es, entry{h.Name, h.FileInfo().Mode(), h.ModTime.UTC(), owner, string(b)})
	}
	return es
}

func itoa(i int) string { return strconv.Itoa(i) }

// Every archive holds its platform's folder with the binaries (.exe on
// Windows, executable), LICENSE and README.md, in name order, owned by
// root with no names, stamped with the given time.
func TestArchiveLayout(t *testing.T) {
	stage, docs := stageRelease(t, Platforms(), time.Now(), 0o640)
	out := t.TempDir()
	if _, err := Pack(stage, out, docs, stamp.Add(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	for _, p := range Platforms() {
		t.Run(p.String(), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(out, p.ArchiveName()))
			if err != nil {
				t.Fatal(err)
			}
			owner := "0:0::"
			if p.OS == "windows" {
				owner = ""
			}
			d := p.Dir() + "/"
			want := []entry{{d, os.ModeDir | 0o755, stamp, owner, ""}, {d + "LICENSE", 0o644, stamp, owner, "license"}, {d + "README.md", 0o644, stamp, owner, "readme"}}
			for _, b := range p.Binaries() {
				want = append(want, entry{d + b, 0o755, stamp, owner, "binary " + b + " for " + p.String()})
			}
			slices.SortFunc(want, func(a, b entry) int { return strings.Compare(a.name, b.name) })
			got := readArchive(t, p, data)
			if len(got) != len(want) {
				t.Fatalf("%s holds %+v, want %+v", p.ArchiveName(), got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s entry %d: %+v, want %+v", p.ArchiveName(), i, got[i], want[i])
				}
			}
		})
	}
}

// SHA256SUMS lists every archive's SHA-256 in `sha256sum -c` format, sorted.
func TestChecksumFile(t *testing.T) {
	stage, docs := stageRelease(t, Platforms(), time.Now(), 0o644)
	out := t.TempDir()
	names, err := Pack(stage, out, docs, stamp)
	if err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(out, ChecksumFile))
	var want strings.Builder
	for _, n := range []string{"aidex-darwin-amd64.tar.gz", "aidex-darwin-arm64.tar.gz", "aidex-linux-amd64.tar.gz", "aidex-linux-arm64.tar.gz", "aidex-windows-amd64.zip", "aidex-windows-arm64.zip"} {
		data, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			t.Fatalf("%v (Pack wrote %v)", err, names)
		}
		h := sha256.Sum256(data)
		want.WriteString(hex.EncodeToString(h[:]) + "  " + n + "\n")
	}
	if string(sums) != want.String() {
		t.Errorf("%s:\n%s\nwant:\n%s", ChecksumFile, sums, want.String())
	}
}

// Pack refuses, naming the cause, a folder that is no platform's, a
// platform without one of its binaries, an empty stage and a missing document.
func TestPackRefuses(t *testing.T) {
	linux := Platform{"linux", "amd64"}
	for _, c := range []struct {
		name  string
		setup func(stage string, docs []string) []string
		want  string
	}{
		{"unknown platform", func(stage string, docs []string) []string {
			os.MkdirAll(filepath.Join(stage, "aidex-plan9-386"), 0o755)
			return docs
		}, `"aidex-plan9-386" is not a release platform folder`},
		{"missing helper", func(stage string, docs []string) []string {
			os.Remove(filepath.Join(stage, linux.Dir(), "aidex-sandbox"))
			return docs
		}, "aidex-sandbox"},
		{"empty stage", func(stage string, docs []string) []string {
			os.RemoveAll(filepath.Join(stage, linux.Dir()))
			return docs
		}, "holds no platform folder"},
		{"missing document", func(stage string, docs []string) []string {
			return append(docs, filepath.Join(stage, "NOTICE"))
		}, "NOTICE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stage, docs := stageRelease(t, []Platform{linux}, time.Now(), 0o755)
			docs = c.setup(stage, docs)
			_, err := Pack(stage, t.TempDir(), docs, stamp)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Pack: %v, want an error naming %q", err, c.want)
			}
		})
	}
}
