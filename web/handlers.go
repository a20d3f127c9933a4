package web

import (
	"bytes"
	"context"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/noma"
	"github.com/gloss-dev/gloss/notebook"
	"github.com/gloss-dev/gloss/reconcile"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/setup"
	"github.com/gloss-dev/gloss/tasks"
	"github.com/gloss-dev/gloss/why"
)

// pct is a share in whole percent.
func pct(part, whole int) int {
	if whole <= 0 {
		return 0
	}
	return (part*100 + whole/2) / whole
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.overview)
	m.HandleFunc("GET /assets/{file...}", s.asset)
	m.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		r.SetPathValue("file", "favicon.svg")
		s.asset(w, r)
	})
	m.HandleFunc("GET /file/{path...}", s.file)
	m.HandleFunc("GET /history/{path...}", s.history)
	m.HandleFunc("GET /deps/{path...}", s.deps)
	m.HandleFunc("GET /tree/{path...}", s.tree)
	m.HandleFunc("GET /stats", s.stats)
	m.HandleFunc("GET /review", s.review)
	m.HandleFunc("GET /specs", s.specs)
	m.HandleFunc("GET /specs/diff", s.specDiff)
	m.HandleFunc("GET /tasks", s.tasks)
	m.HandleFunc("GET /tasks/events", s.taskEvents)
	m.HandleFunc("GET /task/{id}", s.task)
	m.HandleFunc("GET /task/{id}/log", s.taskLog)
	m.HandleFunc("GET /notebook", s.notebook)
	m.HandleFunc("GET /notebook/search", s.noteSearch)
	m.HandleFunc("GET /note/{path...}", s.note)
	m.HandleFunc("GET /docs", s.docs)
	m.HandleFunc("GET /doc/{path...}", s.doc)
	s.mux = m
}

// withRepo opens the repository for one request, as the CLI does for one
// command.
func (s *Server) withRepo(w http.ResponseWriter, r *http.Request, fn func(repo *gitops.Repo) error) {
	repo, err := gitops.Open(s.dir)
	if err == nil {
		defer repo.Close()
		err = fn(repo)
	}
	if err != nil {
		s.fail(w, r, err)
	}
}

func (s *Server) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	data, err := fs.ReadFile(assetFS, path.Join("assets", name))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "private, max-age=3600")
	_, _ = w.Write(data)
}

// hasAsset reports whether an embedded asset exists (vendor/ files are
// built by make and may be absent).
func hasAsset(name string) bool {
	_, err := fs.Stat(assetFS, path.Join("assets", name))
	return err == nil
}

// overviewData is what the overview shows besides the status.
type overviewData struct {
	Status  *setup.Status
	Authors *why.AuthorsResult
	Commits int // on HEAD
	Specs   *reconcile.StatusResult
	Tasks   map[string]int
	Ready   []tasks.Summary
	Notes   []notebook.NoteEntry
	// Decisions are the newest decisions in force, and DecisionCount
	// all of them; Attributed the newest commits with line attribution.
	Decisions     []decisionItem
	DecisionCount int
	Attributed    []attributedCommit
	Errors        []string
}

// recentShown is how many recent decisions and attributed commits the
// overview lists.
const recentShown = 8

