package noma

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusChecksums fails when the committed copy of the conformance
// corpus differs from the checksum list committed beside it: a changed,
// added or removed file. The corpus is never edited.
func TestCorpusChecksums(t *testing.T) {
	root := filepath.Join("..", "fixtures", "noma-conformance")
	f, err := os.Open(root + ".sha256")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("bad checksum line %q", sc.Text())
		}
		want[strings.TrimPrefix(name, "./")] = sum
	}
	got := map[string]string{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		s := sha256.Sum256(data)
		got[filepath.ToSlash(rel)] = hex.EncodeToString(s[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 128 {
		t.Errorf("checksum list has %d files, want 128 (126 data files, LICENSE, README.md)", len(want))
	}
	for name, sum := range want {
		if got[name] != sum {
			t.Errorf("%s: sha256 %s, want %s", name, got[name], sum)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: not in the checksum list", name)
		}
	}
	for _, must := range []string{"LICENSE", "README.md"} {
		if _, ok := got[must]; !ok {
			t.Errorf("%s missing from the copy", must)
		}
	}
}
