//go:build !linux

package sandbox

import (
	"os"
	"slices"
)

// pin is a git dir held for the check after a command; only Linux pins
// one (pin_linux.go).
type pin struct{}

func newPin(string) *pin     { return nil }
func (*pin) close()          {}
func (*pin) holds() bool     { return true }
func (*pin) restore() string { return "" }

// listing returns the sorted names in folder d; ok false when d cannot be
// read.
func listing(d string) ([]string, bool) {
	f, err := os.Open(d)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	n, err := f.Readdirnames(-1)
	if err != nil {
		return nil, false
	}
	slices.Sort(n)
	if n == nil {
		n = []string{}
	}
	return n, true
}
