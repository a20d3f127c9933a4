package tasks

import (
	"errors"
	"syscall"

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

// tryLock takes an exclusive lock on path without waiting; ok is false
// when someone else holds it.
func tryLock(path string) (unlock func(), ok bool, err error) {
	unlock, err = lockFile(path, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return unlock, true, nil
}

// locked reports whether someone holds the lock on path.
func locked(path string) bool {
	unlock, ok, err := tryLock(path)
	if err != nil {
		return false
	}
	if ok {
		unlock()
	}
	return !ok
}
