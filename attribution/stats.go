package attribution

import (
	"context"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/schemas"
)

// StatsQuery selects the change to count: a range (A..B, or one commit),
// or the commits since a date; the whole history when neither is given.
type StatsQuery struct {
	Range string   `json:"range,omitempty" jsonschema:"A..B, or a single commit; default everything up to HEAD"`
	Since string   `json:"since,omitempty" jsonschema:"count the commits since this date (anything git log --since takes)"`
	Paths []string `json:"paths,omitempty" jsonschema:"limit to these files or directories"`
}

// AuthorLines counts the lines of one commit author.
type AuthorLines struct {
	Author string `json:"author"`
	Lines  int    `json:"lines"`
	Totals
}

// DirLines counts one directory's inserted and deleted lines.
type DirLines struct {
	Dir        string `json:"dir"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
	Totals
}

// StatsResult is the answer of stats: gloss-stats/v1. Insertions and
// deletions are git diff --stat's numbers for the same range; every
// inserted line is counted once in totals, agents (ai and mixed lines that
// name one), authors and directories.
type StatsResult struct {
	Schema      string        `json:"$schema"`
	From        string        `json:"from" jsonschema:"base commit; empty for the empty tree"`
	To          string        `json:"to"`
	Files       int           `json:"files"`
	Insertions  int           `json:"insertions"`
	Deletions   int           `json:"deletions"`
	Totals      Totals        `json:"totals" jsonschema:"inserted lines by contributor type"`
	Agents      []AgentLines  `json:"agents"`
	Authors     []AuthorLines `json:"authors"`
	Directories []DirLines    `json:"directories"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "stats", Tag: "gloss-stats/v1", Description: "Lines of a range by contributor type, agent and model, author and directory (git gloss stats, MCP gloss_stats).", Type: schemas.TypeOf[StatsResult]()})
}

// emptyTree is git's empty tree, the base of a whole-history count.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// resolveRange turns the query into the two sides of a diff.
func resolveRange(ctx context.Context, repo *gitops.Repo, q StatsQuery) (from, to string, err error) {
	switch {
	case q.Range != "" && q.Since != "":
		return "", "", fault.Usagef("give a range or --since, not both")
	case strings.Contains(q.Range, ".."):
		a, b, _ := strings.Cut(q.Range, "..")
		b = strings.TrimPrefix(b, ".")
		if b == "" {
			b = "HEAD"
		}
		if a == "" {
			a = "HEAD"
		}
		if to, err = repo.ResolveCommit(b); err != nil {
			return "", "", fault.NotFoundf("%s: %v", b, err)
		}
		if from, err = repo.ResolveCommit(a); err != nil {
			return "", "", fault.NotFoundf("%s: %v", a, err)
		}
		return from, to, nil
	case q.Range != "":
		c, err := repo.LookupCommit(q.Range)
		if err != nil {
			return "", "", fault.NotFoundf("%s: %v", q.Range, err)
		}
		if len(c.Parents) > 0 {
			from = c.Parents[0]
		}
		return from, c.ID, nil
	}
	if to, err = repo.ResolveCommit("HEAD"); err != nil {
		return "", "", err
	}
	if q.Since != "" {
		// The base is the newest first-parent commit older than the date.
		out, err := repo.Git(ctx, "rev-list", "-1", "--first-parent", "--before="+q.Since, to)
		if err != nil {
			return "", "", fault.Usagef("--since %s: %v", q.Since, err)
		}
		from = strings.TrimSpace(string(out))
	}
	return from, to, nil
}

