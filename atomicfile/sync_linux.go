package atomicfile

import (
	"os"
	"syscall"
)

// DataSync flushes a file's data, and the metadata needed to read it back
// (its size), to stable storage: fdatasync(2), which skips the timestamps
// fsync would also write.
func DataSync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
