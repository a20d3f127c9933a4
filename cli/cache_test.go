package cli_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// waitForFills waits for background fills to release their locks. It is a
// wait, not a timing check: a fill that never ends fails the test.
func waitForFills(t *testing.T, gitDir string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ents, err := os.ReadDir(filepath.Join(gitDir, "gloss", "fill"))
		if err != nil || len(ents) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("background fill still holds %d lock(s)", len(ents))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wholeFileBlames counts the git blame runs without -L that git's trace
// recorded: the fills that ran.
func wholeFileBlames(t *testing.T, traceDir string) (whole, ranged int) {
	t.Helper()
	ents, err := os.ReadDir(traceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		f, err := os.Open(filepath.Join(traceDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			if !strings.Contains(l, `"event":"start"`) || !strings.Contains(l, `"blame"`) {
				continue
			}
			if strings.Contains(l, `"-L"`) {
				ranged++
			} else {
				whole++
			}
		}
		f.Close()
	}
	return whole, ranged
}

// TestColdReadFillsTheCacheOnceInTheBackground has concurrent reads of part
// of a large file miss the blame cache: each blames its lines, one
// background cache-fill blames the whole file, and the reads after it are
// served from the cache with the same answer.
func TestColdReadFillsTheCacheOnceInTheBackground(t *testing.T) {
	fixtures.Binary(t)
	fx := fixtures.NewRepo(t)
	fx.Commit("one", map[string]string{"big.txt": fixtures.LongFile(1)})
	fx.Commit("two", map[string]string{"big.txt": fixtures.LongFile(2)})
	fx.Commit("other", map[string]string{"other.txt": "x\n"})
	trace := t.TempDir()
	fx.Env = append(fx.Env, "GIT_TRACE2_EVENT="+trace)

	const readers = 4
	outs := make([]string, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := fx.Gloss("read", "big.txt", "--lines", "100:200", "--json")
			if err != nil {
				t.Errorf("read: %v\n%s", err, out)
			}
			outs[i] = out
		}()
	}
	wg.Wait()
	gitDir := filepath.Join(fx.Dir, ".git")
	waitForFills(t, gitDir)
	whole, ranged := wholeFileBlames(t, trace)
	// A reader that comes after the fill is served from the cache, so
	// fewer range blames than readers may run; one fill always does.
	if ranged < 1 || ranged > readers || whole != 1 {
		t.Fatalf("%d range blames and %d whole-file blames, want 1 to %d and 1", ranged, whole, readers)
	}
	entries := 0
	_ = filepath.WalkDir(filepath.Join(gitDir, "gloss", "blame", "e"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			entries++
		}
		return nil
	})
	if entries != 1 {
		t.Fatalf("%d whole-file blames cached, want 1", entries)
	}

	// Warm: no git blame at all, and the same answer.
	warm := fx.MustGloss("read", "big.txt", "--lines", "100:200", "--json")
	if w, r := wholeFileBlames(t, trace); w != whole || r != ranged {
		t.Fatalf("a read after the fill ran git blame (%d whole, %d ranged)", w-whole, r-ranged)
	}
	for i, out := range outs {
		if out != warm {
			t.Errorf("cold read %d answered\n%s\nthe warm read\n%s", i, out, warm)
		}
	}
}
