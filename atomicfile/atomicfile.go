// Package atomicfile is gloss's one writer discipline for files.
//
// Every file gloss writes — committed files in the working tree and caches
// under the git dir alike — is replaced whole: the data goes to a temporary
// file in the same directory, is synced, renamed over the target, and the
// directory is synced so the rename itself survives a crash. Readers and a
// killed writer only ever leave the old content or the new, never a mixture.
//
// Read-modify-write cycles take a lock first (Lock): an flock(2) lock on a
// file under the git dir, which the kernel drops when its holder dies, so a
// killed process never leaves a stale lock behind and concurrent writers
// never lose each other's changes.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Write replaces the file at path with data, creating parent directories
// as needed. mode applies to the new file.
func Write(name string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return WriteIn(root, filepath.Base(name), data, mode)
}

// WriteIn is Write for a slash-separated path relative to root: every step
// goes through the os.Root, so a symlinked parent cannot redirect the write
// outside it.
func WriteIn(root *os.Root, rel string, data []byte, mode os.FileMode) error {
	return replace(root, rel, data, mode, true)
}

// Replace is WriteIn without the syncs: the rename still makes the change
// all or nothing for readers and for a killed writer, but a power loss may
// lose it (as git itself, by default, may lose an index or ref update).
func Replace(root *os.Root, rel string, data []byte, mode os.FileMode) error {
	return replace(root, rel, data, mode, false)
}

func replace(root *os.Root, rel string, data []byte, mode os.FileMode, sync bool) error {
	dir := path.Dir(rel)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var tmp string
	var f *os.File
	for i := 0; ; i++ {
		tmp = path.Join(dir, fmt.Sprintf("%s%d-%d", tempPrefix(rel), os.Getpid(), i))
		var err error
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return err
		}
	}
	defer root.Remove(tmp) // fails harmlessly once renamed
	if err := writeClose(f, data, sync); err != nil {
		return err
	}
	// The umask may have narrowed the mode; the target keeps the one asked for.
	if err := root.Chmod(tmp, mode.Perm()); err != nil {
		return err
	}
	if err := root.Rename(tmp, rel); err != nil {
		return err
	}
	if !sync {
		return nil
	}
	return syncDir(root, dir)
}

func writeClose(f *os.File, data []byte, sync bool) error {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if sync {
		if err := DataSync(f); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// tempPrefix is how the temporary files of rel begin: each is
// "<prefix><pid>-<n>", beside rel.
func tempPrefix(rel string) string { return "." + path.Base(rel) + ".tmp" }

// WriteVisible replaces rel (WriteIn when durable, else Replace) in a
// folder a person looks at (the working tree), then removes the
// temporary files of rel that writers killed between creating and
// renaming them left behind: a killed writer leaves rel as it was, and the
// next write to it leaves no litter beside it. It lists rel's directory.
func WriteVisible(root *os.Root, rel string, data []byte, mode os.FileMode, durable bool) error {
	if err := replace(root, rel, data, mode, durable); err != nil {
		return err
	}
	removeStale(root, rel)
	return nil
}

// removeStale removes the temporary files of rel whose writer is gone.
func removeStale(root *os.Root, rel string) {
	dir := path.Dir(rel)
	d, err := root.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	prefix := tempPrefix(rel)
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 {
			continue
		}
		if alive, known := ProcessAlive(pid); known && !alive {
			_ = root.Remove(path.Join(dir, name))
		}
	}
}

// syncDir makes the entries of a directory (a rename, a new file) durable.
func syncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// Lock waits for an exclusive lock on the lock file at name (created if
// missing) and returns its release. The lock is held by the open file, so
// it also ends when the process dies.
func Lock(name string) (unlock func(), err error) {
	f, err := LockFile(name, syscall.LOCK_EX)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// TryLock takes an exclusive lock without waiting; ok is false when
// another holder has it.
func TryLock(name string) (unlock func(), ok bool, err error) {
	f, err := LockFile(name, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}

// LockFile opens (creating) the lock file at name and takes an flock(2)
// lock on it: syscall.LOCK_EX or LOCK_SH, optionally with LOCK_NB. Closing
// the file releases the lock. Callers that keep a small journal in the
// lock file itself use the file; the others use Lock.
func LockFile(name string, how int) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
