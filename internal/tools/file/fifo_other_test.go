//go:build !unix

package file

import "errors"

// mkfifo fails: there are no named pipes in the file system here.
func mkfifo(string) error { return errors.ErrUnsupported }
