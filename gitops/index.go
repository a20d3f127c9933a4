package gitops

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
)

// IndexHasSuffix reports whether a path in this worktree's index ends in
// suffix (".noma"): whether the repository tracks files of a kind. In
// index versions 2 and 3 every path is stored whole and NUL-terminated, so
// one scan of the file's bytes answers without parsing it (a directory
// name in the cache-tree extension can give a false yes, never a false
// no). Version 4 compresses paths against their predecessor; there libgit2
// lists the entries.
func (r *Repo) IndexHasSuffix(suffix string) bool {
	if r.IsBare() {
		return false
	}
	data, err := os.ReadFile(filepath.Join(r.gitDir, "index"))
	if err != nil || len(data) < 12 || string(data[:4]) != "DIRC" {
		return false
	}
	if v := binary.BigEndian.Uint32(data[4:8]); v == 2 || v == 3 {
		needle := append([]byte(suffix), 0)
		if bytes.Contains(data[12:], needle) {
			return true
		}
		// With core.splitIndex most entries live in a shared index file
		// beside it (libgit2 does not read split indexes either).
		shared, _ := filepath.Glob(filepath.Join(r.gitDir, "sharedindex.*"))
		for _, f := range shared {
			if d, err := os.ReadFile(f); err == nil && bytes.Contains(d, needle) {
				return true
			}
		}
		return false
	}
	idx, err := r.r.Index()
	if err != nil {
		return false
	}
	defer idx.Free()
	for i := range idx.EntryCount() {
		e, err := idx.EntryByIndex(i)
		if err == nil && strings.HasSuffix(e.Path, suffix) {
			return true
		}
	}
	return false
}
