// Package safepath keeps paths that come from tool arguments and flags
// inside the directory they are meant for (the repository root, or the
// notebook folder). Clean does the lexical checks; file access then goes
// through an os.Root, which refuses symlinks that lead outside.
package safepath

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/fault"
)

// Errors a caller can branch on. All are fault.Usage errors.
var (
	ErrEmpty    = errors.New("path is empty")
	ErrNUL      = errors.New("path contains a NUL byte")
	ErrEncoding = errors.New("path is not valid UTF-8")
	ErrEscape   = errors.New("path leads outside the allowed directory")
	ErrGitDir   = errors.New("path points into .git")
	ErrTooLong  = fmt.Errorf("path is longer than %d bytes", MaxPath)
)

// MaxPath bounds a path's length, as PATH_MAX does on Linux: no file has a
// longer name, and a 4 MiB "path" is refused before a single lstat.
const MaxPath = 4096

func refuse(p string, err error) error {
	return &fault.Error{Kind: fault.Usage, Err: fmt.Errorf("%s: %w", fault.Quoted(p), err)}
}

// Clean validates p against the directory root and returns it as a clean,
// slash-separated path relative to root. p may be relative to root or an
// absolute path inside it. Refused: empty paths, NUL bytes, invalid UTF-8,
// paths longer than MaxPath, ".." escapes, absolute paths outside root,
// and anything inside a .git
// directory. Clean is lexical (plus resolving root's own symlinks); open the
// result through an os.Root to refuse symlink escapes as well.
func Clean(root, p string) (string, error) {
	switch {
	case p == "":
		return "", refuse(p, ErrEmpty)
	case strings.IndexByte(p, 0) >= 0:
		return "", refuse(p, ErrNUL)
	case !utf8.ValidString(p):
		return "", refuse(p, ErrEncoding)
	case len(p) > MaxPath:
		return "", refuse(p, ErrTooLong)
	}
	rel := filepath.ToSlash(p)
	if filepath.IsAbs(p) {
		r, err := relInside(root, p)
		if err != nil {
			return "", err
		}
		rel = r
	}
	rel = path.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return "", refuse(p, ErrEscape)
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return "", refuse(p, ErrGitDir)
		}
	}
	return rel, nil
}

// relInside turns an absolute path into one relative to root, comparing
// both with symlinks resolved as far as they exist (so /tmp and
// /private/tmp, or a symlinked checkout, compare equal).
func relInside(root, abs string) (string, error) {
	// A path spelled under the root is taken lexically, so that its own
	// symlinks are followed by the one resolver (Tree.Resolve), the same
	// way as for a relative path.
	abs = filepath.Clean(abs)
	for _, r := range []string{filepath.Clean(root), resolveExisting(root)} {
		if rel, err := filepath.Rel(r, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel), nil
		}
	}
	r := resolveExisting(root)
	a := resolveExisting(abs)
	rel, err := filepath.Rel(r, a)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", refuse(abs, ErrEscape)
	}
	return filepath.ToSlash(rel), nil
}

// resolveExisting resolves symlinks in the longest existing prefix of p and
// appends the rest unchanged.
func resolveExisting(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// IsEscape reports whether err is a refusal of a path that leaves its
// directory, including os.Root's refusal of an escaping symlink.
func IsEscape(err error) bool {
	if errors.Is(err, ErrEscape) {
		return true
	}
	var pe *os.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes from parent")
}
