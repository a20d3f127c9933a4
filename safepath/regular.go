package safepath

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/gloss-dev/gloss/fault"
)

// Only regular files are read from a repository's folders. Opening a named
// pipe for reading waits for a writer that may never come (one planted in
// a notebook, spec, document or task folder blocked note list, MCP
// initialize and task import for good); a device or a socket is no file of
// gloss's either. OpenRegular opens without waiting (O_NONBLOCK, which a
// regular file ignores) and refuses anything that is not a regular file,
// checking the file it opened, not the name it was given.

// ErrNotRegular is matched (errors.Is) by the refusal of a pipe, a
// device or a socket.
var ErrNotRegular = errors.New("not a regular file")

type notRegular struct {
	name string
	mode fs.FileMode
}

func (e notRegular) Error() string {
	return fault.Quote(e.name) + " is not a regular file (" + kind(e.mode) + "); gloss reads only regular files"
}

func (e notRegular) Is(target error) bool { return target == ErrNotRegular }

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}

// OpenRegular opens name in root for reading when it is a regular file.
// Anything else is a usage error matching ErrNotRegular (a directory
// says so).
func OpenRegular(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return checkRegular(f, name)
}

// OpenRegularPath is OpenRegular for a path outside any root.
func OpenRegularPath(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return checkRegular(f, name)
}

func checkRegular(f *os.File, name string) (*os.File, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fault.Error{Kind: fault.Usage, Err: notRegular{name, st.Mode()}}
	}
	return f, nil
}

// ReadRegular reads name in root when it is a regular file; limit bounds
// how much is read (0: no bound).
func ReadRegular(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := OpenRegular(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit)
	}
	// Read into a buffer of the file's size (with the room ReadFrom wants
	// to see the end) rather than one io.ReadAll grows by doubling: a hook
	// reads files of hundreds of kilobytes, and the copies were a tenth of
	// its time.
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	if limit > 0 && size > limit {
		size = limit
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	_, err = buf.ReadFrom(r)
	return buf.Bytes(), err
}
