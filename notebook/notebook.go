// Package notebook is a team knowledge notebook kept as committed files:
// kits, walkthroughs, agents, diagrams, blueprints and notes under
// .gloss/notebook/, which agents create, read, patch, tag and search (BM25)
// through fifteen tools modelled on the BlueKit notebook kit.
//
// Every path is checked before anything touches the disk and every file
// access goes through an os.Root of the notebook folder, so no argument —
// "..", an absolute path, a symlink, ".git", a hidden file — reaches
// outside it. Notes are working-tree files: commit them like code.
package notebook

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/runenv"
	"github.com/gloss-dev/gloss/safepath"
)

// DefaultPath is where the notebook lives unless configured otherwise.
const DefaultPath = ".gloss/notebook"

// EnvPath overrides the notebook folder (relative to the repository root).
const EnvPath = runenv.Notebook

// BlueKit's names: the kit's environment variable for its notebook folder,
// and the folder a BlueKit project already has. A team that used the kit
// keeps its notebook where it is.
const (
	EnvBlueKit = "BLUEKIT_ROOT"
	BlueKitDir = ".bluekit"
)

// Folders are the notebook's top-level folders, by note type.
var Folders = []string{"kits", "walkthroughs", "agents", "diagrams", "blueprints", "notes"}

// folderFor maps a frontmatter type to its folder.
var folderFor = map[string]string{
	"kit": "kits", "walkthrough": "walkthroughs", "agent": "agents",
	"diagram": "diagrams", "blueprint": "blueprints", "note": "notes",
}

// typeOfFolder is the reverse: the type a top-level folder implies.
var typeOfFolder = map[string]string{
	"kits": "kit", "walkthroughs": "walkthrough", "agents": "agent",
	"diagrams": "diagram", "blueprints": "blueprint", "notes": "note",
}

// allowedExt are the file types a notebook holds.
var allowedExt = map[string]bool{".md": true, ".mmd": true, ".json": true}

// IndexNote is the notebook's front page.
const IndexNote = "index.md"

// Limits on names: longer is refused.
const (
	maxSegment = 200
	maxPath    = 1000
)

// Notebook is an open notebook folder.
type Notebook struct {
	repo *gitops.Repo
	tree *safepath.Tree // the working tree: resolver and per-file locks
	Rel  string         // the folder as configured, relative to the repository root
	real string         // the folder's real location, relative to the root
	Abs  string         // the folder's real absolute path
	root *os.Root
}

// Settings is the [notebook] table of .gloss/config.toml.
type Settings struct {
	Path string `toml:"path"`
}

// Open finds the notebook of a repository: $GLOSS_NOTEBOOK, else
// $BLUEKIT_ROOT, else [notebook] path in .gloss/config.toml, else an
// existing .bluekit/ when there is no .gloss/notebook/, else
// .gloss/notebook. The folder must be inside the repository and outside
// .git. It is created if missing.
func Open(ctx context.Context, repo *gitops.Repo) (*Notebook, error) {
	if repo.Root() == "" {
		return nil, fault.Usagef("the notebook needs a working tree; this repository is bare")
	}
	cfg, err := config.LoadTeam(repo)
	if err != nil {
		return nil, err
	}
	var s Settings
	if err := cfg.Section("notebook", &s); err != nil {
		return nil, err
	}
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return nil, err
	}
	rel := notebookPath(tree, s)
	nb, err := openIn(tree, rel)
	if err != nil {
		tree.Close()
		return nil, err
	}
	nb.repo = repo
	return nb, nil
}

// notebookPath picks the folder (see Open).
func notebookPath(tree *safepath.Tree, s Settings) string {
	for _, env := range []string{EnvPath, EnvBlueKit} {
		if v := os.Getenv(env); v != "" {
			return v
		}
	}
	if s.Path != "" {
		return s.Path
	}
	isDir := func(p string) bool {
		real, err := tree.Resolve(p)
		if err != nil {
			return false
		}
		st, err := tree.Root().Stat(real)
		return err == nil && st.IsDir()
	}
	if !isDir(DefaultPath) && isDir(BlueKitDir) {
		return BlueKitDir
	}
	return DefaultPath
}

// openIn opens the notebook folder rel of a working tree. The folder goes
// through the tree's resolver like any other path: a committed config or
// symlink cannot point it into .git or outside the repository.
func openIn(tree *safepath.Tree, rel string) (*Notebook, error) {
	clean, err := safepath.Clean(tree.Dir(), rel)
	if err != nil || clean == "." {
		return nil, fault.Usagef("notebook folder %q must be a folder inside the repository", rel)
	}
	real, err := tree.Resolve(clean)
	if err != nil {
		return nil, refuse(PathTraversal, "the notebook folder %s: %v", clean, err)
	}
	if real == "." {
		return nil, fault.Usagef("notebook folder %q resolves to the repository root; it must be a folder inside it", rel)
	}
	if err := tree.Root().MkdirAll(real, 0o755); err != nil {
		return nil, fmt.Errorf("create notebook folder: %w", err)
	}
	root, err := tree.Root().OpenRoot(real)
	if err != nil {
		return nil, err
	}
	return &Notebook{tree: tree, Rel: clean, real: real, Abs: filepath.Join(tree.Dir(), filepath.FromSlash(real)), root: root}, nil
}

