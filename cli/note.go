package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/notebook"
	"github.com/gloss-dev/gloss/runenv"
)

// NoteCmd groups the notebook commands.
type NoteCmd struct {
	Create NoteCreateCmd `cmd:"" help:"Create a note (routed to a folder by its type)."`
	Show   NoteShowCmd   `cmd:"" help:"Show a note."`
	List   NoteListCmd   `cmd:"" help:"List notes (of a folder)."`
	Search NoteSearchCmd `cmd:"" help:"Search the notebook (BM25)."`
	Tag    NoteTagCmd    `cmd:"" help:"Add, remove or list a note's tags."`
	Mv     NoteMvCmd     `cmd:"" help:"Move or rename a note."`
	Rm     NoteRmCmd     `cmd:"" help:"Delete a note (repeat its path with --confirm)."`
	Status NoteStatusCmd `cmd:"" help:"List uncommitted changes in the notebook."`
}

// Help is the long help of note.
func (NoteCmd) Help() string {
	return `The team notebook: kits, walkthroughs, agents, diagrams, blueprints and notes
kept as committed files under .gloss/notebook/ (or [notebook] path in
.gloss/config.toml, or $` + runenv.Notebook + `). git gloss init scaffolds it; agents
use the same operations through the MCP notebook tools. Notes are ordinary
working-tree files: review and commit them like code.

Paths are relative to the notebook folder and never leave it: "..", absolute
paths elsewhere, symlinks out, .git, hidden files and other extensions than
.md, .mmd and .json are refused.`
}

// withNotebook opens the notebook for a command.
func (g *Globals) withNotebook(fn func(nb *notebook.Notebook) error) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	nb, err := notebook.Open(g.ctx, repo)
	if err != nil {
		return err
	}
	defer nb.Close()
	return fn(nb)
}

// emitNote prints a notebook result: compact JSON with --json, long keys
// and indentation with --pretty, else the human view.
func (g *Globals) emitNote(v any, pretty bool, human func(s *styler)) error {
	if pretty {
		data, err := notebook.Pretty(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(g.rawStdout, "%s\n", data)
		return err
	}
	return g.emit(v, human)
}

func opHuman(res *notebook.OpResult) func(s *styler) {
	return func(s *styler) { s.println(res.Message) }
}

// NoteCreateCmd is `git gloss note create`.
type NoteCreateCmd struct {
	Name      string   `arg:"" help:"Note name without extension (may contain subfolders)."`
	Type      string   `name:"type" short:"t" enum:"kit,walkthrough,agent,diagram,blueprint,note," default:"" help:"kit, walkthrough, agent, diagram, blueprint or note: chooses the folder."`
	Folder    string   `name:"folder" help:"Put it in this folder instead."`
	Tag       []string `name:"tag" sep:"none" help:"A tag (repeatable)."`
	Title     string   `name:"title" help:"Title (frontmatter)."`
	Content   string   `name:"content" short:"m" help:"Content (otherwise read from standard input with --stdin)."`
	Stdin     bool     `name:"stdin" help:"Read the content from standard input."`
	Overwrite bool     `name:"overwrite" help:"Replace an existing note."`
}

// Run creates the note.
func (c *NoteCreateCmd) Run(g *Globals) error {
	content := c.Content
	if c.Stdin {
		data, err := io.ReadAll(io.LimitReader(g.stdin, 8<<20))
		if err != nil {
			return err
		}
		content = string(data)
	}
	fm := map[string]any{}
	if c.Type != "" {
		fm["type"] = c.Type
	}
	if len(c.Tag) > 0 {
		fm["tags"] = c.Tag
	}
	if c.Title != "" {
		fm["title"] = c.Title
	}
	in := notebook.CreateInput{Name: c.Name, Content: content, Folder: c.Folder, Overwrite: c.Overwrite}
	if len(fm) > 0 {
		in.Frontmatter = fm
	}
	return g.withNotebook(func(nb *notebook.Notebook) error {
		res, err := nb.Create(in)
		if err != nil {
			return err
		}
		return g.emit(res, opHuman(res))
	})
}

// NoteShowCmd is `git gloss note show`.
type NoteShowCmd struct {
	Path   string `arg:"" help:"Note path inside the notebook."`
	Pretty bool   `name:"pretty" help:"Long key names and indentation (JSON)."`
}

// Run shows the note.
func (c *NoteShowCmd) Run(g *Globals) error {
	return g.withNotebook(func(nb *notebook.Notebook) error {
		res, err := nb.Read(c.Path)
		if err != nil {
			return err
		}
		return g.emitNote(res, c.Pretty, func(s *styler) {
			s.println(s.bold(res.Path))
			for _, k := range slices.Sorted(maps.Keys(res.Frontmatter)) {
				s.printf("  %s %v\n", s.dim(k+":"), res.Frontmatter[k])
			}
			s.println()
			s.printf("%s", res.Content)
			if !strings.HasSuffix(res.Content, "\n") {
				s.println()
			}
		})
	})
}

// NoteListCmd is `git gloss note list`.
type NoteListCmd struct {
	Folder string `arg:"" optional:"" help:"Folder inside the notebook (default: all of it)."`
	Pretty bool   `name:"pretty" help:"Long key names and indentation (JSON)."`
}

// Run lists notes.
func (c *NoteListCmd) Run(g *Globals) error {
	return g.withNotebook(func(nb *notebook.Notebook) error {
		res, err := nb.List(c.Folder)
		if err != nil {
			return err
		}
		return g.emitNote(res, c.Pretty, func(s *styler) {
			if len(res.Notes) == 0 {
				s.println("no notes")
			}
			for _, n := range res.Notes {
				tags := ""
				if len(n.Tags) > 0 {
					tags = s.dim(" #" + strings.Join(n.Tags, " #"))
				}
				s.printf("%-40s %-12s %s%s\n", n.Path, s.dim(n.Type), n.Title, tags)
			}
		})
	})
}

// NoteSearchCmd is `git gloss note search`.
type NoteSearchCmd struct {
	Query           string   `arg:"" help:"Words to search for."`
	Folder          string   `name:"folder" help:"Only this folder."`
	Type            string   `name:"type" help:"Only notes of this type."`
	Tag             []string `name:"tag" sep:"none" help:"Only notes with this tag (repeatable: all of them)."`
	Limit           int      `name:"limit" short:"n" default:"10" help:"Results to show (at most 50)."`
	ContentOnly     bool     `name:"content-only" help:"Search note bodies only."`
	FrontmatterOnly bool     `name:"frontmatter-only" help:"Search frontmatter (and file names) only."`
	Pretty          bool     `name:"pretty" help:"Long key names and indentation (JSON)."`
}

// Run searches.
func (c *NoteSearchCmd) Run(g *Globals) error {
	if c.ContentOnly && c.FrontmatterOnly {
		return fault.Usagef("--content-only and --frontmatter-only exclude each other")
	}
	in := notebook.SearchInput{Query: c.Query, Folder: c.Folder, Type: c.Type, Tags: c.Tag, Limit: c.Limit}
	if c.ContentOnly {
		in.SearchFrontmatter = boolPtr(false)
	}
	if c.FrontmatterOnly {
		in.SearchContent = boolPtr(false)
	}
	return g.withNotebook(func(nb *notebook.Notebook) error {
		res, err := nb.Search(in)
		if err != nil {
			return err
		}
		return g.emitNote(res, c.Pretty, func(s *styler) {
			if len(res.Results) == 0 {
				s.println("no notes match")
				return
			}
			for _, h := range res.Results {
				where := h.Path
				if h.Line > 0 {
					where = fmt.Sprintf("%s:%d", h.Path, h.Line)
				}
				s.printf("%s  %s  %s\n", s.bold(h.Title), s.dim(where), s.dim(fmt.Sprintf("(%d matches)", h.MatchCount)))
				if h.Excerpt != "" {
					s.printf("    %s\n", h.Excerpt)
				}
			}
			if res.Total > len(res.Results) {
				s.println(s.dim(fmt.Sprintf("%d more; raise --limit", res.Total-len(res.Results))))
			}
		})
	})
}

func boolPtr(b bool) *bool { return &b }

// NoteTagCmd is `git gloss note tag`.
type NoteTagCmd struct {
	Path      string   `arg:"" help:"Note path."`
	Operation string   `arg:"" enum:"add,remove,list" help:"add, remove or list."`
	Tags      []string `arg:"" optional:"" help:"Tags to add or remove."`
}

// Run manages tags.
func (c *NoteTagCmd) Run(g *Globals) error {
	return g.withNotebook(func(nb *notebook.Notebook) error {
		res, err := nb.ManageTags(c.Path, c.Operation, c.Tags)
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			if len(res.Tags) == 0 {
				s.println("no tags")
				return
			}
			s.println("#" + strings.Join(res.Tags, " #"))
		})
	})
}

