// Package atomicfile replaces files atomically: a reader sees the old
// content or the new, never a partial file, and a crash leaves the old file
// intact. On Unix it is github.com/google/renameio/v2 (temporary file in
// the same directory, fsync, rename); on Windows, where renameio does not
// build, the same steps with os.Rename (MoveFileEx, replacing).
package atomicfile