// Close releases the folder.
func (nb *Notebook) Close() {
	if nb.root != nil {
		nb.root.Close()
	}
	if nb.tree != nil {
		nb.tree.Close()
	}
}

// cleanPath validates a notebook-relative path given by a caller and
// returns it in clean slash form. file says whether it must name a note
// (and so carry an allowed extension).
func (nb *Notebook) cleanPath(p string, file bool) (string, error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return "", refuse(InvalidArgument, "a path is required")
	case strings.IndexByte(p, 0) >= 0:
		return "", refuse(InvalidArgument, "path contains a NUL byte")
	case !utf8.ValidString(p):
		return "", refuse(InvalidArgument, "path is not valid UTF-8")
	case strings.ContainsRune(p, '\\'):
		return "", refuse(InvalidArgument, "%s: use forward slashes", p)
	case len(p) > maxPath:
		return "", refuse(InvalidArgument, "path is longer than %d bytes", maxPath)
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(nb.Abs, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			if rr, err2 := filepath.Rel(resolved(nb.Abs), resolved(p)); err2 == nil && rr != ".." && !strings.HasPrefix(rr, "../") {
				r = rr
			} else {
				return "", refuse(PathTraversal, "%s. Paths must be within the notebook folder", p)
			}
		}
		p = filepath.ToSlash(r)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", refuse(PathTraversal, "%s. Paths must be within the notebook folder", p)
		}
	}
	clean := path.Clean(p)
	if clean == "." {
		if file {
			return "", refuse(InvalidArgument, "%s is the notebook folder, not a note", p)
		}
		return ".", nil
	}
	for _, seg := range strings.Split(clean, "/") {
		switch {
		case len(seg) > maxSegment:
			return "", refuse(InvalidArgument, "a name in %s is longer than %d bytes", clean, maxSegment)
		case strings.HasPrefix(seg, "."):
			return "", refuse(AccessDenied, "%s. Hidden files and folders (and .git) are not accessible", clean)
		case seg == "node_modules":
			return "", refuse(AccessDenied, "%s. node_modules is not accessible", clean)
		}
	}
	if file && !allowedExt[strings.ToLower(path.Ext(clean))] {
		return "", refuse(AccessDenied, "%s. Only .md, .mmd and .json files belong in the notebook", clean)
	}
	// The one resolver has the last word: no symlink inside the notebook
	// may lead into a git directory or out of the notebook.
	if _, err := nb.tree.ResolveIn(nb.real, clean); err != nil {
		return "", refuse(PathTraversal, "%s: %v", clean, err)
	}
	return clean, nil
}

// lock takes the per-file lock of note p for a read-modify-write: two
// writers of the same note (an agent appending, a person tagging) never
// lose each other's change.
func (nb *Notebook) lock(p string) (func(), error) {
	real, err := nb.tree.ResolveIn(nb.real, p)
	if err != nil {
		return nil, refuse(PathTraversal, "%s: %v", p, err)
	}
	return nb.tree.Lock(real)
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// fsErr turns a file-system error into the kit's categories.
func fsErr(p string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, os.ErrNotExist):
		return refuse(NotFound, "%s", p)
	case errors.Is(err, os.ErrPermission):
		return refuse(AccessDenied, "%s: permission denied", p)
	case safepath.IsEscape(err):
		return refuse(PathTraversal, "%s leads outside the notebook folder", p)
	case errors.Is(err, safepath.ErrNotRegular):
		return refuse(InvalidArgument, "%s is not a regular file: notes are files", p)
	}
	return fmt.Errorf("%s: %w", p, err)
}

// Scaffold creates the notebook's folders and its index note in a new
// (empty) notebook, and reports what it created. A notebook that already
// holds a file — a team's existing notebook, a BlueKit .bluekit/ — is
// left exactly as it is: no index, no .gitkeep files.
func (nb *Notebook) Scaffold() ([]string, error) {
	if nb.hasFiles() {
		return nil, nil
	}
	var created []string
	for _, f := range Folders {
		if _, err := nb.root.Stat(f); errors.Is(err, os.ErrNotExist) {
			if err := nb.root.MkdirAll(f, 0o755); err != nil {
				return created, err
			}
			created = append(created, f+"/")
		}
		keep := f + "/.gitkeep" // so git keeps the empty folder
		if _, err := nb.root.Stat(keep); errors.Is(err, os.ErrNotExist) {
			if err := nb.root.WriteFile(keep, nil, 0o644); err != nil {
				return created, err
			}
		}
	}
	if _, err := nb.root.Stat(IndexNote); errors.Is(err, os.ErrNotExist) {
		index := "---\ntype: note\ntitle: Notebook\ntags: [index]\n---\n# Notebook\n\n" +
			"The team's knowledge, kept with the code. Agents and people read and write it with\n" +
			"`git gloss note` and the MCP notebook tools.\n\n" +
			"- kits/ — reusable how-tos\n- walkthroughs/ — guided tours of the code\n- agents/ — agent definitions\n" +
			"- diagrams/ — Mermaid diagrams (.mmd)\n- blueprints/ — project blueprints (.json)\n- notes/ — everything else\n"
		if err := nb.writeFile(IndexNote, []byte(index)); err != nil {
			return created, err
		}
		created = append(created, IndexNote)
	}
	return created, nil
}

// hasFiles reports whether the notebook folder holds any file.
func (nb *Notebook) hasFiles() bool {
	found := false
	_ = fs.WalkDir(nb.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}
