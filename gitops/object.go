package gitops

import (
	"fmt"
	"path"
	"strings"
	"time"

	git "github.com/libgit2/git2go/v34"
)

// Commit is what gloss needs to know about one commit.
type Commit struct {
	ID          string
	Parents     []string
	Tree        string
	AuthorName  string
	AuthorEmail string
	AuthorTime  time.Time
	CommitTime  time.Time
	Message     string
}

// Subject is the first line of the message.
func (c *Commit) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return s
}

// LookupCommit reads a commit by revision expression.
func (r *Repo) LookupCommit(rev string) (*Commit, error) {
	id, err := r.ResolveCommit(rev)
	if err != nil {
		return nil, err
	}
	o, err := oid(id)
	if err != nil {
		return nil, err
	}
	c, err := r.r.LookupCommit(o)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", id, err)
	}
	defer c.Free()
	return commitFrom(c), nil
}

func commitFrom(c *git.Commit) *Commit {
	out := &Commit{ID: c.Id().String(), Tree: c.TreeId().String(), Message: c.Message()}
	for i := uint(0); i < c.ParentCount(); i++ {
		out.Parents = append(out.Parents, c.ParentId(i).String())
	}
	if a := c.Author(); a != nil {
		out.AuthorName, out.AuthorEmail, out.AuthorTime = a.Name, a.Email, a.When
	}
	if cm := c.Committer(); cm != nil {
		out.CommitTime = cm.When
	}
	return out
}

// treeAt returns the root tree of a revision.
func (r *Repo) treeAt(rev string) (*git.Tree, error) {
	id, err := r.ResolveCommit(rev)
	if err != nil {
		return nil, err
	}
	o, _ := oid(id)
	c, err := r.r.LookupCommit(o)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", id, err)
	}
	defer c.Free()
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", id, err)
	}
	return t, nil
}

// ReadFile returns the content of path as of revision rev.
func (r *Repo) ReadFile(rev, p string) ([]byte, error) {
	t, err := r.treeAt(rev)
	if err != nil {
		return nil, err
	}
	defer t.Free()
	e, err := t.EntryByPath(cleanRepoPath(p))
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", p, rev, ErrNotFound)
	}
	if e.Type != git.ObjectBlob {
		return nil, fmt.Errorf("%s at %s is not a file", p, rev)
	}
	return r.ReadBlob(e.Id.String())
}

// ReadBlob returns the content of a blob.
func (r *Repo) ReadBlob(id string) ([]byte, error) {
	o, err := oid(id)
	if err != nil {
		return nil, err
	}
	b, err := r.r.LookupBlob(o)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", id, ErrNotFound)
	}
	defer b.Free()
	return append([]byte(nil), b.Contents()...), nil
}

// HasObject reports whether the object database holds id (a full hex id).
func (r *Repo) HasObject(id string) bool {
	o, err := oid(id)
	if err != nil {
		return false
	}
	odb, err := r.r.Odb()
	if err != nil {
		return false
	}
	defer odb.Free()
	return odb.Exists(o)
}

// WriteBlob stores data as a blob and returns its id.
func (r *Repo) WriteBlob(data []byte) (string, error) {
	id, err := r.r.CreateBlobFromBuffer(data)
	if err != nil {
		return "", fmt.Errorf("write blob: %w", err)
	}
	return id.String(), nil
}

// TreeEntry is one file of a tree listing.
type TreeEntry struct {
	Path string // slash-separated, relative to the repository root
	ID   string // blob id
	Mode uint32 // git file mode: 0100644, 0100755, 0120000 (symlink), 0160000 (submodule)
}

// ListFiles returns every file (blob, symlink or submodule) in the tree of
// rev, optionally restricted to the subtree dir.
func (r *Repo) ListFiles(rev, dir string) ([]TreeEntry, error) {
	t, err := r.treeAt(rev)
	if err != nil {
		return nil, err
	}
	defer t.Free()
	dir = cleanRepoPath(dir)
	if dir != "" {
		e, err := t.EntryByPath(dir)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", dir, rev, ErrNotFound)
		}
		if e.Type != git.ObjectTree {
			return []TreeEntry{{Path: dir, ID: e.Id.String(), Mode: uint32(e.Filemode)}}, nil
		}
		sub, err := r.r.LookupTree(e.Id)
		if err != nil {
			return nil, err
		}
		defer sub.Free()
		t = sub
	}
	var out []TreeEntry
	err = t.Walk(func(parent string, e *git.TreeEntry) error {
		if e.Type == git.ObjectTree {
			return nil
		}
		out = append(out, TreeEntry{Path: path.Join(dir, parent, e.Name), ID: e.Id.String(), Mode: uint32(e.Filemode)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk tree: %w", err)
	}
	return out, nil
}

// cleanRepoPath turns a user path into the slash-separated form trees use.
func cleanRepoPath(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(p, "\\", "/")), "/")
	return p
}
