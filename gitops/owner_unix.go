//go:build unix

package gitops

import (
	"os"
	"syscall"
)

// fileOwner returns the user id that owns a file.
func fileOwner(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
