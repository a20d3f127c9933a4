package gitops

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	git "github.com/libgit2/git2go/v34"
)

// The file history of a read: the latest commits that changed a file, and
// the ancestry among the commits a blame names. Both are walks whose cost
// grows with the depth of the history when each commit's tree has to be
// read to see whether the file changed (libgit2 walks did that: 5.8 s at
// 100,000 commits). With the blame graph (blamegraph.go) gloss reads
// parents, levels and dates from the graph itself and asks its
// changed-path Bloom filters whether a commit touched the file, reading
// trees only for the few commits the filters cannot rule out
// (commitgraph.go, graphlog.go); git log and git rev-list, which read the
// same graph, answer where the graph cannot.

// FileHistory is what a read needs of a file's history besides its blame:
// the latest commits that changed the file, and which of a set of commits
// descend from which. Both are facts about immutable history, so they are
// cached beside the blames, keyed like them by the commit that last
// changed the file; asking libgit2 for each pair instead costs a merge-base
// walk per pair, which dominated `read` on long histories.
type FileHistory struct {
	// Log is what Log(rev, {Path: path, Limit: limit}) returns, as ids.
	Log   []string
	limit int
	index map[string]int
	// below[i] has bit j set when members i is an ancestor of (or is)
	// member j.
	below   [][]byte
	members []string
	// unreached are the members that are not ancestors of the commit the
	// history is of: what descends from them is not known.
	unreached map[string]bool
}

// IsAncestor reports whether a is an ancestor of b (or a == b), and known
// is false when a or b was not among the commits the history was built for.
func (h *FileHistory) IsAncestor(a, b string) (yes, known bool) {
	i, ok1 := h.index[a]
	j, ok2 := h.index[b]
	if !ok1 || !ok2 || h.unreached[b] {
		return false, false
	}
	if h.unreached[a] { // b is an ancestor of the history's commit; a is not
		return false, true
	}
	return h.below[i][j/8]&(1<<(j%8)) != 0, true
}

// FileHistoryCached returns the history of path at rev ("" for HEAD): its
// Log with limit, and the ancestry among those commits and members. Results
// are the same as Log and IsAncestor give.
func (r *Repo) FileHistoryCached(ctx context.Context, rev, path string, limit int, members []string) (*FileHistory, error) {
	path = cleanRepoPath(path)
	if rev == "" {
		rev = "HEAD"
	}
	commit, err := r.ResolveCommit(rev)
	if err != nil {
		return nil, err
	}
	// The commits between commit and key do not change the file and have
	// one parent each, so the file's log from either is the same.
	key, err := r.blamePosition(commit, path)
	if err != nil {
		return nil, err
	}
	var want []string
	h := r.loadHistory(key, path)
	if h != nil && h.limit == limit {
		for _, m := range members {
			if _, ok := h.index[m]; !ok {
				want = append(want, m)
			}
		}
		if len(want) == 0 {
			return h, nil
		}
		want = append(want, h.members...)
	} else {
		want = members
	}
	h, err = r.buildHistory(ctx, key, path, limit, want)
	if err != nil {
		return nil, err
	}
	r.storeFile(r.blameFile("h", key, path), h.encode())
	return h, nil
}

// PrefetchFileHistory returns the Log of FileHistoryCached(ctx, rev,
// path, limit, ...), from its cache or by walking it now, so that a caller
// can overlap that walk with a blame it is waiting for: the log does not
// depend on the blamed commits, only the ancestry among them does. It
// returns nil when the history cannot be had.
func (r *Repo) PrefetchFileHistory(rev, path string, limit int) []string {
	path = cleanRepoPath(path)
	if rev == "" {
		rev = "HEAD"
	}
	commit, err := r.ResolveCommit(rev)
	if err != nil || limit <= 0 {
		return nil
	}
	key, err := r.blamePosition(commit, path)
	if err != nil {
		return nil
	}
	if h := r.loadHistory(key, path); h != nil && h.limit == limit {
		return h.Log
	}
	log, err := r.fileLog(key, path, limit)
	if err != nil {
		return nil
	}
	return log
}

// fileLogs remembers the file logs this process walked. The log of a file
// from a commit never changes, and a read that prefetched it asks again
// once its blame is in.
var fileLogs = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

// fileLog is the ids of the latest limit commits from key that changed
// path, newest first, as Log gives them.
func (r *Repo) fileLog(key, path string, limit int) ([]string, error) {
	k := fmt.Sprintf("%s\x00%s\x00%s\x00%d", r.commonDir, key, path, limit)
	fileLogs.Lock()
	log, ok := fileLogs.m[k]
	fileLogs.Unlock()
	if ok {
		return log, nil
	}
	log, err := r.FileLog(context.Background(), key, path, limit)
	if err != nil {
		return nil, err
	}
	fileLogs.Lock()
	defer fileLogs.Unlock()
	if len(fileLogs.m) >= 64 { // a long-lived server reads many files: keep a few
		clear(fileLogs.m)
	}
	fileLogs.m[k] = log
	return log, nil
}

