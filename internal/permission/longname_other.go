//go:build !windows

package permission

// platformLongName is nil: only Windows has 8.3 short names.
var platformLongName func(string) (string, error)
