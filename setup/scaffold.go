package setup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
)

// ScaffoldEntry is a file or folder init created in the working tree (the
// notebook scaffold), with the digest of what it wrote, so that uninstall
// removes it only while it is still exactly that.
type ScaffoldEntry struct {
	Path   string `json:"path"` // slash-separated, relative to the repository root; folders end in "/"
	SHA256 string `json:"sha256,omitempty"`
}

// RecordScaffold adds to the install manifest what the notebook scaffold
// created: created are paths relative to dir (folders end in "/"), dir is
// relative to the repository root. A new folder got an empty .gitkeep.
func RecordScaffold(repo *gitops.Repo, dir string, created []string) error {
	if len(created) == 0 {
		return nil
	}
	m, err := loadManifest(repo)
	if err != nil {
		return err
	}
	add := func(rel string) {
		e := ScaffoldEntry{Path: rel}
		if !strings.HasSuffix(rel, "/") {
			data, err := os.ReadFile(filepath.Join(repo.Root(), filepath.FromSlash(rel)))
			if err != nil {
				return
			}
			e.SHA256 = digest(data)
		}
		if !slices.ContainsFunc(m.Scaffold, func(x ScaffoldEntry) bool { return x.Path == rel }) {
			m.Scaffold = append(m.Scaffold, e)
		}
	}
	for _, p := range created {
		rel := path.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			add(rel + "/")
			add(path.Join(rel, ".gitkeep"))
		} else {
			add(rel)
		}
	}
	return m.save(repo)
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// removeScaffold deletes what init scaffolded and nobody has touched: a
// file still holding what init wrote and not committed, a folder left
// empty. It returns what it removed. Anything else is the team's now.
func removeScaffold(ctx context.Context, repo *gitops.Repo, entries []ScaffoldEntry) ([]string, error) {
	root := repo.Root()
	if root == "" || len(entries) == 0 {
		return nil, nil
	}
	tracked, err := trackedPaths(ctx, repo, entries)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if strings.HasSuffix(e.Path, "/") || tracked[e.Path] {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(e.Path))
		data, err := os.ReadFile(p)
		if err != nil || digest(data) != e.SHA256 {
			continue
		}
		if err := os.Remove(p); err != nil {
			return removed, err
		}
		if path.Base(e.Path) != ".gitkeep" { // reported with its folder, as init does
			removed = append(removed, e.Path)
		}
	}
	// Folders deepest first; removing a folder that is not empty fails,
	// which is the point.
	var dirs []string
	for _, e := range entries {
		if strings.HasSuffix(e.Path, "/") {
			dirs = append(dirs, strings.TrimSuffix(e.Path, "/"))
		}
	}
	for _, e := range entries {
		for d := path.Dir(strings.TrimSuffix(e.Path, "/")); d != "." && d != "/"; d = path.Dir(d) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d) // the notebook folder and .gloss, if init left them empty
			}
		}
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range dirs {
		if os.Remove(filepath.Join(root, filepath.FromSlash(d))) == nil && slices.ContainsFunc(entries, func(e ScaffoldEntry) bool { return e.Path == d+"/" }) {
			removed = append(removed, d)
		}
	}
	return removed, nil
}

// trackedPaths reports which of the entries' files git tracks.
func trackedPaths(ctx context.Context, repo *gitops.Repo, entries []ScaffoldEntry) (map[string]bool, error) {
	args := []string{"ls-files", "-z", "--"}
	for _, e := range entries {
		if !strings.HasSuffix(e.Path, "/") {
			args = append(args, ":(literal)"+e.Path)
		}
	}
	out, err := repo.Git(ctx, args...)
	if err != nil {
		return nil, err
	}
	tracked := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			tracked[string(p)] = true
		}
	}
	return tracked, nil
}
