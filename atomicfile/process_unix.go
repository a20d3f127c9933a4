//go:build unix

package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ProcessAlive reports whether process pid is running: not gone, and not
// a zombie (a finished process nobody reaped). It tells whether a lock's
// or a temporary file's writer still holds it.
func ProcessAlive(pid int) (alive, known bool) {
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
