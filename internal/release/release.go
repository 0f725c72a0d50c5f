// Package release packs aidex's release archives and their checksum file
// reproducibly: the same binaries, documents and time give the same bytes,
// whatever the files' times, owners and permissions on disk and whatever the
// order the file system lists them in. scripts/release.sh builds the
// binaries with plain `go build` and hands them to scripts/pack, which uses
// this package; install.sh and install.ps1 download what it writes.
package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// ChecksumFile is the name of the one checksum file of a release: a line
// "SHA-256 (64 lowercase hex digits), two spaces, archive name" per
// archive, sorted by name, the format `sha256sum -c` reads.
const ChecksumFile = "SHA256SUMS"

// Platform is one GOOS/GOARCH pair a release is built for.
type Platform struct {
	OS   string // GOOS: "linux", "darwin", "windows"
	Arch string // GOARCH: "amd64", "arm64"
}

// Platforms returns the platforms every release is built for, in the order
// scripts/release.sh builds them: linux, darwin and windows, each on amd64
// and arm64.
func Platforms() []Platform {
	return []Platform{
		{"linux", "amd64"}, {"linux", "arm64"},
		{"darwin", "amd64"}, {"darwin", "arm64"},
		{"windows", "amd64"}, {"windows", "arm64"},
	}
}

// String returns "GOOS/GOARCH", e.g. "linux/amd64".
func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Dir returns the name of the archive's one top-level folder, which is
// also the archive's name without its extension: "aidex-linux-amd64".
func (p Platform) Dir() string { return "aidex-" + p.OS + "-" + p.Arch }

// ArchiveName returns the release archive's file name: a zip for Windows
// ("aidex-windows-amd64.zip"), a gzipped tar elsewhere
// ("aidex-linux-amd64.tar.gz").
func (p Platform) ArchiveName() string {
	if p.OS == "windows" {
		return p.Dir() + ".zip"
	}
	return p.Dir() + ".tar.gz"
}

// Exe returns the file name of the program name on p: name + ".exe" on
// Windows, name elsewhere.
func (p Platform) Exe(name string) string {
	if p.OS == "windows" {
		return name + ".exe"
	}
	return name
}

// Binaries returns the file names of the programs every archive holds:
// aidex, its interactive chat aidex-chat, its sandbox helper aidex-sandbox
// and its NATS helper aidex-nats (".exe" on Windows).
func (p Platform) Binaries() []string {
	return []string{p.Exe("aidex"), p.Exe("aidex-chat"), p.Exe("aidex-sandbox"), p.Exe("aidex-nats")}
}

// ParseDir returns the platform whose Dir is name ("aidex-linux-amd64"),
// or an error naming the platforms a release knows.
func ParseDir(name string) (Platform, error) {
	for _, p := range Platforms() {
		if p.Dir() == name {
			return p, nil
		}
	}
	var known []string
	for _, p := range Platforms() {
		known = append(known, p.Dir())
	}
	return Platform{}, fmt.Errorf("%q is not a release platform folder: want one of %s", name, strings.Join(known, ", "))
}

// File is one file of an archive.
type File struct {
	Name string // file name inside the archive's top-level folder, no slashes: "aidex", "LICENSE"
	Exec bool   // stored with mode 0755 instead of 0644
	Data []byte // contents
}

