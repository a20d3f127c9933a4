//go:build unix

package gitops

import (
	"bytes"
	"errors"
	"fmt"
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

// processAlive reports whether process pid is running: not gone, and not
// a zombie (a finished process nobody reaped).
func processAlive(pid int) (alive, known bool) {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false, true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true, true // no /proc here: kill(2) said it exists
	}
	if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false, true
	}
	return true, true
}