func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		st, err := setup.CollectStatus(r.Context(), repo)
		if err != nil {
			return err
		}
		d := overviewData{Status: st, Tasks: map[string]int{}}
		if r.URL.Query().Get("format") != "json" {
			if a, err := why.Authors(repo); err == nil {
				d.Authors = a
			}
			if out, err := repo.Git(r.Context(), "rev-list", "--count", "HEAD"); err == nil {
				d.Commits, _ = strconv.Atoi(strings.TrimSpace(string(out)))
			}
			if ws, err := reconcile.Open(r.Context(), repo); err == nil {
				if sr, err := ws.Status(); err == nil {
					d.Specs = sr
				} else {
					d.Errors = append(d.Errors, "specs: "+err.Error())
				}
			}
			if ts, err := tasks.Open(r.Context(), repo); err == nil {
				if l, err := ts.List("", 0); err == nil {
					for _, t := range l.Tasks {
						d.Tasks[t.EffectiveStatus]++
						if t.EffectiveStatus == "ready" {
							d.Ready = append(d.Ready, t)
						}
					}
				}
				ts.Close()
			}
			if ds, err := liveDecisions(repo); err == nil {
				d.DecisionCount, d.Decisions = len(ds), ds[:min(len(ds), recentShown)]
				if len(d.Decisions) > 0 {
					today := newPathsToday(r.Context(), repo)
					for i := range d.Decisions {
						d.Decisions[i].File = today.of(d.Decisions[i].File)
					}
				}
			} else {
				d.Errors = append(d.Errors, "decisions: "+err.Error())
			}
			if recs, err := attributionRecords(repo); err == nil {
				d.Attributed = recentAttributed(repo, recs, recentShown)
			} else {
				d.Errors = append(d.Errors, "line attribution: "+err.Error())
			}
			if nb, err := notebook.Open(r.Context(), repo); err == nil {
				if l, err := nb.List(""); err == nil {
					d.Notes = l.Notes
					if len(d.Notes) > 8 {
						d.Notes = d.Notes[:8]
					}
				}
				nb.Close()
			}
		}
		s.page(w, r, "overview", view{Title: "Overview", Nav: "overview", Data: d}, st)
		return nil
	})
}

// fileData is the file page: the annotated blame and the highlighted
// source, hunk by hunk.
type fileData struct {
	Blame       *why.BlameResult
	Regions     map[string]*why.RegionView
	Attribution *attribution.BlameResult
	Dir         string
	HunksHTML   template.HTML
	Binary      bool
	Predates    int // lines whose writer gloss never recorded (history before gloss)
	// FileRegions are the decisions about the whole file or a folder
	// holding it, shown above its lines.
	FileRegions []*why.RegionView
	// Decided counts the decisions bound to the function starting at a
	// line, for the outline.
	Decided map[int]int
	// Rest is the address of the hunks after the first screen, when the
	// page holds only the first screen of a long file.
	// All is the address of the whole page in one response.
	Rest, All string
	// Highlight lists the scripts that colour the code, which the page's
	// script loads once the first screen is painted.
	Highlight string
}

// firstScreenLines is how many lines of a file page are sent before the
// rest: a few screens, so that the page paints at once and one can start
// reading while the rest comes. A file this long or shorter is sent whole.
const firstScreenLines = 150

// partURL is the address of a part of a file page (the rest, or all of
// it): the same file and revision; for the rest, the number of lines the
// first screen was cut from, so that the rest of a file changed meanwhile
// is refused, not spliced on.
func partURL(r *http.Request, part string, lines int) string {
	q := url.Values{"part": {part}}
	if lines > 0 {
		q.Set("lines", strconv.Itoa(lines))
	}
	if rev := r.URL.Query().Get("rev"); rev != "" {
		q.Set("rev", rev)
	}
	return r.URL.Path + "?" + q.Encode()
}

