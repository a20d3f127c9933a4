package gitops

import "sync"

// blameMemo keeps, in one handle, the blame cache entries it decoded last
// and the blame positions it found. A caller that asks about the same
// file version twice (a review attributes a file's added lines at head,
// then reads what is in force there: two blames of one entry; a read
// blames, then prefetches the file's history from the same position)
// decodes it once. Both are facts about immutable objects — an entry is
// keyed by the commit that last changed the file and its path, a position
// by a commit and a path — so a memo never goes stale; it is small, for
// the reads of the same file close together, not a second cache.
type blameMemo struct {
	mu        sync.Mutex // a cache miss fills from a goroutine of its own
	entries   map[string]*blameEntry
	order     []string // entries' keys, oldest first
	positions map[string]string
}

// memoEntries bounds the decoded entries a handle keeps (a few hundred kB
// at most on git/git's largest files), memoPositions its positions.
const (
	memoEntries   = 8
	memoPositions = 4096
)

func memoKey(commit, path string) string { return commit + "\x00" + path }

func (m *blameMemo) entry(commit, path string) *blameEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entries[memoKey(commit, path)]
}

func (m *blameMemo) keepEntry(commit, path string, e *blameEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := memoKey(commit, path)
	if m.entries == nil {
		m.entries = map[string]*blameEntry{}
	}
	if _, ok := m.entries[k]; !ok {
		m.order = append(m.order, k)
	}
	m.entries[k] = e
	for len(m.order) > memoEntries {
		delete(m.entries, m.order[0])
		m.order = m.order[1:]
	}
}

func (m *blameMemo) position(commit, path string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.positions[memoKey(commit, path)]
	return k, ok
}

func (m *blameMemo) keepPosition(commit, path, key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.positions == nil || len(m.positions) >= memoPositions {
		m.positions = map[string]string{}
	}
	m.positions[memoKey(commit, path)] = key
}
