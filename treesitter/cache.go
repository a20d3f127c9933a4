package treesitter

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Cache keeps bytes by kind and key across processes; gitops.Repo's cache
// under the git dir is one.
type Cache interface {
	LoadCached(kind, key string) []byte
	StoreCached(kind, key string, data []byte)
}

// OutlineCached is Outline through cache. Parsing is the largest fixed
// cost of an anchor read and of annotating a commit (about 40 ms for an
// 8,800-line Go file, 20–40 ms for each of git's largest C files), and the
// anchors of the same bytes never change, so they are kept by a hash of
// the content, the language and this very binary: a rebuilt gloss, whose
// parser may answer differently, never reads another build's outlines.
// The commit hook, the carry of a rewrite and the reads that follow parse
// a file version once between them.
func OutlineCached(cache Cache, path string, content []byte) []Anchor {
	if !Supported(path) {
		return nil
	}
	build := binaryIdentity()
	if build == "" || cache == nil {
		return Outline(path, content)
	}
	h := sha1.New()
	fmt.Fprintf(h, "gloss-outline v1\x00%s\x00%s\x00%s\x00", build, Language(path), strings.ToLower(filepath.Ext(path)))
	h.Write(content)
	key := hex.EncodeToString(h.Sum(nil))
	if data := cache.LoadCached("outline", key); data != nil {
		var anchors []Anchor
		if json.Unmarshal(data, &anchors) == nil {
			return anchors
		}
	}
	anchors := Outline(path, content)
	if data, err := json.Marshal(anchors); err == nil {
		cache.StoreCached("outline", key, data)
	}
	return anchors
}

// binaryIdentity names the running executable by its path, size and
// modification time; "" when it cannot be known, and outlines are then
// not cached.
var binaryIdentity = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	info, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", exe, info.Size(), info.ModTime().UnixNano())
})
