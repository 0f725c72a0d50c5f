//go:build !unix

package hooks

import "os/exec"

// ownGroup leaves cmd as it is: without process groups the default
// Cancel kills the hook's own process.
func ownGroup(*exec.Cmd) {}