// Stats counts the lines a range inserted by who wrote them: each inserted
// line (a + line of git diff from..to) is blamed at `to` and looked up in
// the attribution of the commit blame names.
func Stats(ctx context.Context, repo *gitops.Repo, q StatsQuery) (*StatsResult, error) {
	from, to, err := resolveRange(ctx, repo, q)
	if err != nil {
		return nil, err
	}
	res := &StatsResult{Schema: "gloss-stats/v1", From: from, To: to, Agents: []AgentLines{}, Authors: []AuthorLines{}, Directories: []DirLines{}}
	base := from
	if base == "" {
		base = emptyTree
	}
	pathArgs := append([]string{"--"}, q.Paths...)
	numstat, err := repo.Git(ctx, append([]string{"diff", "--numstat", "-z", "--no-ext-diff", "--no-color", base, to}, pathArgs...)...)
	if err != nil {
		return nil, err
	}
	patch, err := repo.Diff(ctx, append([]string{base, to}, pathArgs...)...)
	if err != nil {
		return nil, err
	}
	added := map[string][]int{} // the new-side numbers of each file's + lines
	for _, f := range patch {
		if f.NewPath != "" {
			added[f.NewPath] = f.Added()
		}
	}
	dirs := map[string]*DirLines{}
	authors := map[string]*AuthorLines{}
	agents := map[[2]string]int{}
	for _, e := range parseNumstat(numstat) {
		if e.binary {
			continue
		}
		ins, del, file := e.ins, e.del, e.path
		res.Files++
		res.Insertions += ins
		res.Deletions += del
		dir := path.Dir(file)
		d := dirs[dir]
		if d == nil {
			d = &DirLines{Dir: dir}
			dirs[dir] = d
		}
		d.Insertions += ins
		d.Deletions += del
		lines := added[file]
		if ins == 0 {
			continue
		}
		cs, who, err := contributorsAt(ctx, repo, to, file, lines)
		if err != nil {
			return nil, err
		}
		for i := range lines {
			c := cs[i]
			res.Totals.add(c.Type, 1)
			d.add(c.Type, 1)
			a := authors[who[i]]
			if a == nil {
				a = &AuthorLines{Author: who[i]}
				authors[who[i]] = a
			}
			a.Lines++
			a.add(c.Type, 1)
			if (c.Type == AI || c.Type == Mixed) && c.Agent != "" {
				agents[[2]string{c.Agent, c.Model}]++
			}
		}
		// Lines the patch did not show (it never differs from numstat for
		// text; kept honest should it ever): unknown.
		if extra := ins - len(lines); extra > 0 {
			res.Totals.add(Unknown, extra)
			d.add(Unknown, extra)
		}
	}
	res.Agents = agentList(agents)
	if res.Agents == nil {
		res.Agents = []AgentLines{}
	}
	for _, k := range sortedKeys(dirs) {
		if d := dirs[k]; d.Insertions+d.Deletions > 0 {
			res.Directories = append(res.Directories, *d)
		}
	}
	for _, a := range authors {
		res.Authors = append(res.Authors, *a)
	}
	sort.Slice(res.Authors, func(i, j int) bool {
		if res.Authors[i].Lines != res.Authors[j].Lines {
			return res.Authors[i].Lines > res.Authors[j].Lines
		}
		return res.Authors[i].Author < res.Authors[j].Author
	})
	return res, nil
}

// contributorsAt returns the contributor and commit author of lines of
// file at rev.
func contributorsAt(ctx context.Context, repo *gitops.Repo, rev, file string, lines []int) ([]Contributor, []string, error) {
	b, err := repo.BlameCached(ctx, rev, file, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	la, err := OfBlame(repo, b)
	if err != nil {
		return nil, nil, err
	}
	commitOf := make(map[int]string, len(b.Lines))
	for _, l := range b.Lines {
		commitOf[l.Line] = l.Commit
	}
	cs := make([]Contributor, len(lines))
	who := make([]string, len(lines))
	for i, l := range lines {
		c, ok := la.byLine[l]
		if !ok {
			c = unknownLine
		}
		cs[i] = c
		who[i] = b.Commits[commitOf[l]].Author
	}
	return cs, who, nil
}

type numstatEntry struct {
	ins, del int
	binary   bool
	path     string // the new path of a rename
}

// parseNumstat reads git diff --numstat -z: "ins\tdel\tpath\0", or for a
// rename "ins\tdel\t\0old\0new\0".
func parseNumstat(out []byte) []numstatEntry {
	var es []numstatEntry
	parts := strings.Split(string(out), "\x00")
	for i := 0; i < len(parts); i++ {
		f := strings.SplitN(parts[i], "\t", 3)
		if len(f) != 3 {
			continue
		}
		e := numstatEntry{binary: f[0] == "-", path: f[2]}
		e.ins, _ = strconv.Atoi(f[0])
		e.del, _ = strconv.Atoi(f[1])
		if e.path == "" && i+2 < len(parts) {
			e.path = parts[i+2]
			i += 2
		}
		es = append(es, e)
	}
	return es
}
