//go:build !(linux && (amd64 || arm64))

package storage

import "github.com/cockroachdb/pebble/v2/vfs"

// openAIO returns fs: syncs through AIO are Linux's (aiosync_linux.go).
func openAIO(fs vfs.FS) (vfs.FS, func() error) { return fs, nil }