// fileRest answers the hunks after the first screen, an HTML fragment
// for the page's script to append; 409 when the file no longer has the
// lines the page was cut from (it changed between the two requests).
func fileRest(w http.ResponseWriter, r *http.Request, html template.HTML, cut, lines int) error {
	if r.URL.Query().Get("lines") != strconv.Itoa(lines) || cut <= 0 {
		refuse(w, http.StatusConflict, "the file changed since the page was sent: reload it")
		return nil
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, string(html[cut:]))
	return nil
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	rev := r.URL.Query().Get("rev")
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		if rev == "" && r.URL.Query().Get("format") != "json" && isDir(repo, p) {
			http.Redirect(w, r, "/tree/"+strings.Trim(p, "/"), http.StatusFound)
			return nil
		}
		// Who wrote each line: line attribution, git gloss blame's answer
		// and the page's JSON twin.
		ab, err := attribution.Blame(r.Context(), repo, attribution.BlameQuery{Path: p, Rev: rev})
		if err != nil {
			return err
		}
		if r.URL.Query().Get("format") == "json" {
			writeJSON(w, ab)
			return nil
		}
		// Why: the hunks with the regions of a whole-file read, and the
		// outline.
		b, err := why.Blame(r.Context(), repo, why.BlameQuery{Path: p, Rev: rev})
		if err != nil {
			return err
		}
		rel, content := b.Query.Path, b.Source
		d := fileData{Blame: b, Attribution: ab, Regions: map[string]*why.RegionView{}, Dir: path.Dir(rel)}
		for i := range b.Regions {
			d.Regions[b.Regions[i].ID] = &b.Regions[i]
		}
		var lines []string
		if bytes.IndexByte(content[:min(len(content), 8000)], 0) >= 0 {
			d.Binary = true // as git decides: a NUL early on
		} else {
			lines = escapeLines(content)
		}
		lang := language(rel)
		part := r.URL.Query().Get("part")
		html, cut, err := s.renderHunks(&d, rel, lang, lines, part == "")
		if err != nil {
			return err
		}
		d.HunksHTML = html
		switch {
		case part == "rest":
			return fileRest(w, r, html, cut, len(lines))
		case part != "all" && cut > 0:
			// The first screen alone: the script of the page fetches the
			// rest once it is painted; without scripts, a link to all.
			d.HunksHTML, d.Rest, d.All = html[:cut], partURL(r, "rest", len(lines)), partURL(r, "all", 0)
		}
		// highlight.js colours the lines when make built it in; without
		// it the page is the same, uncoloured. file.js loads it after the
		// first frame: run before it, its grammars held the first paint
		// of every file page back.
		if lang != "" && len(lines) > 0 && hasAsset("vendor/highlight.min.js") {
			d.Highlight = "/assets/vendor/highlight.min.js /assets/highlight-init.js"
		}
		v := view{Title: rel, Nav: "files", Scripts: []string{"file.js"}, Data: d}
		s.page(w, r, "file", v, b)
		return nil
	})
}

// isDir reports whether p is a folder of the work tree, resolved by
// safepath (a link to a folder elsewhere is not one).
func isDir(repo *gitops.Repo, p string) bool {
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return false
	}
	defer tree.Close()
	real, err := tree.Resolve(p)
	if err != nil {
		return false
	}
	st, err := tree.Root().Stat(real)
	return err == nil && st.IsDir()
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		h, err := why.History(r.Context(), repo, why.HistoryQuery{Path: p, Anchor: r.URL.Query().Get("anchor"), Limit: intParam(r, "limit", 10)})
		if err != nil {
			return err
		}
		s.page(w, r, "history", view{Title: "History of " + h.Query.Path, Nav: "files", Data: h}, h)
		return nil
	})
}

// deps lists the regions that declared a dependency on a file (or an
// anchor of it): its own page, as scanning every record is the largest
// cost a file page would otherwise pay on each load.
func (s *Server) deps(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		d, err := why.Deps(r.Context(), repo, why.DepsQuery{Path: p, Anchor: r.URL.Query().Get("anchor")})
		if err != nil {
			return err
		}
		s.page(w, r, "deps", view{Title: "Depended on: " + d.Query.Path, Nav: "files", Data: d}, d)
		return nil
	})
}

// stats is who wrote the code over a range. The page answers at once
// with what the hooks recorded (recorded: each commit's new lines, from
// the notes), and its script then fetches the line-by-line count
// (part=lines: git gloss stats, which blames every file the range
// changed: seconds on a long history gloss has not seen) into it; without
// scripts, a link asks for it. The JSON twin is git gloss stats --json.
func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	q := attribution.StatsQuery{Range: r.URL.Query().Get("range"), Since: r.URL.Query().Get("since")}
	part := r.URL.Query().Get("part")
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		d := statsData{Query: q}
		if r.URL.Query().Get("format") == "json" || part == "lines" || part == "all" {
			st, err := attribution.Stats(r.Context(), repo, q)
			if err != nil {
				return err
			}
			d.Stats = st
			if part == "lines" {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				return s.pages.byName["stats"].ExecuteTemplate(w, "lines", d)
			}
		}
		if r.URL.Query().Get("format") != "json" {
			rec, err := recorded(r.Context(), repo, q)
			if err != nil {
				return err
			}
			d.Recorded = rec
		}
		if d.Stats == nil {
			v := url.Values{"part": {"lines"}, "range": {q.Range}, "since": {q.Since}}
			d.Lines = "/stats?" + v.Encode()
			v.Set("part", "all")
			d.All = "/stats?" + v.Encode()
		}
		s.page(w, r, "stats", view{Title: "Who wrote the code", Nav: "stats", Scripts: []string{"stats.js"}, Data: d}, d.Stats)
		return nil
	})
}

