package tasks

import (
	"errors"
	"os"
	"syscall"
)

// Locks are flock(2) locks on files under the git dir: the kernel drops
// them when their holder dies, so a crash never leaves a stale lock.

// lockFile waits for a lock on path (syscall.LOCK_SH or LOCK_EX).
func lockFile(path string, how int) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
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
