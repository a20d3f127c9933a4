package why_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// In a large repository a read does not diff the whole history to find
// the file's former names (4 s of CPU on git/git, right after init): it
// answers without the records made under them, says so, and leaves the
// renames to the background refresh; the next read finds those records.
func TestReadLeavesTheRenamesToTheBackgroundInALargeRepository(t *testing.T) {
	fx := seed(t)
	// Connect rewritten whole after the rename: blame no longer reaches
	// the record's commit, only the lookup by the file's former name does.
	rewritten := strings.Replace(lib, "// Connect dials the server.\nfunc (c *Client) Connect() error {\n\treturn nil\n}", "// Connect dials the server, once.\nfunc (c *Client) Connect() (err error) { return c.dial() }\n\nfunc (c *Client) dial() error { return nil }", 1)
	rewritten = strings.Replace(rewritten, "package lib\n", "package lib\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n", 1)
	fx.Commit("client: connect checks its receiver", map[string]string{"lib/client.go": rewritten})
	const former = "dial once and reuse the connection" // recorded on lib/lib.go
	if got := intents(readJSON(t, fx, "lib/client.go", "--anchor", "Client.Connect")); !slices.Contains(got, former) {
		t.Fatalf("small repository: intents = %v, want the record under the former name", got)
	}

	gitDir := filepath.Join(fx.Dir, ".git")
	if err := os.RemoveAll(filepath.Join(gitDir, "gloss", "blame")); err != nil {
		t.Fatal(err)
	}
	// Past the large-repository size (64 MiB of packs), a sparse file git
	// ignores: a pack without its index.
	pack := filepath.Join(gitDir, "objects", "pack", "pack-0000000000000000000000000000000000000000.pack")
	if err := os.MkdirAll(filepath.Dir(pack), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(pack)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(65 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()

	first := readJSON(t, fx, "lib/client.go", "--anchor", "Client.Connect")
	if slices.Contains(intents(first), former) || !strings.Contains(strings.Join(first.Notes, "\n"), "renames of the history are being found in the background") {
		t.Fatalf("first read: intents %v, notes %q; want no record under the former name yet, and a note saying why", intents(first), first.Notes)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		res := readJSON(t, fx, "lib/client.go", "--anchor", "Client.Connect")
		if slices.Contains(intents(res), former) && len(res.Notes) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background refresh did not find the renames: intents %v, notes %q", intents(res), res.Notes)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