type statsData struct {
	Query    attribution.StatsQuery
	Recorded *recordedStats
	Stats    *attribution.StatsResult
	// Lines is the address of the line-by-line count, All of the page
	// with it, when the page is sent without it.
	Lines, All string
}

// treeData lists the files of HEAD under a folder, one level, each with
// the decisions recorded under it and the agent's share of its attributed
// lines; Filter narrows the list to names holding it.
type treeData struct {
	Dir     string      `json:"dir"`
	Parent  string      `json:"parent"`
	Filter  string      `json:"filter,omitempty"`
	Folders []treeEntry `json:"folders"`
	Files   []treeEntry `json:"files"`
	Hidden  int         `json:"hidden"` // entries the filter left out
	Total   folderCount `json:"total"`
}

// treeEntry is one folder or file of the tree.
type treeEntry struct {
	Path string `json:"path"`
	Name string `json:"name"`
	folderCount
}

func (s *Server) tree(w http.ResponseWriter, r *http.Request) {
	dir := strings.Trim(r.PathValue("path"), "/")
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		if dir != "" {
			if _, err := safepath.Clean(repo.Root(), dir); err != nil {
				return err
			}
		}
		entries, err := repo.ListFiles("HEAD", dir)
		if err != nil {
			return err
		}
		d := treeData{Dir: dir, Folders: []treeEntry{}, Files: []treeEntry{}, Filter: strings.TrimSpace(r.URL.Query().Get("filter"))}
		if dir != "" {
			d.Parent = path.Dir(dir)
			if d.Parent == "." {
				d.Parent = ""
			}
		}
		counts := treeCounts(r.Context(), repo, dir)
		seen := map[string]bool{}
		for _, e := range entries {
			rest := strings.TrimPrefix(e.Path, dir)
			rest = strings.TrimPrefix(rest, "/")
			first, _, nested := strings.Cut(rest, "/")
			p := path.Join(dir, first)
			if seen[p] {
				continue
			}
			seen[p] = true
			te := treeEntry{Path: p, Name: first}
			if c := counts[p]; c != nil {
				te.folderCount = *c
			}
			d.Total.Decisions += te.Decisions
			d.Total.Agent += te.Agent
			d.Total.Seen += te.Seen
			if d.Filter != "" && !strings.Contains(strings.ToLower(first), strings.ToLower(d.Filter)) {
				d.Hidden++
				continue
			}
			if nested {
				d.Folders = append(d.Folders, te)
			} else {
				d.Files = append(d.Files, te)
			}
		}
		byPath := func(a, b treeEntry) int { return strings.Compare(a.Path, b.Path) }
		slices.SortFunc(d.Folders, byPath)
		slices.SortFunc(d.Files, byPath)
		title := "Files"
		if dir != "" {
			title = dir
		}
		s.page(w, r, "tree", view{Title: title, Nav: "files", Data: d}, d)
		return nil
	})
}

// treeCounts counts the decisions and attributed lines under each entry
// of dir, from the notes; none when they cannot be read (the listing
// still stands).
func treeCounts(ctx context.Context, repo *gitops.Repo, dir string) map[string]*folderCount {
	ds, err := liveDecisions(repo)
	if err != nil {
		return nil
	}
	recs, err := attributionRecords(repo)
	if err != nil {
		return nil
	}
	var today *pathsToday
	if len(ds) > 0 || len(recs) > 0 {
		today = newPathsToday(ctx, repo)
	}
	return countUnder(dir, ds, recs, today)
}