// FileLog returns the ids of the latest limit commits (0: all) reachable
// from rev that changed path, newest first: the commits Log(rev, {Path:
// path}) returns, from git log, which the blame graph's changed-path
// filters make cost what `git log -- path` costs instead of a tree read
// per commit.
//
// `--full-history` walks every parent, as Log does, and lists a commit
// that differs from its parent; it also lists a merge that differs from
// only some of its parents, which Log leaves out (the change came from
// the other side). The combined raw diff (-c) names a path only when it
// differs from every parent, so a merge is kept when it names one. The
// order is git's default, newest commit date first, the order Log's walk
// gives too (it differs from a topological order only where commit dates
// go backwards).
func (r *Repo) FileLog(ctx context.Context, rev, path string, limit int) ([]string, error) {
	start, err := r.ResolveCommit(rev)
	if err != nil {
		return nil, err
	}
	path = cleanRepoPath(path)
	if log, ok := r.graphFileLog(ctx, start, path, limit); ok {
		return log, nil
	}
	return r.gitFileLog(ctx, start, path, limit)
}

// gitFileLog is FileLog through git log.
func (r *Repo) gitFileLog(ctx context.Context, start, path string, limit int) ([]string, error) {
	out := []string{}
	var merge string // a merge listed, waiting for its combined diff
	args := []string{"-c", "log.follow=false", "-c", "log.showSignature=false", "--literal-pathspecs",
		"log", "--no-color", "--no-notes", "--full-history", "--format=commit %H %P", "-c", "--raw", start, "--", path}
	err := r.streamGit(ctx, args, func(line string) (bool, error) {
		switch {
		case strings.HasPrefix(line, ":"): // the listed merge differs from every parent
			if merge != "" {
				out, merge = append(out, merge), ""
			}
		case strings.HasPrefix(line, "commit "):
			f := strings.Fields(line)
			merge = ""
			if len(f) > 3 {
				merge = f[1]
			} else if len(f) > 1 {
				out = append(out, f[1])
			}
		}
		return limit == 0 || len(out) < limit, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// streamGit runs git with the blame graph, when there is one, and hands
// fn its output line by line; fn returns false to stop the walk, which
// then costs only what was walked.
func (r *Repo) streamGit(ctx context.Context, args []string, fn func(line string) (bool, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := r.Command(ctx, args...)
	// git flushes its standard output after every commit when it is a
	// pipe: rev-list of git/git's history was 82,000 write calls, 0.13 s
	// of system time, half the walk's cost. GIT_FLUSH=0 lets stdio buffer
	// it; a walk stopped early still stops within a buffer of output.
	cmd.Env = append(cmd.Env, "GIT_FLUSH=0")
	cmd.Env = append(cmd.Env, r.blameGraphEnv()...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run git: %w", err)
	}
	br := bufio.NewReaderSize(stdout, 64<<10)
	stopped := false
	var fnErr error
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			break
		}
		more, err := fn(strings.TrimSuffix(line, "\n"))
		if err != nil || !more {
			fnErr, stopped = err, true
			break
		}
	}
	if stopped {
		cancel() // the rest of the walk is not needed
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		return fnErr
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() == nil {
			return &GitError{Args: cmd.Args[1:], ExitCode: cmd.ProcessState.ExitCode(), Stderr: stderr.String()}
		}
		return fmt.Errorf("git %s: %w", args[0], ctx.Err())
	}
	return nil
}

// buildHistory walks the history of key once, newest first and every
// commit after all of its descendants, collecting the file's log and
// passing each member's bit down to its ancestors.
func (r *Repo) buildHistory(ctx context.Context, key, path string, limit int, members []string) (*FileHistory, error) {
	h := &FileHistory{limit: limit, index: map[string]int{}, unreached: map[string]bool{}}
	add := func(id string) {
		if _, ok := h.index[id]; !ok && len(id) == 40 {
			h.index[id] = len(h.members)
			h.members = append(h.members, id)
		}
	}
	for _, m := range members {
		add(m)
	}
	if limit > 0 {
		log, err := r.fileLog(key, path, limit)
		if err != nil {
			return nil, err
		}
		h.Log = log
	}
	for _, id := range h.Log {
		add(id)
	}
	width := (len(h.members) + 7) / 8
	h.below = make([][]byte, len(h.members))
	// reach[c] holds the members c is an ancestor of; in topological order
	// it is complete when c comes out of the walk.
	reach := map[string][]byte{}
	left := len(h.members)
	var err error
	if left > 0 && !r.graphAncestry(key, h, width) {
		err = r.topoWalk(ctx, key, func(id string, parents []string) bool {
			bits := reach[id]
			delete(reach, id)
			if i, ok := h.index[id]; ok {
				if bits == nil {
					bits = make([]byte, width)
				}
				bits[i/8] |= 1 << (i % 8)
				h.below[i] = bits
				left--
			}
			if bits != nil {
				for _, pid := range parents {
					pb := reach[pid]
					if pb == nil {
						pb = make([]byte, width)
						reach[pid] = pb
					}
					for k := range bits {
						pb[k] |= bits[k]
					}
				}
			}
			return left > 0
		})
	}
	if err != nil {
		return nil, err
	}
	for i := range h.below {
		if h.below[i] == nil { // not reachable from key
			h.below[i] = make([]byte, width)
			h.unreached[h.members[i]] = true
		}
	}
	return h, nil
}

// topoWalk hands fn the commits reachable from key with their parents,
// every commit after all of its descendants, until fn returns false. With
// the blame graph, git rev-list walks it incrementally from the graph's
// generation numbers and parents, reading no commit objects. Without it
// (a large repository whose graph init is still building) git rev-list
// still sorts the whole history, in a third of libgit2's time (git/git:
// 1.2 s of CPU against 3.6 s); a small history libgit2 sorts faster than
// a process starts.
func (r *Repo) topoWalk(ctx context.Context, key string, fn func(id string, parents []string) bool) error {
	if r.blameGraphEnv() != nil || r.LargeRepository() {
		return r.streamGit(ctx, []string{"rev-list", "--topo-order", "--parents", key}, func(line string) (bool, error) {
			f := strings.Fields(line)
			if len(f) == 0 {
				return true, nil
			}
			return fn(f[0], f[1:]), nil
		})
	}
	w, err := r.r.Walk()
	if err != nil {
		return fmt.Errorf("walk history: %w", err)
	}
	defer w.Free()
	w.Sorting(git.SortTopological | git.SortTime)
	start, err := oid(key)
	if err != nil {
		return err
	}
	if err := w.Push(start); err != nil {
		return fmt.Errorf("walk from %s: %w", key, err)
	}
	var id git.Oid
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.Next(&id); err != nil {
			if git.IsErrorCode(err, git.ErrorCodeIterOver) {
				return nil
			}
			return fmt.Errorf("walk history: %w", err)
		}
		c, err := r.r.LookupCommit(&id)
		if err != nil {
			return fmt.Errorf("read commit %s: %w", id.String(), err)
		}
		parents := make([]string, c.ParentCount())
		for p := range parents {
			parents[p] = c.ParentId(uint(p)).String()
		}
		c.Free()
		if !fn(id.String(), parents) {
			return nil
		}
	}
}

const historyCacheVersion = "gloss-history v1"

func (h *FileHistory) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nlimit %d\n", historyCacheVersion, h.limit)
	for _, id := range h.Log {
		fmt.Fprintf(&b, "l %s\n", id)
	}
	for i, id := range h.members {
		fmt.Fprintf(&b, "m %s %s\n", id, hex.EncodeToString(h.below[i]))
	}
	for _, id := range slices.Sorted(maps.Keys(h.unreached)) {
		fmt.Fprintf(&b, "u %s\n", id)
	}
	return b.Bytes()
}

