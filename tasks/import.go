package tasks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
	"github.com/gloss-dev/gloss/lazyregexp"
)

// ImportedDir keeps, verbatim, what another tool had that gloss has no
// setting for (Chant's config.md and prompts), so nothing is lost.
const ImportedDir = ".gloss/imported"

// ImportResult is `git gloss task import`'s answer.
type ImportResult struct {
	Schema   string   `json:"$schema"`
	From     string   `json:"from"`
	Tasks    []string `json:"tasks"`    // active tasks written
	Archived []string `json:"archived"` // archived tasks written
	Logs     []string `json:"logs"`     // agent logs written
	Kept     []string `json:"kept"`     // files kept verbatim under .gloss/imported
	Same     []string `json:"same"`     // already there with the same bytes: skipped
	Conflict []string `json:"conflict"` // already there with other bytes: left alone
	Skipped  []string `json:"skipped"`  // symbolic links to folders in the source: not followed
	Fixed    []string `json:"fixed"`    // tasks whose stored status was a computed one (blocked, ready): set to pending
	Left     []Left   `json:"left" jsonschema:"what the Chant folder holds that was not imported (it stays where it is)"`
	Hints    []string `json:"hints"`
	Commit   bool     `json:"committed"`
}

// Left is a part of the Chant folder the import did not bring over.
type Left struct {
	Path  string `json:"path" jsonschema:"relative to the Chant folder; a folder ends in /"`
	Files int    `json:"files"`
	Why   string `json:"why"`
}

// leftWhy says why a part of a Chant folder is not imported.
var leftWhy = map[string]string{
	"templates/": "spec templates (chant add --template): gloss has no templates",
	"research/":  "research outputs of research specs: not tasks, kept where the specs point",
	"processes/": "records of Chant's running MCP processes: nothing to carry over",
	"context/":   "documents injected into prompts: kept where the specs' context names them",
	"store/":     "Chant's runtime store",
	".locks/":    "Chant's runtime locks",
	".store/":    "Chant's runtime store",
	"pids/":      "Chant's agent PIDs",
	"tmp/":       "Chant's prompt files",
}

// chantLogName is <id>.log or <id>.<n>.log (a later run).
var chantLogName = lazyregexp.New(`^(.+?)(?:\.(\d+))?\.log$`)

