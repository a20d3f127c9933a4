package mcp

import (
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// A session reuses its handle while nothing changed, and opens a fresh one
// after another process committed, moved HEAD, wrote a notes ref or changed
// configuration between two calls.
func TestHandlePoolReusesUntilTheRepositoryChanges(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	p := &handlePool{dir: fx.Dir}
	defer p.close()
	use := func() string {
		t.Helper()
		h, err := p.get()
		if err != nil {
			t.Fatal(err)
		}
		defer p.put(h)
		head, err := h.repo.Head()
		if err != nil {
			t.Fatal(err)
		}
		return head
	}
	first := use()
	use()
	if n := p.openedCount(); n != 1 {
		t.Fatalf("two calls on an unchanged repository opened %d handles, want 1", n)
	}
	changes := []struct {
		name string
		do   func()
	}{
		{"commit", func() { fx.Commit("second", map[string]string{"a.txt": "b\n"}) }},
		{"config", func() { fx.Git("config", "core.hooksPath", ".githooks") }},
		{"checkout", func() { fx.Git("checkout", "-q", "-b", "side") }},
		{"notes", func() { fx.Git("notes", "--ref", "refs/notes/gloss/annotations", "add", "-m", "{}", "HEAD") }},
		{"reset", func() { fx.Git("reset", "-q", "--hard", "HEAD~1") }},
	}
	for i, c := range changes {
		c.do()
		use()
		if n := p.openedCount(); n != i+2 {
			t.Errorf("after %s: %d handles opened, want %d (the change was not seen)", c.name, n, i+2)
		}
	}
	if head := use(); head != first {
		t.Errorf("after reset HEAD = %s, want %s", head, first)
	}
}

// Calls in flight at once never share a handle.
func TestHandlePoolConcurrentCallsGetTheirOwn(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	p := &handlePool{dir: fx.Dir}
	defer p.close()
	var mu sync.Mutex
	inUse := map[*handle]bool{}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				h, err := p.get()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if inUse[h] {
					t.Error("a handle was given to two calls at once")
				}
				inUse[h] = true
				mu.Unlock()
				if _, err := h.repo.Head(); err != nil {
					t.Error(err)
				}
				mu.Lock()
				delete(inUse, h)
				mu.Unlock()
				p.put(h)
			}
		}()
	}
	wg.Wait()
	if len(p.idle) > maxIdleHandles {
		t.Errorf("%d idle handles kept, limit %d", len(p.idle), maxIdleHandles)
	}
}
