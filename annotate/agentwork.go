package annotate

import (
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/capture"
)

// AgentLine is what the capture of an agent's edits says about one line
// it wrote: who wrote it, and the intent of the session (its redacted
// prompt summary) when there is one.
type AgentLine struct {
	Author  Author // kind agent, the agent's name and model
	Session string
	Intent  string
}

// AgentWork is the agent-written lines of one file, by content hash
// (capture.HashLine): a committed line whose hash is here is the agent's; any other
// changed line was written, or rewritten, by a person.
type AgentWork struct {
	File  string
	Lines map[string]AgentLine
}

// owner of one changed line: "" for the committer, else an agent key.
type lineOwner struct {
	key  string
	line AgentLine
}

// attributeAgentWork gives the regions of f whose changed lines an agent
// wrote to that agent and model. A region whose changed lines are partly
// the agent's and partly a person's is split into runs of one owner each,
// so that a line a person rewrote is never credited to the agent. Blank
// lines belong to no one and never split a run. Agent regions without an
// intent of their own take the session's.
func attributeAgentWork(f *changedFile, work *AgentWork) {
	if work == nil || len(work.Lines) == 0 {
		return
	}
	text := strings.Split(string(f.content), "\n")
	changed := map[int]bool{}
	for _, c := range f.changed {
		for l := c.Start; l <= c.End; l++ {
			changed[l] = true
		}
	}
	var out []Region
	for _, r := range f.regions {
		type run struct {
			owner      lineOwner
			start, end int
		}
		var runs []run
		agentLines := 0
		for l := r.Lines.Start; l <= r.Lines.End && l <= len(text); l++ {
			if !changed[l] || strings.TrimSpace(text[l-1]) == "" {
				continue
			}
			var o lineOwner
			if al, ok := work.Lines[capture.HashLine(text[l-1])]; ok {
				o = lineOwner{key: al.Author.Name + "\x00" + al.Author.Model + "\x00" + al.Session, line: al}
				agentLines++
			}
			if n := len(runs); n > 0 && runs[n-1].owner.key == o.key {
				runs[n-1].end = l
				continue
			}
			runs = append(runs, run{owner: o, start: l, end: l})
		}
		if agentLines == 0 {
			out = append(out, r)
			continue
		}
		claim := func(x *Region, al AgentLine) {
			x.Author, x.Source = al.Author, SourceAgent
			if x.Intent == "" {
				x.Intent = al.Intent
			}
		}
		if len(runs) == 1 {
			claim(&r, runs[0].owner.line)
			out = append(out, r)
			continue
		}
		for i, rn := range runs {
			x := r
			if i > 0 {
				x.Header = newRegion(r.Commit, r.File).Header
				// Later merges append to these: each copy gets its own.
				x.Constraints = slices.Clone(r.Constraints)
				x.RejectedAlternatives = slices.Clone(r.RejectedAlternatives)
				x.Deps = slices.Clone(r.Deps)
				x.Risks = slices.Clone(r.Risks)
				x.Tags = slices.Clone(r.Tags)
			}
			x.Lines = Lines{Start: rn.start, End: rn.end}
			if rn.owner.key != "" {
				claim(&x, rn.owner.line)
			}
			out = append(out, x)
		}
	}
	f.regions = out
}
