//go:build !linux

package atomicfile

import "os"

// DataSync flushes a file to stable storage (fsync where the platform has
// no fdatasync).
func DataSync(f *os.File) error { return f.Sync() }
