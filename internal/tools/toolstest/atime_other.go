//go:build !linux

package toolstest

import (
	"io/fs"
	"time"
)

// accessTime reports no access time: only Linux's is read.
func accessTime(fs.FileInfo) (time.Time, bool) { return time.Time{}, false }
