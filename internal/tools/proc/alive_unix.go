//go:build unix

package proc

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Alive reports whether pid runs (a zombie counts as gone: containers
// may lack an init that reaps orphans). Tests use it to see that a
// command's group ended.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return !(i > 0 && i+2 < len(s) && s[i+2] == 'Z')
}
