package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/atomicfile"
)

// git keeps only whether a file is executable (modes 100644 and 100755).
// The other permission bits (a 0600 secret, a 0664 file of a group) are
// kept beside the tree: modesFile (in the shadow repository) maps each
// path of the index whose permissions are not 0644 or 0755 to them, and
// each snapshot's commit names a blob of that map (modesTrailer), so a
// deleted file comes back with its exact permissions.
const (
	modesFile    = "aidex-modes"
	modesTrailer = "aidex-modes: "
)

// modes maps workspace-relative paths to permission bits.
type modes map[string]fs.FileMode

// standard reports permissions git's own modes describe.
func standard(perm fs.FileMode) bool { return perm == 0o644 || perm == 0o755 }

// encode serialises m sorted, as "octal NUL path NUL" records.
func (m modes) encode() []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "%o\x00%s\x00", m[k], k)
	}
	return b.Bytes()
}

// decodeModes parses what encode wrote (malformed records are skipped).
func decodeModes(data []byte) modes {
	m := modes{}
	f := strings.Split(string(data), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		if v, err := strconv.ParseUint(f[i], 8, 32); err == nil && f[i+1] != "" {
			m[f[i+1]] = fs.FileMode(v) & fs.ModePerm
		}
	}
	return m
}

// loadModes reads the index's map.
func (r *Repo) loadModes() modes {
	data, err := os.ReadFile(filepath.Join(r.gitDir, modesFile))
	if err != nil {
		return modes{}
	}
	return decodeModes(data)
}

// saveModes writes the index's map.
func (r *Repo) saveModes(m modes) error {
	if err := atomicfile.WriteFile(filepath.Join(r.gitDir, modesFile), m.encode(), 0o600); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	return nil
}

// note records the permissions of rel (fi nil: gone or not snapshotted)
// in m and reports whether m changed.
func (m modes) note(rel string, fi fs.FileInfo) bool {
	old, had := m[rel]
	if fi == nil || !fi.Mode().IsRegular() || standard(fi.Mode().Perm()) {
		delete(m, rel)
		return had
	}
	m[rel] = fi.Mode().Perm()
	return !had || old != fi.Mode().Perm()
}

// modesBlob stores m as a blob and returns its id ("" when m is empty).
func (r *Repo) modesBlob(ctx context.Context, m modes) (string, error) {
	if len(m) == 0 {
		return "", nil
	}
	out, err := r.run(ctx, m.encode(), "hash-object", "-w", "-t", "blob", "--no-filters", "--stdin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// commitModes returns the map snapshot commit names (empty when none).
func (r *Repo) commitModes(ctx context.Context, commit string) (modes, error) {
	out, err := r.run(ctx, nil, "cat-file", "commit", commit)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if blob, ok := strings.CutPrefix(line, modesTrailer); ok {
			data, err := r.run(ctx, nil, "cat-file", "blob", strings.TrimSpace(blob))
			if err != nil {
				return nil, err
			}
			return decodeModes(data), nil
		}
	}
	return modes{}, nil
}