// Archive writes p's archive of files to w: every file under the top-level
// folder p.Dir(), in name order, owned by uid and gid 0 with no user or
// group names, modes 0755 (Exec) or 0644 (folder 0755), modified at mtime
// (whole seconds, UTC), compressed at the best level with no name or
// time in the gzip header. Errors are the writer's, or a file name that is
// empty, has a slash or repeats.
func Archive(w io.Writer, p Platform, files []File, mtime time.Time) error {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	for i, f := range files {
		if f.Name == "" || strings.ContainsAny(f.Name, `/\`) || f.Name == "." || f.Name == ".." {
			return fmt.Errorf("archive file name %q: want a plain file name", f.Name)
		}
		if i > 0 && files[i-1].Name == f.Name {
			return fmt.Errorf("archive file %q given twice", f.Name)
		}
	}
	mtime = mtime.UTC().Truncate(time.Second)
	if p.OS == "windows" {
		return writeZip(w, p.Dir(), files, mtime)
	}
	return writeTarGz(w, p.Dir(), files, mtime)
}

func mode(f File) int64 {
	if f.Exec {
		return 0o755
	}
	return 0o644
}

func writeTarGz(w io.Writer, dir string, files []File, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	gz.OS = 255 // "unknown", whatever the packing machine
	tw := tar.NewWriter(gz)
	hdr := func(name string, typ byte, mode, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(dir+"/", tar.TypeDir, 0o755, 0)); err != nil {
		return err
	}
	for _, f := range files {
		if err := tw.WriteHeader(hdr(path.Join(dir, f.Name), tar.TypeReg, mode(f), int64(len(f.Data)))); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, dir string, files []File, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	d := &zip.FileHeader{Name: dir + "/", Method: zip.Store, Modified: mtime}
	d.SetMode(0o755 | os.ModeDir)
	if _, err := zw.CreateHeader(d); err != nil {
		return err
	}
	for _, f := range files {
		h := &zip.FileHeader{Name: path.Join(dir, f.Name), Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(mode(f)))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Checksums returns the ChecksumFile contents for the named files in dir
// (names are base names, listed in any order; the lines come sorted by
// name). Errors are reading errors, with the path.
func Checksums(dir string, names []string) ([]byte, error) {
	names = slices.Clone(names)
	slices.Sort(names)
	var b bytes.Buffer
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, n), err)
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), n)
	}
	return b.Bytes(), nil
}

// Pack writes into out one archive per platform folder in stage (each
// named by its Platform.Dir and holding that platform's Binaries), adding
// docs (paths of files such as LICENSE and README.md, stored under their
// base names), then the ChecksumFile over all of them. Every file inside
// is stamped with mtime. It returns the archive names written, sorted.
// Errors name the folder or file at fault: an unknown platform folder, a
// missing binary, an unreadable document.
func Pack(stage, out string, docs []string, mtime time.Time) ([]string, error) {
	entries, err := os.ReadDir(stage)
	if err != nil {
		return nil, err
	}
	var extra []File
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			return nil, err
		}
		extra = append(extra, File{Name: filepath.Base(d), Data: data})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	// One archive per platform, as many at once as there are CPUs: the
	// compression is the slow part (~8 s a platform), each independent.
	// Each holds its platform's binaries and archive in memory (~0.13 GB).
	names := make([]string, len(entries))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, e := range entries {
		g.Go(func() error {
			name, err := packOne(filepath.Join(stage, e.Name()), out, extra, mtime)
			names[i] = name
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s holds no platform folder (aidex-GOOS-GOARCH): build the binaries first", stage)
	}
	sums, err := Checksums(out, names)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, os.WriteFile(filepath.Join(out, ChecksumFile), sums, 0o644)
}

// packOne writes the archive of the platform folder dir (aidex-GOOS-GOARCH)
// into out and returns its name.
func packOne(dir, out string, extra []File, mtime time.Time) (string, error) {
	p, err := ParseDir(filepath.Base(dir))
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	files := slices.Clone(extra)
	for _, b := range p.Binaries() {
		data, err := os.ReadFile(filepath.Join(dir, b))
		if err != nil {
			return "", fmt.Errorf("%s archive: %w", p, err)
		}
		files = append(files, File{Name: b, Exec: true, Data: data})
	}
	var buf bytes.Buffer
	if err := Archive(&buf, p, files, mtime); err != nil {
		return "", fmt.Errorf("%s archive: %w", p, err)
	}
	if err := os.WriteFile(filepath.Join(out, p.ArchiveName()), buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	return p.ArchiveName(), nil
}
