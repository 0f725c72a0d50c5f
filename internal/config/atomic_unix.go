//go:build !windows

package config

import "github.com/google/renameio/v2"

// atomicWrite replaces file with data (mode 0600) via renameio: temp file, fsync, rename.
func atomicWrite(file string, data []byte) error {
	return renameio.WriteFile(file, data, 0o600)
}
