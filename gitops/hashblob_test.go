package gitops

import (
	"os/exec"
	"strings"
	"testing"
)

// hashBlob must name content as git does, or BlameContent's shortcut for
// an unmodified buffer never fires.
func TestHashBlobIsGitsBlobID(t *testing.T) {
	for _, content := range []string{"", "a\n", "no newline", strings.Repeat("line\n", 5000), "caf\xc3\xa9\x00binary\n"} {
		cmd := exec.Command("git", "hash-object", "--stdin")
		cmd.Stdin = strings.NewReader(content)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := hashBlob([]byte(content)), strings.TrimSpace(string(out)); got != want {
			t.Errorf("hashBlob(%q) = %s, git hash-object %s", content[:min(len(content), 12)], got, want)
		}
	}
}
