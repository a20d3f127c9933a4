package safepath_test

import (
	"errors"
	"os"
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

func TestWriteFileStaysInsideRoot(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := safepath.WriteFile(root, "notes/a.md", []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes", "a.md")); string(data) != "hello" {
		t.Errorf("content = %q", data)
	}
	err = safepath.WriteFile(root, "link/evil.md", []byte("x"), 0o644)
	if err == nil || !safepath.IsEscape(err) {
		t.Errorf("write through an escaping symlink: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "evil.md")); err == nil {
		t.Error("file written outside the root")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "notes"))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}
