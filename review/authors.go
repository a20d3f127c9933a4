package review

import (
	"context"
	"fmt"
	"sort"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/gitops"
)

// attribute counts who wrote the lines the range adds to one file: they
// are blamed at head and looked up in line attribution (gitops' cached
// blame and attribution.OfBlame, what git gloss blame --rev HEAD shows
// for those lines), hunk by hunk.
func attribute(ctx context.Context, repo *gitops.Repo, f *fileWork, head string) error {
	if f.change.Status == gitops.Deleted || f.change.Binary {
		return nil
	}
	lo, hi := 0, 0
	for _, h := range f.change.Hunks {
		if h.NewLines > 0 {
			if lo == 0 {
				lo = h.NewStart
			}
			hi = h.NewStart + h.NewLines - 1
		}
	}
	if lo == 0 {
		return nil
	}
	b, err := repo.BlameCached(ctx, head, f.change.Path, lo, hi)
	if err != nil {
		return fmt.Errorf("blame %s at %s: %w", f.change.Path, gitops.ShortID(head), err)
	}
	la, err := attribution.OfBlame(repo, b)
	if err != nil {
		return err
	}
	agents := map[[2]string]int{}
	t := &f.auth.Totals
	for _, h := range f.change.Hunks {
		if h.NewLines == 0 {
			continue
		}
		s := la.Summarize(h.NewStart, h.NewStart+h.NewLines-1)
		t.Human, t.AI, t.Mixed, t.Unknown = t.Human+s.Human, t.AI+s.AI, t.Mixed+s.Mixed, t.Unknown+s.Unknown
		for _, a := range s.Agents {
			agents[[2]string{a.Agent, a.Model}] += a.Lines
		}
	}
	if list := agentList(agents); len(list) > 0 {
		f.auth.Agents = list
	}
	return nil
}

// sessionsOf lists the agent sessions of the range's commits with their
// redacted prompt summaries, when the team shares sessions ([sync]
// sessions = true in .gloss/config.toml). Otherwise sessions stay private
// to the machine that recorded them and the report shows none.
func sessionsOf(repo *gitops.Repo, commits []string) (Sessions, error) {
	out := Sessions{Shared: agent.SyncSessions(repo), List: []Session{}}
	if !out.Shared || len(commits) == 0 {
		return out, nil
	}
	recs, err := agent.ReadSessions(repo, commits)
	if err != nil {
		return out, err
	}
	byID := map[string]*Session{}
	// commits are newest first; the newest prompt of a session is kept.
	for _, c := range commits {
		for _, r := range recs[c] {
			s := byID[r.Session]
			if s == nil {
				summary := ""
				if r.Summary != "" {
					// Redacted when stored; again, in case the rules
					// learned something since.
					if summary, err = agent.Summarize(r.Summary); err != nil {
						summary = ""
					}
				}
				s = &Session{ID: r.Session, Agent: r.Agent, Model: r.Model, Summary: summary, Commits: []string{}, Files: []string{}}
				byID[r.Session] = s
			}
			s.Commits = append(s.Commits, c)
			s.Files = appendNew(s.Files, r.Files...)
		}
	}
	for _, s := range byID {
		sort.Strings(s.Files)
		out.List = append(out.List, *s)
	}
	sort.Slice(out.List, func(i, j int) bool {
		a, b := out.List[i], out.List[j]
		if len(a.Commits) != len(b.Commits) {
			return len(a.Commits) > len(b.Commits)
		}
		return a.ID < b.ID
	})
	return out, nil
}

func appendNew(list []string, more ...string) []string {
	for _, m := range more {
		found := false
		for _, l := range list {
			if l == m {
				found = true
				break
			}
		}
		if !found {
			list = append(list, m)
		}
	}
	return list
}
