//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package search

import (
	"io"
	"os"
)

// readGrepFile reads the regular file at path into buf (grown when too
// small). It reports false for anything that is not a regular file of at
// most limit bytes, and for read errors.
func readGrepFile(path string, buf []byte, limit int64) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return buf, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > limit {
		return buf, false
	}
	return fillBuf(buf, int(fi.Size()), limit, func(p []byte) (int, error) {
		n, err := f.Read(p)
		if err == io.EOF {
			err = nil
		}
		return n, err
	})
}
