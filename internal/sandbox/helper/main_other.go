//go:build !linux

package helper

import "os"

// Main reports that this operating system has no helper sandbox (macOS
// uses sandbox-exec directly; Windows is not supported yet).
func Main(args []string) int {
	os.Stderr.WriteString(Prefix + "the sandbox helper runs on Linux only\n")
	return ExitSetup
}

// Run is Main; unshared is unused outside Linux.
func Run(args []string, unshared bool) int { return Main(args) }
