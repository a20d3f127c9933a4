package notebook

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// longKeys spells out the token-optimized keys for people.
var longKeys = map[string]string{
	"fm": "frontmatter", "p": "path", "t": "title", "ex": "excerpt", "mc": "matchCount", "ln": "lineNumber",
}

// Pretty renders a result for people reading it: long key names and
// indentation. The default is the compact form.
func Pretty(v any) ([]byte, error) {
	data, err := schemas.Encode(v)
	if err != nil {
		return nil, err
	}
	var x any
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return json.MarshalIndent(expand(x), "", "  ")
}

func expand(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, vv := range x {
			if k == "fm" {
				out["frontmatter"] = vv // its keys are the user's own: leave them
				continue
			}
			if long, ok := longKeys[k]; ok {
				k = long
			}
			out[k] = expand(vv)
		}
		return out
	case []any:
		for i := range x {
			x[i] = expand(x[i])
		}
		return x
	}
	return v
}

// Change is one uncommitted change in the notebook.
type Change struct {
	Status string `json:"status" jsonschema:"added, modified, deleted, renamed, untracked"`
	Path   string `json:"path"`
	From   string `json:"from,omitempty"`
}

// StatusResult lists the notebook's uncommitted changes.
type StatusResult struct {
	Schema  string   `json:"$schema"`
	Folder  string   `json:"folder"`
	Changes []Change `json:"changes"`
}

// Status lists what in the notebook differs from HEAD: staged, unstaged
// and untracked notes.
func (nb *Notebook) Status(ctx context.Context) (*StatusResult, error) {
	head, err := nb.repo.Head()
	if err != nil {
		return nil, err
	}
	changes, err := nb.repo.DiffWorktree(head, gitops.DiffOptions{Paths: []string{nb.Rel}, Untracked: true})
	if err != nil {
		return nil, err
	}
	res := &StatusResult{Schema: schemaTag, Folder: nb.Rel, Changes: []Change{}}
	prefix := nb.Rel + "/"
	for _, c := range changes {
		if !strings.HasPrefix(c.Path, prefix) || strings.HasSuffix(c.Path, "/.gitkeep") {
			continue
		}
		ch := Change{Status: c.Status, Path: strings.TrimPrefix(c.Path, prefix)}
		if c.OldPath != "" {
			ch.From = strings.TrimPrefix(c.OldPath, prefix)
		}
		res.Changes = append(res.Changes, ch)
	}
	return res, nil
}

func init() {
	schemas.Register(
		schemas.Entry{Name: "note-op", Tag: "gloss-note-op/v1", Description: "A notebook change: create, update, patch, delete, move, create folder.", Type: schemas.TypeOf[OpResult]()},
		schemas.Entry{Name: "note", Tag: "gloss-note/v1", Description: "A note read back (fm is its frontmatter, as the kit names it).", Type: schemas.TypeOf[NoteResult]()},
		schemas.Entry{Name: "note-search", Tag: "gloss-note-search/v1", Description: "Notebook search results (p path, t title, ex excerpt, mc match count, ln line).", Type: schemas.TypeOf[SearchResult]()},
		schemas.Entry{Name: "note-list", Tag: "gloss-note-list/v1", Description: "The notes of a notebook folder.", Type: schemas.TypeOf[ListResult]()},
		schemas.Entry{Name: "note-status", Tag: "gloss-note-status/v1", Description: "Uncommitted changes in the notebook.", Type: schemas.TypeOf[StatusResult]()},
		schemas.Entry{Name: "note-frontmatter", Tag: "gloss-note-frontmatter/v1", Description: "A note's frontmatter (get_frontmatter, update_frontmatter).", Type: schemas.TypeOf[FrontmatterResult]()},
		schemas.Entry{Name: "note-tags", Tag: "gloss-note-tags/v1", Description: "A note's tags after manage_tags.", Type: schemas.TypeOf[TagsResult]()},
		schemas.Entry{Name: "note-info", Tag: "gloss-note-info/v1", Description: "A note's type, size and dates (get_note_info).", Type: schemas.TypeOf[InfoResult]()},
		schemas.Entry{Name: "note-folders", Tag: "gloss-note-folders/v1", Description: "The notebook's folders (list_folders).", Type: schemas.TypeOf[FoldersResult]()},
		schemas.Entry{Name: "note-folder-summary", Tag: "gloss-note-folder-summary/v1", Description: "A folder at a glance: types, tags, recent notes (get_folder_summary).", Type: schemas.TypeOf[FolderSummary]()},
	)
}
