//go:build !linux

package sandbox

// spares are Linux's (spare_linux.go): elsewhere there are none.
type spares struct{}

func newSpares(*Sandbox, string) *spares { return nil }