func (s *Server) specs(w http.ResponseWriter, r *http.Request) {
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		ws, err := reconcile.Open(r.Context(), repo)
		if err != nil {
			return err
		}
		st, err := ws.Status()
		if err != nil {
			return err
		}
		s.page(w, r, "specs", view{Title: "Specs", Nav: "specs", Data: st}, st)
		return nil
	})
}

type specDiffData struct {
	Base string
	Diff *reconcile.DiffResult
}

func (s *Server) specDiff(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	base := q.Get("base")
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		ws, err := reconcile.Open(r.Context(), repo)
		if err != nil {
			return err
		}
		if base == "" {
			// The diff since the last reconciliation: from the commit
			// HEAD was at then (HEAD when the spec was never reconciled).
			base = "HEAD"
			if st, err := ws.Status(); err == nil {
				for _, row := range st.Specs {
					if row.ReconciledHead != "" && (row.SpecPath == q.Get("spec") || strings.TrimSuffix(path.Base(row.SpecPath), ".spec.yaml") == q.Get("spec")) {
						base = row.ReconciledHead
					}
				}
			}
		}
		d, err := ws.SpecDiff(r.Context(), reconcile.DiffInput{SpecPath: q.Get("spec"), BaseBranch: base, PlainBase: q.Get("plain") == "1"})
		if err != nil {
			return err
		}
		// The diff is coloured by highlight.js's diff grammar when make
		// built it in (additions green, deletions red, hunk headers blue).
		var sc []string
		if d.Diff != "" && hasAsset(codeScripts[0]) {
			sc = codeScripts
		}
		s.page(w, r, "specdiff", view{Title: "Spec " + d.SpecPath, Nav: "specs", Scripts: sc, Data: specDiffData{Base: base, Diff: d}}, d)
		return nil
	})
}

// boardOrder is the columns of the task board, in the order work flows.
var boardOrder = []string{"blocked", "pending", "ready", "in_progress", "paused", "needs_attention", "failed", "completed"}

type column struct {
	Status string
	Tasks  []tasks.Summary
}

type boardData struct {
	Columns []column
	Total   int
}

func board(l *tasks.ListResult) boardData {
	by := map[string][]tasks.Summary{}
	for _, t := range l.Tasks {
		by[t.EffectiveStatus] = append(by[t.EffectiveStatus], t)
	}
	d := boardData{Total: l.Total}
	for _, st := range boardOrder {
		d.Columns = append(d.Columns, column{Status: st, Tasks: by[st]})
		delete(by, st)
	}
	var rest []string
	for st := range by {
		rest = append(rest, st)
	}
	slices.Sort(rest)
	for _, st := range rest {
		d.Columns = append(d.Columns, column{Status: st, Tasks: by[st]})
	}
	return d
}

// listTasks is task list --json's call, with its default limit unless
// the URL gives one.
func listTasks(r *http.Request, repo *gitops.Repo) (*tasks.ListResult, error) {
	ts, err := tasks.Open(r.Context(), repo)
	if err != nil {
		return nil, err
	}
	defer ts.Close()
	return ts.List(r.URL.Query().Get("status"), intParam(r, "limit", 50))
}

// intParam reads a positive number from the URL, or def.
func intParam(r *http.Request, name string, def int) int {
	if n, err := strconv.Atoi(r.URL.Query().Get(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func (s *Server) tasks(w http.ResponseWriter, r *http.Request) {
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		l, err := listTasks(r, repo)
		if err != nil {
			return err
		}
		s.page(w, r, "tasks", view{Title: "Tasks", Nav: "tasks", Scripts: []string{"tasks.js"}, Data: board(l)}, l)
		return nil
	})
}

type taskData struct {
	Task *tasks.Detail
	Log  *tasks.LogResult
}

func (s *Server) task(w http.ResponseWriter, r *http.Request) {
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		ts, err := tasks.Open(r.Context(), repo)
		if err != nil {
			return err
		}
		defer ts.Close()
		t, err := ts.Get(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		d := taskData{Task: t}
		if lg, err := ts.Log(t.ID, 200, 0, ""); err == nil {
			d.Log = lg
		}
		// The description is markdown, rendered in the browser like a
		// note's (shown as its source without the scripts).
		sc := append(noteScripts(true, fences(string(t.Body)), hasAsset), "task.js")
		s.page(w, r, "task", view{Title: t.ID + " " + t.Title, Nav: "tasks", Scripts: sc, Data: d}, t)
		return nil
	})
}

