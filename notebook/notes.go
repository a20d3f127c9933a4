package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
	"github.com/gloss-dev/gloss/safepath"
)

// Results use the kit's keys: short ones only where the kit has them
// (fm frontmatter in a note read back; p path, t title, ex excerpt, mc
// match count, ln line number in search hits), path everywhere else, as
// the kit's write results {success, message, path} have it. Pretty
// expands the short ones (see Pretty).

// OpResult reports a change.
type OpResult struct {
	Schema  string `json:"$schema"`
	Success bool   `json:"success"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
}

// NoteResult is a note read back.
type NoteResult struct {
	Schema      string         `json:"$schema"`
	Path        string         `json:"path"`
	Frontmatter map[string]any `json:"fm"`
	Content     string         `json:"content"`
}

// FrontmatterResult is a note's frontmatter alone.
type FrontmatterResult struct {
	Schema      string         `json:"$schema"`
	Path        string         `json:"path"`
	Frontmatter map[string]any `json:"fm"`
}

// TagsResult is a note's tags after manage_tags.
type TagsResult struct {
	Schema string   `json:"$schema"`
	Path   string   `json:"path"`
	Tags   []string `json:"tags"`
}

// InfoResult describes a note without reading it.
type InfoResult struct {
	Schema   string `json:"$schema"`
	Path     string `json:"path"`
	Type     string `json:"type"`
	Size     int64  `json:"size"`
	Modified string `json:"modified"`
}

// NoteEntry is one note in a listing.
type NoteEntry struct {
	Path  string   `json:"path"`
	Title string   `json:"title"`
	Type  string   `json:"type"`
	Tags  []string `json:"tags,omitempty"`
}

// ListResult lists notes.
type ListResult struct {
	Schema string      `json:"$schema"`
	Folder string      `json:"folder"`
	Notes  []NoteEntry `json:"notes"`
}

// FolderEntry is one folder of the notebook.
type FolderEntry struct {
	Path  string `json:"path"`
	Notes int    `json:"notes"`
}

// FoldersResult lists folders.
type FoldersResult struct {
	Schema  string        `json:"$schema"`
	Folders []FolderEntry `json:"folders"`
}

// FolderSummary counts what a folder holds.
type FolderSummary struct {
	Schema string         `json:"$schema"`
	Path   string         `json:"path"`
	Notes  int            `json:"notes"`
	Types  map[string]int `json:"types"`
	Tags   map[string]int `json:"tags"`
	Recent []NoteEntry    `json:"recent" jsonschema:"the five most recently modified notes"`
}

const schemaTag = "gloss-note/v1"

func ok(p, format string, args ...any) *OpResult {
	return &OpResult{Schema: schemaTag, Success: true, Message: fmt.Sprintf(format, args...), Path: p}
}

// read loads and parses a note.
func (nb *Notebook) read(p string) (*parsed, error) {
	data, err := safepath.ReadRegular(nb.root, p, 0)
	if err != nil {
		return nil, fsErr(p, err)
	}
	return parseNote(data)
}

// lockNote is the opening of every change to one note: its path cleaned
// and the note locked. The caller defers unlock.
func (nb *Notebook) lockNote(raw string) (p string, unlock func(), err error) {
	if p, err = nb.cleanPath(raw, true); err != nil {
		return "", nil, err
	}
	if unlock, err = nb.lock(p); err != nil {
		return "", nil, err
	}
	return p, unlock, nil
}

// openNote is lockNote, then the note read and parsed, for the changes
// that rewrite it. The caller defers unlock.
func (nb *Notebook) openNote(raw string) (p string, n *parsed, unlock func(), err error) {
	if p, unlock, err = nb.lockNote(raw); err != nil {
		return "", nil, nil, err
	}
	if n, err = nb.read(p); err != nil {
		unlock()
		return "", nil, nil, err
	}
	return p, n, unlock, nil
}

// write stores a note atomically.
func (nb *Notebook) write(p string, data []byte) error {
	if err := nb.writeFile(p, data); err != nil {
		return fsErr(p, err)
	}
	return nil
}

// writeFile replaces a file of the notebook through its os.Root, synced
// to stable storage when the working tree is durable (safepath.Tree).
func (nb *Notebook) writeFile(p string, data []byte) error {
	return atomicfile.WriteVisible(nb.root, p, data, 0o644, nb.tree.Durable())
}

func (nb *Notebook) exists(p string) bool {
	_, err := nb.root.Stat(p)
	return err == nil
}

// CreateInput is create_note's input.
type CreateInput struct {
	Name        string `json:"name" jsonschema:"note name, without extension; may contain subfolders"`
	Content     string `json:"content"`
	Folder      string `json:"folder,omitempty" jsonschema:"folder to put it in; wins over the type's folder"`
	Frontmatter any    `json:"frontmatter,omitempty" jsonschema:"object (or JSON/YAML string): type kit|walkthrough|agent|diagram|blueprint|note, tags, description, ..."`
	Overwrite   bool   `json:"overwrite,omitempty"`
}

// Create writes a new note, routed by its type: an explicit folder wins;
// else kit→kits/, walkthrough→walkthroughs/, agent→agents/,
// diagram→diagrams/ (as .mmd), blueprint→blueprints/, anything else →
// notes/.
func (nb *Notebook) Create(in CreateInput) (*OpResult, error) {
	keys, err := frontmatterInput(in.Frontmatter)
	if err != nil {
		return nil, err
	}
	typ, _ := keys["type"].(string)
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, refuse(InvalidArgument, "a name is required")
	}
	// The name is checked before it is joined to its folder: the join
	// would clean "notes/../escape" into "escape" and "/etc/passwd" into
	// "notes/etc/passwd", and hide what was asked.
	if strings.HasPrefix(name, "/") || filepath.IsAbs(name) {
		return nil, refuse(PathTraversal, "%s. A note's name is relative to its folder, not an absolute path", fault.Quote(name))
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return nil, refuse(PathTraversal, "%s. Paths must be within the notebook folder", fault.Quote(name))
		}
	}
	ext := ".md"
	if typ == "diagram" {
		ext = ".mmd"
	}
	explicitExt := false
	if e := path.Ext(name); allowedExt[strings.ToLower(e)] {
		ext, name, explicitExt = e, strings.TrimSuffix(name, e), true
	}
	folderArg := strings.Trim(strings.TrimSpace(in.Folder), "/")
	if !explicitExt && ((typ == "blueprint" && folderArg == "") || folderArg == "blueprints") {
		// The kit keeps a blueprint as blueprints/<id>/blueprint.json
		// (with its tasks/ beside it), not as a note, whether the type or
		// the folder says blueprint.
		return nb.createBlueprint(name, in)
	}
	folder := in.Folder
	if strings.TrimSpace(folder) == "" {
		if folder = folderFor[typ]; folder == "" {
			folder = "notes"
		}
	}
	folder, err = nb.cleanPath(folder, false)
	if err != nil {
		return nil, err
	}
	p, err := nb.cleanPath(path.Join(folder, name+ext), true)
	if err != nil {
		return nil, err
	}
	unlock, err := nb.lock(p)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if nb.exists(p) && !in.Overwrite {
		return nil, refuse(AlreadyExists, "%s (pass overwrite to replace it)", p)
	}
	var fm *yaml.Node
	if len(keys) > 0 {
		if fm, err = mergeFrontmatter(nil, keys, true); err != nil {
			return nil, err
		}
	}
	body := []byte(in.Content)
	if parsedBody, err := parseNote(body); err == nil && parsedBody.has {
		// Content that brings its own frontmatter: merge the given keys in.
		if fm, err = mergeFrontmatter(parsedBody.fm, keys, true); err != nil {
			return nil, err
		}
		body = parsedBody.body
	} else if err != nil {
		return nil, err
	}
	data, err := render(fm, body)
	if err != nil {
		return nil, err
	}
	if err := nb.write(p, data); err != nil {
		return nil, err
	}
	return ok(p, "Created note: %s", p), nil
}

// Read returns a note's frontmatter and body.
func (nb *Notebook) Read(p string) (*NoteResult, error) {
	p, err := nb.cleanPath(p, true)
	if err != nil {
		return nil, err
	}
	n, err := nb.read(p)
	if err != nil {
		return nil, err
	}
	fm, err := values(n.fm)
	if err != nil {
		return nil, err
	}
	return &NoteResult{Schema: schemaTag, Path: p, Frontmatter: fm, Content: string(n.body)}, nil
}

// UpdateInput is update_note's input.
type UpdateInput struct {
	Path        string `json:"path"`
	Content     string `json:"content"`
	Mode        string `json:"mode,omitempty" jsonschema:"overwrite (default), append or prepend; frontmatter is kept either way"`
	Frontmatter any    `json:"frontmatter,omitempty" jsonschema:"keys to merge into the frontmatter"`
}

// Update rewrites, appends to or prepends to a note's body; its
// frontmatter is kept (and given keys are merged in).
func (nb *Notebook) Update(in UpdateInput) (*OpResult, error) {
	p, n, unlock, err := nb.openNote(in.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	keys, err := frontmatterInput(in.Frontmatter)
	if err != nil {
		return nil, err
	}
	fm := n.fm
	if len(keys) > 0 {
		if fm, err = mergeFrontmatter(fm, keys, true); err != nil {
			return nil, err
		}
	}
	var body []byte
	switch mode := in.Mode; mode {
	case "", "overwrite":
		body = []byte(in.Content)
	case "append":
		body = joinText(n.body, []byte(in.Content))
	case "prepend":
		body = joinText([]byte(in.Content), n.body)
	default:
		return nil, refuse(InvalidArgument, "mode must be overwrite, append or prepend, not %q", mode)
	}
	data, err := render(fm, body)
	if err != nil {
		return nil, err
	}
	if err := nb.write(p, data); err != nil {
		return nil, err
	}
	mode := in.Mode
	if mode == "" {
		mode = "overwrite"
	}
	return ok(p, "Updated note: %s (mode: %s)", p, mode), nil
}

// joinText puts b after a, on a new line.
func joinText(a, b []byte) []byte {
	out := append([]byte{}, a...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, b...)
}

// PatchInput is patch_note's input.
type PatchInput struct {
	Path       string `json:"path"`
	OldString  string `json:"oldString"`
	NewString  string `json:"newString"`
	ReplaceAll bool   `json:"replaceAll,omitempty"`
}

// Patch replaces a string in a note's body. Several matches are refused
// unless ReplaceAll; the frontmatter is not patched (use
// update_frontmatter).
func (nb *Notebook) Patch(in PatchInput) (*OpResult, error) {
	p, unlock, err := nb.lockNote(in.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if in.OldString == "" {
		return nil, refuse(InvalidArgument, "oldString must not be empty")
	}
	if in.OldString == in.NewString {
		return nil, refuse(InvalidArgument, "oldString and newString are the same")
	}
	n, err := nb.read(p)
	if err != nil {
		return nil, err
	}
	count := bytes.Count(n.body, []byte(in.OldString))
	switch {
	case count == 0:
		return nil, refuse(StringNotFound, "%q", shorten(in.OldString, 50))
	case count > 1 && !in.ReplaceAll:
		return nil, &Error{Category: MultipleMatches, Detail: fmt.Sprintf("Found %d occurrences of the string. Use replaceAll=true to replace them all, or give a longer string that matches once.", count)}
	}
	limit := 1
	if in.ReplaceAll {
		limit = -1
	}
	body := bytes.Replace(n.body, []byte(in.OldString), []byte(in.NewString), limit)
	data, err := render(n.fm, body)
	if err != nil {
		return nil, err
	}
	if !n.has {
		data = body
	}
	if err := nb.write(p, data); err != nil {
		return nil, err
	}
	replaced := 1
	if in.ReplaceAll {
		replaced = count
	}
	return ok(p, "Successfully replaced %d occurrence(s) in %s", replaced, p), nil
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Delete removes a note; confirmPath must repeat its path exactly.
func (nb *Notebook) Delete(p, confirmPath string) (*OpResult, error) {
	p, unlock, err := nb.lockNote(p)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if strings.TrimSpace(confirmPath) != p && strings.TrimSpace(confirmPath) != strings.TrimSpace(p) {
		return nil, &Error{Category: DeletionCancelled}
	}
	st, err := nb.root.Lstat(p)
	if err != nil {
		return nil, fsErr(p, err)
	}
	if st.IsDir() {
		return nil, refuse(InvalidArgument, "%s is a folder; only notes can be deleted", p)
	}
	if err := nb.root.Remove(p); err != nil {
		return nil, fsErr(p, err)
	}
	return ok(p, "Deleted note: %s (git still has it if it was committed)", p), nil
}

// Move renames a note, creating folders as needed. An existing target is
// refused unless overwrite.
func (nb *Notebook) Move(oldPath, newPath string, overwrite bool) (*OpResult, error) {
	from, err := nb.cleanPath(oldPath, true)
	if err != nil {
		return nil, err
	}
	to, err := nb.cleanPath(newPath, true)
	if err != nil {
		return nil, err
	}
	// Both notes are locked, always in the same order, so two moves
	// cannot wait on each other.
	for _, p := range slices.Sorted(slices.Values([]string{from, to})) {
		unlock, err := nb.lock(p)
		if err != nil {
			return nil, err
		}
		defer unlock()
		if from == to {
			break
		}
	}
	if _, err := nb.root.Lstat(from); err != nil {
		return nil, fsErr(from, err)
	}
	if nb.exists(to) && !overwrite {
		return nil, refuse(AlreadyExists, "%s (pass overwrite to replace it)", to)
	}
	if dir := path.Dir(to); dir != "." {
		if err := nb.root.MkdirAll(dir, 0o755); err != nil {
			return nil, fsErr(dir, err)
		}
	}
	if err := nb.root.Rename(from, to); err != nil {
		return nil, fsErr(to, err)
	}
	return ok(to, "Moved note: %s -> %s", from, to), nil
}

// Frontmatter returns a note's frontmatter.
func (nb *Notebook) Frontmatter(p string) (*FrontmatterResult, error) {
	r, err := nb.Read(p)
	if err != nil {
		return nil, err
	}
	return &FrontmatterResult{Schema: schemaTag, Path: r.Path, Frontmatter: r.Frontmatter}, nil
}

// UpdateFrontmatter merges keys into a note's frontmatter (or replaces it
// when merge is false). The body is kept byte for byte.
func (nb *Notebook) UpdateFrontmatter(p string, frontmatter any, merge bool) (*OpResult, error) {
	p, n, unlock, err := nb.openNote(p)
	if err != nil {
		return nil, err
	}
	defer unlock()
	keys, err := frontmatterInput(frontmatter)
	if err != nil {
		return nil, err
	}
	if keys == nil {
		return nil, refuse(InvalidFrontmatter, "no keys given")
	}
	fm, err := mergeFrontmatter(n.fm, keys, merge)
	if err != nil {
		return nil, err
	}
	data, err := render(fm, n.body)
	if err != nil {
		return nil, err
	}
	if err := nb.write(p, data); err != nil {
		return nil, err
	}
	return ok(p, "Successfully updated frontmatter for: %s", p), nil
}

// ManageTags adds, removes or lists the tags in a note's frontmatter.
func (nb *Notebook) ManageTags(p, operation string, tags []string) (*TagsResult, error) {
	p, n, unlock, err := nb.openNote(p)
	if err != nil {
		return nil, err
	}
	defer unlock()
	have := frontmatter.Strings(n.fm, "tags")
	switch operation {
	case "list":
	case "add", "remove":
		if len(tags) == 0 {
			return nil, refuse(InvalidArgument, "tags are required to %s", operation)
		}
		for _, t := range tags {
			t = strings.TrimSpace(t)
			if t == "" || strings.ContainsAny(t, "\n\x00") {
				return nil, refuse(InvalidArgument, "invalid tag %q", t)
			}
			i := slices.Index(have, t)
			if operation == "add" && i < 0 {
				have = append(have, t)
			}
			if operation == "remove" && i >= 0 {
				have = slices.Delete(have, i, i+1)
			}
		}
		fm := n.fm
		if fm == nil {
			fm = frontmatter.NewMapping()
		}
		if err := frontmatter.Set(fm, "tags", append([]string{}, have...)); err != nil {
			return nil, err
		}
		data, err := render(fm, n.body)
		if err != nil {
			return nil, err
		}
		if err := nb.write(p, data); err != nil {
			return nil, err
		}
	default:
		return nil, refuse(InvalidArgument, "operation must be add, remove or list, not %q", operation)
	}
	if have == nil {
		have = []string{}
	}
	return &TagsResult{Schema: schemaTag, Path: p, Tags: have}, nil
}

// Info describes a note from the file system alone, without reading it.
func (nb *Notebook) Info(p string) (*InfoResult, error) {
	p, err := nb.cleanPath(p, true)
	if err != nil {
		return nil, err
	}
	st, err := nb.root.Stat(p)
	if err != nil {
		return nil, fsErr(p, err)
	}
	return &InfoResult{Schema: schemaTag, Path: p, Type: noteType(p, nil), Size: st.Size(),
		Modified: st.ModTime().UTC().Format(time.RFC3339)}, nil
}

// walk visits every note file under folder (notebook-relative), skipping
// hidden entries and anything the notebook would refuse.
func (nb *Notebook) walk(folder string, fn func(p string, d fs.DirEntry) error) error {
	fsys := nb.root.FS()
	return fs.WalkDir(fsys, folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == folder {
				return fsErr(p, err)
			}
			return nil
		}
		name := d.Name()
		if p != folder && (strings.HasPrefix(name, ".") || name == "node_modules") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		// Only regular files are notes: a named pipe would block its reader.
		if !d.Type().IsRegular() || !allowedExt[strings.ToLower(path.Ext(name))] {
			return nil
		}
		return fn(p, d)
	})
}

// List lists the notes of a folder (the whole notebook for "").
func (nb *Notebook) List(folder string) (*ListResult, error) {
	if strings.TrimSpace(folder) == "" {
		folder = "."
	}
	folder, err := nb.cleanPath(folder, false)
	if err != nil {
		return nil, err
	}
	res := &ListResult{Schema: schemaTag, Folder: folder, Notes: []NoteEntry{}}
	err = nb.walk(folder, func(p string, _ fs.DirEntry) error {
		res.Notes = append(res.Notes, nb.entry(p))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// entry describes a note for listings; unreadable frontmatter still lists.
func (nb *Notebook) entry(p string) NoteEntry {
	e := NoteEntry{Path: p, Title: strings.TrimSuffix(path.Base(p), path.Ext(p)), Type: noteType(p, nil)}
	if n, err := nb.read(p); err == nil {
		e.Title, e.Type, e.Tags = title(p, n.fm, n.body), noteType(p, n.fm), frontmatter.Strings(n.fm, "tags")
	}
	return e
}

// Folders lists the notebook's folders with their note counts.
func (nb *Notebook) ListFolders() (*FoldersResult, error) {
	counts := map[string]int{}
	fsys := nb.root.FS()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != "." {
				counts[p] += 0
			}
			return nil
		}
		if allowedExt[strings.ToLower(path.Ext(p))] {
			counts[path.Dir(p)]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := &FoldersResult{Schema: schemaTag, Folders: []FolderEntry{}}
	for _, f := range slices.Sorted(maps.Keys(counts)) {
		res.Folders = append(res.Folders, FolderEntry{Path: f, Notes: counts[f]})
	}
	return res, nil
}

// CreateFolder makes a folder (and its parents), kept in git by a .gitkeep.
func (nb *Notebook) CreateFolder(p string) (*OpResult, error) {
	p, err := nb.cleanPath(p, false)
	if err != nil {
		return nil, err
	}
	if p == "." {
		return nil, refuse(InvalidArgument, "a folder name is required")
	}
	if st, err := nb.root.Stat(p); err == nil {
		if !st.IsDir() {
			return nil, refuse(AlreadyExists, "%s is a file", p)
		}
		return ok(p, "Folder already exists: %s", p), nil
	}
	if err := nb.root.MkdirAll(p, 0o755); err != nil {
		return nil, fsErr(p, err)
	}
	if err := nb.root.WriteFile(path.Join(p, ".gitkeep"), nil, 0o644); err != nil {
		return nil, fsErr(p, err)
	}
	return ok(p, "Created folder: %s", p), nil
}

// FolderSummary counts the notes of a folder by type and tag.
func (nb *Notebook) FolderSummary(folder string) (*FolderSummary, error) {
	if strings.TrimSpace(folder) == "" {
		folder = "."
	}
	folder, err := nb.cleanPath(folder, false)
	if err != nil {
		return nil, err
	}
	if st, err := nb.root.Stat(folder); err != nil || !st.IsDir() {
		if err == nil {
			return nil, refuse(InvalidArgument, "%s is not a folder", folder)
		}
		return nil, fsErr(folder, err)
	}
	s := &FolderSummary{Schema: schemaTag, Path: folder, Types: map[string]int{}, Tags: map[string]int{}, Recent: []NoteEntry{}}
	type dated struct {
		e   NoteEntry
		mod time.Time
	}
	var all []dated
	err = nb.walk(folder, func(p string, d fs.DirEntry) error {
		e := nb.entry(p)
		s.Notes++
		s.Types[e.Type]++
		for _, t := range e.Tags {
			s.Tags[t]++
		}
		var mod time.Time
		if info, err := d.Info(); err == nil {
			mod = info.ModTime()
		}
		all = append(all, dated{e, mod})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(all, func(i, j int) bool {
		if !all[i].mod.Equal(all[j].mod) {
			return all[i].mod.After(all[j].mod)
		}
		return all[i].e.Path < all[j].e.Path
	})
	for i := 0; i < len(all) && i < 5; i++ {
		s.Recent = append(s.Recent, all[i].e)
	}
	return s, nil
}

// createBlueprint writes a blueprint where the BlueKit notebook kit keeps
// it: blueprints/<name>/blueprint.json (layout in
// https://github.com/stephan-chiorean/blueKit/blob/470e2b4/.bluekit/kits/bluekit-notebook-mcp-server.md).
// The content is the blueprint's JSON, written as given; JSON has no
// frontmatter, so the type is implied by the place.
func (nb *Notebook) createBlueprint(name string, in CreateInput) (*OpResult, error) {
	if !json.Valid([]byte(in.Content)) {
		return nil, refuse(InvalidArgument, "a blueprint is JSON (blueprints/%s/blueprint.json): the content does not parse", name)
	}
	p, err := nb.cleanPath(path.Join("blueprints", name, "blueprint.json"), true)
	if err != nil {
		return nil, err
	}
	unlock, err := nb.lock(p)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if nb.exists(p) && !in.Overwrite {
		return nil, refuse(AlreadyExists, "%s (pass overwrite to replace it)", p)
	}
	data := []byte(in.Content)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	if err := nb.write(p, data); err != nil {
		return nil, err
	}
	return ok(p, "Created note: %s", p), nil
}
