package attribution

import (
	"context"
	"time"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// FileClaim is another tool's word on one commit at file grain: it knows
// who wrote a file's lines in that commit, not which line is whose (Entire
// counts lines per checkpoint and lists the files its agent touched). The
// lines it names are exactly those the commit introduced, as blame gives
// them to the commit (changedLines), so the record answers blame the way
// the hook's own records do.
type FileClaim struct {
	Commit string
	// Key identifies what the claim was read from (the tool and its record
	// id): the record's id derives from it, so importing twice is
	// importing once.
	Key string
	// Decide gets the number of lines the commit introduced per file and
	// returns the contributor of every line of the files it names; files it
	// leaves out stay unattributed (unknown).
	Decide func(introduced map[string]int) map[string]Contributor
}

// ImportFileClaims writes one import record per claim, through the same
// admission as the other imports (present, outranked and written counted
// in res), and returns the lines the written records name, by contributor
// type. With dryRun it counts and writes nothing. progress, when not
// nil, hears of each claim before it is read (a claim blames the commit's
// changed files: seconds on a cold blame cache).
func ImportFileClaims(ctx context.Context, repo *gitops.Repo, claims []FileClaim, dryRun bool, res *notes.ImportResult, progress func(done, total int)) (map[string]int, error) {
	adm, err := newAdmitter(repo, res)
	if err != nil {
		return nil, err
	}
	lines := map[string]int{}
	for i, cl := range claims {
		if progress != nil {
			progress(i, len(claims))
		}
		c, files, err := changedLines(ctx, repo, cl.Commit)
		if c == nil {
			res.Read++
			res.Missing++
			continue
		}
		if err != nil {
			return nil, err
		}
		introduced := make(map[string]int, len(files))
		for _, f := range files {
			introduced[f.path] = len(f.lines)
		}
		who := cl.Decide(introduced)
		b := newBuilder(c.ID, SourceImport)
		b.rec.ID = notes.DerivedID(c.CommitTime, cl.Key+"\x00"+c.ID)
		b.rec.Time = c.CommitTime.UTC().Format(time.RFC3339)
		for _, f := range files {
			ct, ok := who[f.path]
			if !ok {
				continue
			}
			cs := make([]Contributor, len(f.lines))
			for i := range cs {
				cs[i] = ct
			}
			b.add(f.path, f.lines, cs)
		}
		if len(b.rec.Files) == 0 {
			continue // nothing to say about this commit's lines: no record
		}
		res.Read++
		written := res.Written
		if err := adm.add(c.ID, b.record()); err != nil {
			return nil, err
		}
		if res.Written > written {
			for _, f := range b.rec.Files {
				for _, r := range f.Ranges {
					lines[b.rec.Contributors[r.C].Type] += r.End - r.Start + 1
				}
			}
		}
	}
	if dryRun {
		return lines, nil
	}
	return lines, adm.write(ctx)
}