type notebookData struct {
	List   *notebook.ListResult
	Tree   []folderView
	Tags   []tagCount
	Query  string
	Search *notebook.SearchResult
}

type folderView struct {
	Folder string
	Notes  []notebook.NoteEntry
}

type tagCount struct {
	Tag   string
	Count int
}

func (s *Server) notebookData(r *http.Request, nb *notebook.Notebook) (notebookData, error) {
	l, err := nb.List("")
	if err != nil {
		return notebookData{}, err
	}
	d := notebookData{List: l}
	by := map[string][]notebook.NoteEntry{}
	tags := map[string]int{}
	for _, n := range l.Notes {
		f := path.Dir(n.Path)
		by[f] = append(by[f], n)
		for _, t := range n.Tags {
			tags[t]++
		}
	}
	for _, f := range slices.Sorted(func(yield func(string) bool) {
		for k := range by {
			if !yield(k) {
				return
			}
		}
	}) {
		d.Tree = append(d.Tree, folderView{Folder: f, Notes: by[f]})
	}
	for t, c := range tags {
		d.Tags = append(d.Tags, tagCount{t, c})
	}
	sort.Slice(d.Tags, func(i, j int) bool {
		if d.Tags[i].Count != d.Tags[j].Count {
			return d.Tags[i].Count > d.Tags[j].Count
		}
		return d.Tags[i].Tag < d.Tags[j].Tag
	})
	return d, nil
}

func (s *Server) withNotebook(w http.ResponseWriter, r *http.Request, fn func(nb *notebook.Notebook) error) {
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		nb, err := notebook.Open(r.Context(), repo)
		if err != nil {
			return err
		}
		defer nb.Close()
		return fn(nb)
	})
}

func (s *Server) notebook(w http.ResponseWriter, r *http.Request) {
	s.withNotebook(w, r, func(nb *notebook.Notebook) error {
		d, err := s.notebookData(r, nb)
		if err != nil {
			return err
		}
		s.page(w, r, "notebook", view{Title: "Notebook", Nav: "notebook", Scripts: []string{"search.js"}, Data: d}, d.List)
		return nil
	})
}

func (s *Server) noteSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	tag := r.URL.Query()["tag"]
	s.withNotebook(w, r, func(nb *notebook.Notebook) error {
		in := notebook.SearchInput{Query: q, Tags: tag, Limit: intParam(r, "limit", 10)}
		res, err := nb.Search(in)
		if err != nil {
			return err
		}
		if r.URL.Query().Get("format") == "json" {
			writeJSON(w, res)
			return nil
		}
		d, err := s.notebookData(r, nb)
		if err != nil {
			return err
		}
		d.Query, d.Search = q, res
		s.page(w, r, "notebook", view{Title: "Search: " + q, Nav: "notebook", Scripts: []string{"search.js"}, Data: d}, res)
		return nil
	})
}

type noteData struct {
	Note    *notebook.NoteResult
	HTML    template.HTML
	Mermaid bool
	Tags    []string
}

func (s *Server) note(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	s.withNotebook(w, r, func(nb *notebook.Notebook) error {
		n, err := nb.Read(p)
		if err != nil {
			return err
		}
		if r.URL.Query().Get("format") == "json" {
			writeJSON(w, n)
			return nil
		}
		body, blocks := renderNote(n.Path, n.Content)
		d := noteData{Note: n, HTML: body, Mermaid: blocks.Mermaid}
		if tags, ok := n.Frontmatter["tags"].([]any); ok {
			for _, t := range tags {
				if s, ok := t.(string); ok {
					d.Tags = append(d.Tags, s)
				}
			}
		}
		v := view{Title: n.Path, Nav: "notebook", Data: d}
		v.Scripts = noteScripts(strings.Contains(string(body), `data-markdown=`), blocks, hasAsset)
		s.page(w, r, "note", v, n)
		return nil
	})
}

