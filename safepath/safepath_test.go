package safepath_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/safepath"
)

func TestClean(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"a/b.md", "a/b.md", nil},
		{"./a//b/../c.md", "a/c.md", nil},
		{filepath.Join(root, "x", "y.md"), "x/y.md", nil},
		{"", "", safepath.ErrEmpty},
		{"a\x00b", "", safepath.ErrNUL},
		{"bad\xff.md", "", safepath.ErrEncoding},
		{"../escape", "", safepath.ErrEscape},
		{"a/../../escape", "", safepath.ErrEscape},
		{"/etc/passwd", "", safepath.ErrEscape},
		{".git/config", "", safepath.ErrGitDir},
		{"sub/.GIT/hooks/x", "", safepath.ErrGitDir},
	} {
		got, err := safepath.Clean(root, tc.in)
		if !errors.Is(err, tc.err) || got != tc.want {
			t.Errorf("Clean(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && fault.KindOf(err) != fault.Usage {
			t.Errorf("Clean(%q) error is not a usage error", tc.in)
		}
	}
}
