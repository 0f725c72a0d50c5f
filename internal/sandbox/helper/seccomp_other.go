//go:build linux && !amd64 && !arm64

package helper

// On other architectures the filter refuses every system call of a
// foreign architecture and has no compat table.
const (
	nativeArch = 0
	compatArch = 0
	x32Bit     = 0
)

var compatDenied []uint32
