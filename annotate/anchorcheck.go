package annotate

import (
	"errors"
	"io/fs"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/treesitter"
)

// checkAnchor refuses a context whose anchor gloss could not place in src,
// the file's content: in a language gloss cannot parse the record would
// silently cover the whole file, and a mistyped name would never be found
// again by read.
func checkAnchor(c Context, src []byte) error {
	if c.Anchor == "" {
		return nil
	}
	if !treesitter.Supported(c.File) {
		return fault.Usagef("%s: gloss finds no anchors in this language; use --lines A:B instead (anchors work in %s)",
			c.File, treesitter.SupportedExtensions)
	}
	anchors := treesitter.Outline(c.File, src)
	if len(treesitter.Find(anchors, c.Anchor)) > 0 {
		return nil
	}
	if near := treesitter.Suggest(anchors, c.Anchor); near != "" {
		return fault.NotFoundf("anchor %q not found in %s; did you mean %q?", c.Anchor, c.File, near)
	}
	return fault.NotFoundf("anchor %q not found in %s (git gloss summary %s lists its anchors)", c.Anchor, c.File, c.File)
}

// checkStagedAnchors checks the anchors of contexts staged for the next
// commit against the files in the working tree, where the agent or person
// staging them has just written the code they name.
func checkStagedAnchors(repo *gitops.Repo, ctxs []Context) error {
	var tree *safepath.Tree
	for _, c := range ctxs {
		if c.Anchor == "" || c.File == "" {
			continue
		}
		if tree == nil {
			t, err := safepath.ForRepo(repo)
			if err != nil {
				return err
			}
			defer t.Close()
			tree = t
		}
		if !treesitter.Supported(c.File) {
			return checkAnchor(c, nil)
		}
		src, err := tree.ReadFile(c.File, 64<<20)
		if errors.Is(err, fs.ErrNotExist) {
			// Not written yet: the commit will resolve the anchor, or
			// keep it as unresolved.
			continue
		}
		if err != nil {
			return err
		}
		if err := checkAnchor(c, src); err != nil {
			return err
		}
	}
	return nil
}
