package gitdir

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxIndexSize bounds the index files Gitlinks reads, in bytes.
const maxIndexSize = 512 << 20

// gitlinkMode is the index mode of a gitlink (a submodule entry).
const gitlinkMode = 0o160000

// ErrIndex is wrapped by Gitlinks' errors about the index's content.
var ErrIndex = errors.New("unreadable git index")

// Gitlinks returns the paths (slash-separated, relative to the work
// tree) of the gitlinks in r's index: entries that make git enter a
// nested repository. It reads index versions 2 to 4 itself (no git is
// run). Errors: the file's, or ErrIndex (wrapped) for content it cannot
// read.
func (r Repo) Gitlinks() ([]string, error) {
	hashLen := 20
	if f := configValues(filepath.Join(r.CommonDir, "config"), "extensions.objectformat")["extensions.objectformat"]; len(f) > 0 &&
		strings.EqualFold(f[len(f)-1], "sha256") {
		hashLen = 32
	}
	p := filepath.Join(r.GitDir, "index")
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	if fi.Size() > maxIndexSize {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrIndex, p, maxIndexSize)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return parseGitlinks(b, hashLen)
}

// parseGitlinks reads an index file's entries and returns the gitlinks'
// paths.
func parseGitlinks(b []byte, hashLen int) ([]string, error) {
	bad := func(why string) error { return fmt.Errorf("%w: %s", ErrIndex, why) }
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, bad("no DIRC header")
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return nil, bad(fmt.Sprintf("version %d", version))
	}
	n := binary.BigEndian.Uint32(b[8:12])
	off := 12
	var prev string
	var out []string
	for i := uint32(0); i < n; i++ {
		start := off
		fixed := 40 + hashLen + 2
		if off+fixed > len(b) {
			return nil, bad("truncated entry")
		}
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		flags := binary.BigEndian.Uint16(b[off+40+hashLen : off+fixed])
		off += fixed
		if flags&0x4000 != 0 {
			if version < 3 || off+2 > len(b) {
				return nil, bad("extended flags")
			}
			off += 2
		}
		var name string
		if version == 4 {
			strip, used := indexVarint(b[off:])
			if used == 0 || strip > uint64(len(prev)) {
				return nil, bad("path prefix")
			}
			off += used
			end := indexNUL(b, off)
			if end < 0 {
				return nil, bad("unterminated path")
			}
			name = prev[:len(prev)-int(strip)] + string(b[off:end])
			off = end + 1
		} else {
			end := indexNUL(b, off)
			if end < 0 {
				return nil, bad("unterminated path")
			}
			name = string(b[off:end])
			off = start + (end-start+8)&^7
		}
		prev = name
		if mode&0o170000 == gitlinkMode {
			out = append(out, name)
		}
	}
	return out, nil
}

func indexNUL(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == 0 {
			return i
		}
	}
	return -1
}

// indexVarint reads git's offset varint; used is 0 when b ends first or
// the value overflows.
func indexVarint(b []byte) (v uint64, used int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 127)
	used = 1
	for c&128 != 0 {
		if used >= len(b) || used > 9 {
			return 0, 0
		}
		c = b[used]
		used++
		v = ((v + 1) << 7) + uint64(c&127)
	}
	return v, used
}