// noteScripts are the scripts of a page with markdown carriers, diagrams
// and code: each library only when make built it in, in the order they
// must run: the markdown renderer, then mermaid, which draws the diagrams
// it leaves as code, then highlight.js, which colours the code left.
func noteScripts(markdown bool, blocks fenced, has func(asset string) bool) []string {
	var sc []string
	if markdown {
		if !has(markdownScripts[0]) || !has(markdownScripts[1]) {
			return nil // the sources are shown, diagrams and code among them
		}
		sc = append(sc, markdownScripts...)
	}
	if blocks.Mermaid && has(mermaidScripts[0]) {
		sc = append(sc, mermaidScripts...)
	}
	if blocks.Code && has(codeScripts[0]) {
		sc = append(sc, codeScripts...)
	}
	return sc
}

type docsData struct {
	Files []string
}

func (s *Server) docs(w http.ResponseWriter, r *http.Request) {
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		d := docsData{Files: []string{}}
		entries, err := repo.ListFiles("HEAD", "")
		if err != nil && !gitops.IsNotFound(err) {
			return err
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Path, ".noma") {
				d.Files = append(d.Files, e.Path)
			}
		}
		s.page(w, r, "docs", view{Title: "Documents", Nav: "docs", Data: d}, d)
		return nil
	})
}

type docData struct {
	File       string
	Blocks     []blockView
	Check      *noma.CheckResult
	Transcript *noma.TranscriptResult
	Timeline   []string
	Read       *noma.ReadResult
}

type blockView struct {
	noma.Block
	Depth     int
	Container bool   // has child blocks: shown as a heading over them
	Source    string // a leaf's source lines
	Verbatim  bool   // shown as source, not rendered (frontmatter, code)
}

// blockViews lays the flat block list out as the document reads: a
// container (section, directive with children) as a labelled heading, its
// children indented under it, each leaf's own source rendered once.
func blockViews(blocks []noma.Block, lines []string) []blockView {
	var out []blockView
	var open [][2]int // line ranges of the containers we are inside
	for _, b := range blocks {
		for len(open) > 0 && b.Lines[0] > open[len(open)-1][1] {
			open = open[:len(open)-1]
		}
		bv := blockView{Block: b, Depth: len(open), Container: b.ChildCount > 0}
		if bv.Container {
			open = append(open, b.Lines)
		} else if b.Lines[0] >= 1 && b.Lines[1] <= len(lines) && b.Lines[0] <= b.Lines[1] {
			bv.Source = strings.Join(lines[b.Lines[0]-1:b.Lines[1]], "\n")
			bv.Verbatim = b.Type == "frontmatter" || b.Type == "code"
		}
		out = append(out, bv)
	}
	return out
}

func (s *Server) doc(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	s.withRepo(w, r, func(repo *gitops.Repo) error {
		tree, err := safepath.ForRepo(repo)
		if err != nil {
			return err
		}
		defer tree.Close()
		st := noma.NewStore(tree)
		res, err := st.Read(p)
		if err != nil {
			return err
		}
		if r.URL.Query().Get("format") == "json" {
			writeJSON(w, res)
			return nil
		}
		rel, src, err := st.ReadSource(p)
		if err != nil {
			return err
		}
		d := docData{File: rel, Read: res}
		d.Blocks = blockViews(res.Blocks, strings.Split(src, "\n"))
		if c, err := st.Check(p, noma.ValidateOptions{}); err == nil {
			d.Check = c
		}
		if tr, tl, err := st.TranscriptLines(p); err == nil {
			d.Transcript, d.Timeline = tr, tl
		}
		markdown, blocks := false, fenced{}
		for _, b := range d.Blocks {
			if b.Source != "" && !b.Verbatim {
				markdown = true
				blocks = blocks.or(fences(b.Source))
			}
		}
		s.page(w, r, "doc", view{Title: rel, Nav: "docs", Scripts: noteScripts(markdown, blocks, hasAsset), Data: d}, res)
		return nil
	})
}