// NoteMvCmd is `git gloss note mv`.
type NoteMvCmd struct {
	From      string `arg:"" help:"Current path."`
	To        string `arg:"" help:"New path."`
	Overwrite bool   `name:"overwrite" help:"Replace an existing note at the new path."`
}

// Run moves.
func (c *NoteMvCmd) Run(g *Globals) error {
	return g.withNotebook(func(nb *notebook.Notebook) error {
		res, err := nb.Move(c.From, c.To, c.Overwrite)
		if err != nil {
			return err
		}
		return g.emit(res, opHuman(res))
	})
}

// NoteRmCmd is `git gloss note rm`.
type NoteRmCmd struct {
	Path    string `arg:"" help:"Note path."`
	Confirm string `name:"confirm" required:"" placeholder:"PATH" help:"Repeat the path to confirm."`
}

// Run deletes.
func (c *NoteRmCmd) Run(g *Globals) error {
	return g.withNotebook(func(nb *notebook.Notebook) error {
		res, err := nb.Delete(c.Path, c.Confirm)
		if err != nil {
			return err
		}
		return g.emit(res, opHuman(res))
	})
}

// NoteStatusCmd is `git gloss note status`.
type NoteStatusCmd struct{}

// Run lists uncommitted notebook changes.
func (c *NoteStatusCmd) Run(g *Globals) error {
	return g.withNotebook(func(nb *notebook.Notebook) error {
		res, err := nb.Status(g.ctx)
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) {
			if len(res.Changes) == 0 {
				s.printf("%s: nothing to commit\n", res.Folder)
				return
			}
			s.printf("uncommitted in %s:\n", res.Folder)
			for _, ch := range res.Changes {
				from := ""
				if ch.From != "" {
					from = s.dim(" (from " + ch.From + ")")
				}
				s.printf("  %-10s %s%s\n", statusColor(s, ch.Status), ch.Path, from)
			}
		})
	})
}

func statusColor(s *styler, st string) string {
	switch st {
	case "added", "untracked":
		return s.green(st)
	case "deleted":
		return s.red(st)
	}
	return s.yellow(st)
}
