package why

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/treesitter"
)

// outline returns the anchors of a file version. Parsing is the largest
// fixed cost of an anchor read (about 40 ms for an 8,800-line Go file), and
// the anchors of the same bytes never change, so they are cached by a hash
// of the content, the language and this very binary: a rebuilt gloss,
// whose parser may answer differently, never reads another build's
// outlines.
func outline(repo *gitops.Repo, rel string, content []byte) []treesitter.Anchor {
	if !treesitter.Supported(rel) {
		return nil
	}
	build := binaryIdentity()
	if build == "" {
		return treesitter.Outline(rel, content)
	}
	h := sha1.New()
	fmt.Fprintf(h, "gloss-outline v1\x00%s\x00%s\x00%s\x00", build, treesitter.Language(rel), strings.ToLower(filepath.Ext(rel)))
	h.Write(content)
	key := hex.EncodeToString(h.Sum(nil))
	if data := repo.LoadCached("outline", key); data != nil {
		var anchors []treesitter.Anchor
		if json.Unmarshal(data, &anchors) == nil {
			return anchors
		}
	}
	anchors := treesitter.Outline(rel, content)
	if data, err := json.Marshal(anchors); err == nil {
		repo.StoreCached("outline", key, data)
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
