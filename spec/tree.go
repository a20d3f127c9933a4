package spec

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"lukechampine.com/blake3"

	"github.com/gloss-dev/gloss/gitops"
)

// File is one file of a Tree.
type File struct {
	Path      string
	Blob      string // git blob id when it is known to match the content ("" for modified or untracked files)
	Untracked bool
}

// Tree is the set of files specs are matched against: a commit's tree, or
// the working tree (tracked files plus untracked files that are not
// ignored; files deleted from the working tree are listed apart).
type Tree struct {
	Rev      string   // the commit, or "" for the working tree
	Files    []File   // sorted by path
	Deleted  []string // tracked, but missing from the working tree
	repo     *gitops.Repo
	root     string
	byPath   map[string]int
	hashMu   sync.Mutex
	hashMemo map[string]string
}

// Lookup returns the file at p.
func (t *Tree) Lookup(p string) (File, bool) {
	i, ok := t.byPath[p]
	if !ok {
		return File{}, false
	}
	return t.Files[i], true
}

// Has reports whether p exists in the tree.
func (t *Tree) Has(p string) bool { _, ok := t.byPath[p]; return ok }

// WorktreeTree lists the working tree of repo.
func WorktreeTree(ctx context.Context, repo *gitops.Repo) (*Tree, error) {
	if repo.IsBare() {
		return nil, fmt.Errorf("specs need a working tree; this repository is bare")
	}
	var (
		staged, status []byte
		err1, err2     error
		wg             sync.WaitGroup
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		staged, err1 = repo.Git(ctx, "ls-files", "-z", "-s")
	}()
	go func() {
		defer wg.Done()
		status, err2 = repo.Git(ctx, "ls-files", "-z", "-t", "-m", "-d", "-o", "--exclude-standard")
	}()
	wg.Wait()
	if err1 != nil {
		return nil, fmt.Errorf("list tracked files: %w", err1)
	}
	if err2 != nil {
		return nil, fmt.Errorf("list working-tree changes: %w", err2)
	}
	t := &Tree{repo: repo, root: repo.Root(), byPath: map[string]int{}}
	blobs := map[string]string{}
	for _, rec := range splitZ(staged) {
		// <mode> SP <blob> SP <stage> TAB <path>
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		if f[0] == "160000" {
			continue // a submodule is not a file of this repository
		}
		if f[2] != "0" {
			blobs[p] = "" // conflicted: content unknown
			continue
		}
		blobs[p] = f[1]
	}
	deleted := map[string]bool{}
	for _, rec := range splitZ(status) {
		if len(rec) < 3 {
			continue
		}
		tag, p := rec[0], rec[2:]
		switch tag {
		case 'C': // modified
			if _, ok := blobs[p]; ok {
				blobs[p] = ""
			}
		case 'R': // removed from the working tree
			deleted[p] = true
		case '?':
			if strings.HasSuffix(p, "/") {
				continue // an untracked repository inside this one
			}
			t.Files = append(t.Files, File{Path: p, Untracked: true})
		}
	}
	for p, b := range blobs {
		if deleted[p] {
			t.Deleted = append(t.Deleted, p)
			continue
		}
		t.Files = append(t.Files, File{Path: p, Blob: b})
	}
	t.finish()
	return t, nil
}

// CommitTree lists the files of a commit.
func CommitTree(repo *gitops.Repo, rev string) (*Tree, error) {
	id, err := repo.ResolveCommit(rev)
	if err != nil {
		return nil, err
	}
	entries, err := repo.ListFiles(id, "")
	if err != nil {
		return nil, err
	}
	t := &Tree{Rev: id, repo: repo, byPath: map[string]int{}}
	for _, e := range entries {
		if e.Mode == 0o160000 {
			continue
		}
		t.Files = append(t.Files, File{Path: e.Path, Blob: e.ID})
	}
	t.finish()
	return t, nil
}

func (t *Tree) finish() {
	slices.SortFunc(t.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(t.Deleted)
	for i, f := range t.Files {
		t.byPath[f.Path] = i
	}
	t.hashMemo = map[string]string{}
}

func splitZ(out []byte) []string {
	var res []string
	for _, part := range bytes.Split(out, []byte{0}) {
		if len(part) > 0 {
			res = append(res, string(part))
		}
	}
	return res
}

// ReadFile returns a file's content.
func (t *Tree) ReadFile(p string) ([]byte, error) {
	f, ok := t.Lookup(p)
	if !ok {
		return nil, fmt.Errorf("%s: %w", p, os.ErrNotExist)
	}
	if t.Rev != "" {
		return t.repo.ReadBlob(f.Blob)
	}
	full := filepath.Join(t.root, filepath.FromSlash(p))
	st, err := os.Lstat(full)
	if err != nil {
		return nil, err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(full)
		return []byte(target), err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return os.ReadFile(full)
}

// hashFile is the lowercase hex BLAKE3 of a file's content, streamed.
func (t *Tree) hashFile(p string) (string, error) {
	if t.Rev != "" {
		data, err := t.ReadFile(p)
		if err != nil {
			return "", err
		}
		return HashBytes(data), nil
	}
	full := filepath.Join(t.root, filepath.FromSlash(p))
	st, err := os.Lstat(full)
	if err != nil {
		return "", err
	}
	if st.Mode()&os.ModeSymlink != 0 || !st.Mode().IsRegular() {
		data, err := t.ReadFile(p)
		if err != nil {
			return "", err
		}
		return HashBytes(data), nil
	}
	f, err := os.Open(full)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := blake3.New(32, nil)
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashBytes is the lowercase hex BLAKE3-256 of data, as NotarAI writes it.
func HashBytes(data []byte) string {
	sum := blake3.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Hashes returns the BLAKE3 of each path, hashing on every core. Paths
// that cannot be read are returned in failed with the reason; they are
// never silently treated as changed or unchanged.
func (t *Tree) Hashes(paths []string) (hashes map[string]string, failed map[string]error) {
	hashes = make(map[string]string, len(paths))
	failed = map[string]error{}
	var todo []string
	t.hashMu.Lock()
	for _, p := range paths {
		if h, ok := t.hashMemo[p]; ok {
			hashes[p] = h
		} else {
			todo = append(todo, p)
		}
	}
	t.hashMu.Unlock()
	if len(todo) == 0 {
		return hashes, failed
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	type result struct {
		p, h string
		err  error
	}
	jobs := make(chan string)
	results := make(chan result, len(todo))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				h, err := t.hashFile(p)
				results <- result{p, h, err}
			}
		}()
	}
	for _, p := range todo {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	close(results)
	t.hashMu.Lock()
	defer t.hashMu.Unlock()
	for r := range results {
		if r.err != nil {
			failed[r.p] = r.err
			continue
		}
		hashes[r.p] = r.h
		t.hashMemo[r.p] = r.h
	}
	return hashes, failed
}

// Glob expands a pattern set to the files of the tree, sorted.
func (t *Tree) Glob(set GlobSet) []string {
	var out []string
	for _, f := range t.Files {
		if set.Match(f.Path) {
			out = append(out, f.Path)
		}
	}
	return out
}
