// History is the annotated timeline of a file or an anchor, following
// renames.

package why

import (
	"context"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// HistoryQuery asks for the timeline of a file or anchor.
type HistoryQuery struct {
	Path   string `json:"path"`
	Anchor string `json:"anchor,omitempty"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most recent entries to return (default 10)"`
}

// Event is one annotated change in a timeline.
type Event struct {
	Commit string `json:"commit"`
	Time   string `json:"time"`
	Author string `json:"author" jsonschema:"the commit's author"`
	// By is who wrote the record: for an agent's record, the agent and
	// its model, which the commit's author (the person who committed the
	// agent's work) is not.
	By          *annotate.Author      `json:"by,omitempty" jsonschema:"who wrote the record: kind (human, agent, tool), name and model"`
	Subject     string                `json:"subject"`
	Anchor      *annotate.Anchor      `json:"anchor,omitempty"`
	Lines       annotate.Lines        `json:"lines"`
	Intent      string                `json:"intent"`
	Constraints []annotate.Constraint `json:"constraints,omitempty"`
	Source      string                `json:"source"`
}

// HistoryResult is the answer of history: gloss-history/v1, oldest first.
type HistoryResult struct {
	Schema string        `json:"$schema"`
	Query  HistoryQuery  `json:"query"`
	Events []Event       `json:"events"`
	Stats  HistoryCounts `json:"stats"`
	// Skipped counts the lines of the notes read, which are those of the
	// commits walked until Limit events were found.
	Skipped int `json:"skipped" jsonschema:"note lines skipped: not valid JSON, or not a known annotation record"`
}

// HistoryCounts says how much history was looked at.
type HistoryCounts struct {
	CommitsTouchingFile int `json:"commits_touching_file"`
	AnnotatedCommits    int `json:"annotated_commits"`
}

// historyScanLimit bounds the commits of the file that history walks.
const historyScanLimit = 2000

// History returns the annotated changes of a file (or of one anchor in it),
// the newest Limit of them, in chronological order.
func History(ctx context.Context, repo *gitops.Repo, q HistoryQuery) (*HistoryResult, error) {
	if err := checkAnchor(q.Anchor); err != nil {
		return nil, err
	}
	p, err := cleanRel(repo, q.Path)
	if err != nil {
		return nil, err
	}
	q.Path = p
	if q.Limit < 0 {
		return nil, fault.Usagef("limit must not be negative")
	}
	if q.Limit == 0 {
		q.Limit = 10
	}
	res := &HistoryResult{Schema: "gloss-history/v1", Query: q, Events: []Event{}}
	head, err := repo.Head()
	if err != nil || head == "" {
		return res, err
	}
	if blob, _ := repo.BlobAt("HEAD", p); blob == "" {
		if files, err := repo.ListFiles("HEAD", p); err == nil && len(files) > 0 {
			return nil, fault.Usagef("%s is a directory: history follows one file or anchor (git gloss history %s); "+
				"git gloss summary %s shows the intent of every anchor under it", p, files[0].Path, p)
		}
		return nil, fault.NotFoundf("%s: no such file in HEAD", p)
	}
	ids, err := repo.LogFollow(ctx, "HEAD", p, historyScanLimit)
	if err != nil {
		return nil, err
	}
	renames, err := repo.Renames(ctx, "HEAD")
	if err != nil {
		return nil, err
	}
	var log []*gitops.Commit
	for _, id := range ids {
		c, err := repo.LookupCommit(id)
		if err != nil {
			return nil, err
		}
		log = append(log, c)
	}
	res.Stats.CommitsTouchingFile = len(log)
	store := notes.Open(repo, notes.Annotations)
	const batch = 200
	for start := 0; start < len(log) && len(res.Events) < q.Limit; start += batch {
		chunk := log[start:min(start+batch, len(log))]
		ids := make([]string, len(chunk))
		for i, c := range chunk {
			ids[i] = c.ID
		}
		recs, skipped, err := store.ReadCounted(ids)
		if err != nil {
			return nil, err
		}
		res.Skipped += skipped
		for _, c := range chunk { // newest first
			if len(recs[c.ID]) == 0 {
				continue
			}
			res.Stats.AnnotatedCommits++
			var block []Event // this commit's events, in record order
			decoded, unknown := decode(recs[c.ID])
			res.Skipped += unknown
			fillCommitIntent(decoded)
			for _, d := range decoded {
				r := d.Region
				if r == nil || gitops.FollowRename(renames, r.File) != p || (q.Anchor != "" && (r.Anchor == nil || !anchorIs(r.Anchor.Name, q.Anchor))) {
					continue
				}
				by := r.Author
				block = append(block, Event{Commit: c.ID, Time: c.AuthorTime.UTC().Format(time.RFC3339),
					Author: c.AuthorName, By: &by, Subject: c.Subject(), Anchor: r.Anchor, Lines: r.Lines,
					Intent: r.Intent, Constraints: r.Constraints, Source: r.Source})
			}
			// Blocks are collected newest first; events within a block keep
			// their order.
			res.Events = append(block, res.Events...)
			if res.Events == nil {
				res.Events = []Event{} // append(nil, empty...) is nil: keep the array
			}
		}
	}
	if len(res.Events) > q.Limit {
		res.Events = res.Events[len(res.Events)-q.Limit:]
	}
	return res, nil
}