func (r *Repo) loadHistory(key, path string) *FileHistory {
	p := r.blameFile("h", key, path)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	h, err := decodeHistory(data)
	if err != nil {
		_ = os.Remove(p)
		return nil
	}
	return h
}

func decodeHistory(data []byte) (*FileHistory, error) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 2 || lines[0] != historyCacheVersion {
		return nil, errBadEntry
	}
	h := &FileHistory{index: map[string]int{}, unreached: map[string]bool{}}
	n, err := fmt.Sscanf(lines[1], "limit %d", &h.limit)
	if err != nil || n != 1 {
		return nil, errBadEntry
	}
	for _, l := range lines[2:] {
		kind, rest, _ := strings.Cut(l, " ")
		switch kind {
		case "l":
			h.Log = append(h.Log, rest)
		case "m":
			id, bits, _ := strings.Cut(rest, " ")
			b, err := hex.DecodeString(bits)
			if err != nil {
				return nil, errBadEntry
			}
			h.index[id] = len(h.members)
			h.members = append(h.members, id)
			h.below = append(h.below, b)
		case "u":
			h.unreached[rest] = true
		default:
			return nil, errBadEntry
		}
	}
	width := (len(h.members) + 7) / 8
	for _, b := range h.below {
		if len(b) != width {
			return nil, errBadEntry
		}
	}
	return h, nil
}
