//go:build !linux

package sandbox

// pin is a git dir held for the check after a command; only Linux pins
// one (pin_linux.go).
type pin struct{}

func newPin(string) *pin     { return nil }
func (*pin) close()          {}
func (*pin) holds() bool     { return true }
func (*pin) restore() string { return "" }
