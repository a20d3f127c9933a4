package atomicfile_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/safepath"
)

func TestWriteReplacesWholeFileAndLeavesNoTemporaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.json")
	for _, content := range []string{"first version, longer", "second"} {
		if err := atomicfile.Write(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != content {
			t.Errorf("content = %q, want %q", got, content)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", st.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// Both writers work through an os.Root: a symlinked parent cannot lead a
// write outside it, and no temporary file is left behind.
func TestWritesStayInsideRoot(t *testing.T) {
	for name, write := range map[string]func(*os.Root, string, []byte, os.FileMode) error{"WriteIn": atomicfile.WriteIn, "Replace": atomicfile.Replace} {
		t.Run(name, func(t *testing.T) { writeStaysInsideRoot(t, write) })
	}
}

func writeStaysInsideRoot(t *testing.T, write func(*os.Root, string, []byte, os.FileMode) error) {
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
	if err := write(root, "notes/a.md", []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes", "a.md")); string(data) != "hello" {
		t.Errorf("content = %q", data)
	}
	err = write(root, "link/evil.md", []byte("x"), 0o644)
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

// WriteVisible removes the temporary files of its target that a writer
// killed before its rename left (its process is gone), and keeps those of
// a live writer and every other file.
func TestWriteVisibleRemovesOnlyGoneWriters(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf(".t.md.tmp%d-0", gone.Process.Pid)
	live := fmt.Sprintf(".t.md.tmp%d-0", os.Getpid())
	others := []string{".u.md.tmp1-0", ".t.md.tmpx-0", "t.md.tmp1-0"}
	for _, name := range append([]string{stale, live}, others...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := atomicfile.WriteVisible(root, "t.md", []byte("whole\n"), 0o644, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, stale)); !os.IsNotExist(err) {
		t.Errorf("the killed writer's %s is still there (%v)", stale, err)
	}
	for _, name := range append([]string{live, "t.md"}, others...) {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s removed: %v", name, err)
		}
	}
}