// ImportChant brings a Chant project (from, usually ".chant") over in one
// step: specs/** become tasks in .gloss/tasks, archive/** (Chant's dated
// folders kept) the archive, logs/<id>[.N].log the task's log, and
// config.md and prompts/ are kept verbatim under .gloss/imported/chant.
// Files already there are never overwritten. Everything lands in one
// commit (or in the working tree with auto_commit off). Agent commands in
// Chant's config are not carried over: gloss runs only what personal git
// config names, so the answer says what to set.
func (s *Store) ImportChant(ctx context.Context, from string) (*ImportResult, error) {
	if from == "" {
		from = ".chant"
	}
	src, err := s.tree.Resolve(from)
	if err != nil {
		return nil, err
	}
	if st, err := s.root.Stat(src); err != nil || !st.IsDir() {
		return nil, fault.NotFoundf("%s: no Chant project here (want a folder with specs/)", from)
	}
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	res := &ImportResult{Schema: schemaTag, From: src, Tasks: []string{}, Archived: []string{}, Logs: []string{}, Kept: []string{},
		Same: []string{}, Conflict: []string{}, Skipped: []string{}, Fixed: []string{}, Hints: []string{}}
	// Everything is read before anything is written: a source that
	// cannot be read (a named pipe, a file that vanished) or a signal
	// refuses the whole import with nothing written.
	plan := &importPlan{ctx: ctx, s: s, res: res}
	specs, err := s.planChantSpecs(src, plan)
	if err != nil {
		return nil, err
	}
	archived, err := s.planChantArchive(src, plan)
	if err != nil {
		return nil, err
	}
	if err := s.importChantLogs(src, plan.put, res); err != nil {
		return nil, err
	}
	prompts, err := s.planChantKept(src, plan)
	if err != nil {
		return nil, err
	}
	if res.Left, err = s.chantLeft(src, specs, archived, prompts); err != nil {
		return nil, err
	}
	res.Hints = append(res.Hints, importHints(src, len(res.Skipped), len(res.Conflict))...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	written, err := s.writePlan(plan.writes)
	if err != nil {
		return nil, err
	}
	if len(written) == 0 {
		return res, nil
	}
	n := len(res.Tasks) + len(res.Archived)
	if err := s.record(ctx, "import", fmt.Sprintf("from %s (%d task(s))", src, n), written...); err != nil {
		return nil, err
	}
	res.Commit = s.autoCommit()
	return res, nil
}

// importPlan is an import's writes, gathered before any is made: the
// files that are new, each with the answer's list it joins once written.
// A file already there is never overwritten: it goes to the answer's Same
// or Conflict instead.
type importPlan struct {
	ctx    context.Context
	s      *Store
	res    *ImportResult
	writes []plannedWrite
}

// plannedWrite is one new file of an import.
type plannedWrite struct {
	dst  string
	data []byte
	list *[]string
}

// put plans writing data to dst, unless dst is already there (with the
// same bytes or others); it fails once the import is cancelled.
func (p *importPlan) put(dst string, data []byte, list *[]string) error {
	if err := p.ctx.Err(); err != nil {
		return err
	}
	old, err := p.s.tree.ReadFile(dst, 0)
	switch {
	case err == nil && bytes.Equal(old, data):
		p.res.Same = append(p.res.Same, dst)
		return nil
	case err == nil:
		p.res.Conflict = append(p.res.Conflict, dst)
		return nil
	case fault.KindOf(err) != fault.NotFound:
		return err
	}
	p.writes = append(p.writes, plannedWrite{dst, data, list})
	return nil
}

// planChantSpecs plans specs/**.md as tasks, a stored computed status
// set to pending on the way, and returns the specs.
func (s *Store) planChantSpecs(src string, plan *importPlan) ([]string, error) {
	res := plan.res
	specs, err := s.chantFiles(path.Join(src, "specs"), ".md", &res.Skipped)
	if err != nil {
		return nil, err
	}
	for _, rel := range specs {
		data, err := s.tree.ReadFile(path.Join(src, "specs", rel), 0)
		if err != nil {
			return nil, err
		}
		data, fixed := storedStatusFix(data)
		if fixed {
			res.Fixed = append(res.Fixed, strings.TrimSuffix(path.Base(rel), ".md"))
		}
		if err := plan.put(path.Join(Dir, rel), data, &res.Tasks); err != nil {
			return nil, err
		}
	}
	return specs, nil
}

// planChantArchive plans archive/**.md as archived tasks, Chant's dated
// folders kept, and returns them.
func (s *Store) planChantArchive(src string, plan *importPlan) ([]string, error) {
	archived, err := s.chantFiles(path.Join(src, "archive"), ".md", &plan.res.Skipped)
	if err != nil {
		return nil, err
	}
	for _, rel := range archived {
		data, err := s.tree.ReadFile(path.Join(src, "archive", rel), 0)
		if err != nil {
			return nil, err
		}
		if err := plan.put(path.Join(ArchiveDir, rel), data, &plan.res.Archived); err != nil {
			return nil, err
		}
	}
	return archived, nil
}

// planChantKept plans config.md and prompts/**.md, which gloss has no
// setting for, to be kept verbatim under .gloss/imported/chant (the
// config with hints on what to set instead), and returns the prompts.
func (s *Store) planChantKept(src string, plan *importPlan) ([]string, error) {
	res := plan.res
	prompts, err := s.chantFiles(path.Join(src, "prompts"), ".md", &res.Skipped)
	if err != nil {
		return nil, err
	}
	kept := []string{"config.md"}
	for _, p := range prompts {
		kept = append(kept, path.Join("prompts", p))
	}
	for _, rel := range kept {
		data, err := s.tree.ReadFile(path.Join(src, rel), 0)
		if fault.KindOf(err) == fault.NotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if rel == "config.md" {
			res.Hints = append(res.Hints, chantConfigHints(data)...)
		}
		if err := plan.put(path.Join(ImportedDir, "chant", rel), data, &res.Kept); err != nil {
			return nil, err
		}
	}
	return prompts, nil
}

// importHints says what an import from src leaves to people: symbolic
// links it did not follow, files it left alone because they differ, and
// the Chant folder itself.
func importHints(src string, skipped, conflicts int) []string {
	var out []string
	if skipped > 0 {
		out = append(out, fmt.Sprintf("%d symbolic link(s) to folders in %s were not followed: copy what they hold into %s by hand if you want it", skipped, src, src))
	}
	if conflicts > 0 {
		out = append(out, fmt.Sprintf("%d file(s) already in gloss differ from Chant's and were left alone: compare them by hand", conflicts))
	}
	return append(out, fmt.Sprintf("%s is left in place: remove it (git rm -r %s) once the team has switched", src, src))
}

// writePlan makes an import's planned writes, each added to its answer's
// list once made, and returns the paths written, sorted.
func (s *Store) writePlan(writes []plannedWrite) ([]string, error) {
	var written []string
	for _, w := range writes {
		if err := s.root.MkdirAll(path.Dir(w.dst), 0o755); err != nil {
			return nil, err
		}
		if err := s.writeFile(w.dst, w.data); err != nil {
			return nil, err
		}
		*w.list = append(*w.list, w.dst)
		written = append(written, w.dst)
	}
	slices.Sort(written)
	return written, nil
}

// chantFiles lists the files with ext below dir (recursively, hidden files
// and folders aside), relative to dir and sorted; none when dir is absent.
// A symbolic link to a folder is not followed (it could lead into .git or
// out of the repository): it goes to skipped, so the answer says so. A
// link named like a file is listed, and reading it goes through the
// resolver, which refuses the whole import if it leads anywhere it must
// not.
func (s *Store) chantFiles(dir, ext string, skipped *[]string) ([]string, error) {
	var out []string
	err := fs.WalkDir(s.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 && !strings.HasSuffix(d.Name(), ext) {
			if st, err := s.root.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
				*skipped = append(*skipped, p)
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ext) {
			out = append(out, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// importChantLogs gathers each task's logs (Chant keeps later runs in
// <id>.N.log) into the one log gloss keeps per task, runs in order.
func (s *Store) importChantLogs(src string, put func(string, []byte, *[]string) error, res *ImportResult) error {
	names, err := s.chantFiles(path.Join(src, "logs"), ".log", &res.Skipped)
	if err != nil {
		return err
	}
	type run struct {
		n    int
		data []byte
	}
	runs := map[string][]run{}
	for _, name := range names {
		m := chantLogName.FindStringSubmatch(path.Base(name))
		if m == nil || strings.Contains(name, "/") || m[1] == "watch" {
			continue
		}
		n := 0
		if m[2] != "" {
			fmt.Sscan(m[2], &n)
		}
		data, err := s.tree.ReadFile(path.Join(src, "logs", name), 0)
		if err != nil {
			return err
		}
		runs[m[1]] = append(runs[m[1]], run{n, data})
	}
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		rs := runs[id]
		slices.SortFunc(rs, func(a, b run) int { return a.n - b.n })
		var buf bytes.Buffer
		for i, r := range rs {
			if i > 0 {
				buf.WriteString("\n" + strings.Repeat("=", 80) + "\n")
			}
			buf.Write(r.data)
		}
		if err := put(committedLog(id), buf.Bytes(), &res.Logs); err != nil {
			return err
		}
	}
	return nil
}

// storedStatusFix turns a stored blocked or ready (computed states Chant
// sometimes writes) into pending; gloss computes them on read.
func storedStatusFix(data []byte) ([]byte, bool) {
	doc, err := frontmatter.Parse(data)
	if err != nil || doc.FM == nil {
		return data, false
	}
	st := frontmatter.String(doc.FM, "status")
	if st != "blocked" && st != "ready" {
		return data, false
	}
	if err := frontmatter.Set(doc.FM, "status", "pending"); err != nil {
		return data, false
	}
	out, err := frontmatter.Render(doc.FM, doc.Body)
	if err != nil {
		return data, false
	}
	return out, true
}

// chantConfigHints says what of Chant's config gloss takes from elsewhere:
// the agent command comes from personal git config only.
func chantConfigHints([]byte) []string {
	return []string{"Chant's config.md is kept in " + ImportedDir + "/chant/; gloss never runs a command named in a committed file, so set the agent with git config gloss.agent '<command>' (default: claude -p)"}
}

// chantLeft lists, by top-level entry, the files of the Chant folder the
// import did not bring over: everything but specs/**.md, archive/**.md,
// logs/<id>[.N].log, config.md and prompts/**.md.
func (s *Store) chantLeft(src string, specs, archived, prompts []string) ([]Left, error) {
	taken := map[string]bool{"config.md": true}
	for _, l := range [][2]any{{"specs", specs}, {"archive", archived}, {"prompts", prompts}} {
		for _, rel := range l[1].([]string) {
			taken[path.Join(l[0].(string), rel)] = true
		}
	}
	counts := map[string]int{}
	err := fs.WalkDir(s.root.FS(), src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, src+"/")
		if taken[rel] {
			return nil
		}
		if strings.HasPrefix(rel, "logs/") && !strings.Contains(strings.TrimPrefix(rel, "logs/"), "/") {
			if m := chantLogName.FindStringSubmatch(path.Base(rel)); m != nil && m[1] != "watch" {
				return nil
			}
		}
		top, _, nested := strings.Cut(rel, "/")
		if nested {
			top += "/"
		}
		counts[top]++
		return nil
	})
	out := []Left{}
	for top, n := range counts {
		why := leftWhy[top]
		switch {
		case why != "":
		case top == ".gitignore":
			why = "Chant's ignore rules"
		case top == "watch.pid" || top == "logs/":
			why = "Chant's runtime files"
		default:
			why = "not part of Chant's format gloss imports"
		}
		out = append(out, Left{Path: top, Files: n, Why: why})
	}
	slices.SortFunc(out, func(a, b Left) int { return strings.Compare(a.Path, b.Path) })
	return out, err
}
