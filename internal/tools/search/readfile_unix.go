//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package search

import (
	"errors"
	"syscall"
)

// readGrepFile reads the regular file at path into buf (grown when too
// small) with raw system calls: open, fstat, read until the size fstat
// gave (or EOF), close. It reports false for anything that is not a
// regular file of at most limit bytes, and for read errors. os.ReadFile
// costs three more calls per file (a stat, an fcntl and a read to see
// EOF), which dominate a search of many small files.
func readGrepFile(path string, buf []byte, limit int64) ([]byte, bool) {
	var fd int
	var err error
	for {
		// O_NONBLOCK: opening a FIFO that raced in must not block.
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return buf, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > limit {
		return buf, false
	}
	return fillBuf(buf, int(st.Size), limit, func(p []byte) (int, error) {
		for {
			n, err := syscall.Read(fd, p)
			if !errors.Is(err, syscall.EINTR) {
				return max(n, 0), err
			}
		}
	})
}
