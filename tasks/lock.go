package tasks

import (
	"github.com/gloss-dev/gloss/atomicfile"
)

// Locks are flock(2) locks on files under the git dir (atomicfile): the
// kernel drops them when their holder dies, so a crash never leaves a
// stale lock.

// lockFile waits for a lock on path (syscall.LOCK_SH or LOCK_EX).
func lockFile(path string, how int) (unlock func(), err error) {
	f, err := atomicfile.LockFile(path, how)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// locked reports whether someone holds the lock on path.
func locked(path string) bool {
	unlock, ok, err := atomicfile.TryLock(path)
	if err != nil {
		return false
	}
	if ok {
		unlock()
	}
	return !ok
}
