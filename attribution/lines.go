package attribution

import (
	"sort"

	"github.com/gloss-dev/gloss/gitops"
)

// Summary is who wrote a set of lines, in counts.
type Summary struct {
	Totals
	Agents []AgentLines `json:"agents,omitempty" jsonschema:"lines written by (or with) each agent and model"`
}

// AgentLines counts the ai and mixed lines of one agent and model.
type AgentLines struct {
	Agent string `json:"agent"`
	Model string `json:"model,omitempty"`
	Lines int    `json:"lines"`
}

// LineAttribution is the contributor of each line of a blamed version of
// a file.
type LineAttribution struct {
	byLine map[int]Contributor
}

// OfBlame looks up the contributor of every blamed line in the attribution
// of the commit blame names (one read of the notes ref).
func OfBlame(repo *gitops.Repo, b *gitops.Blame) (*LineAttribution, error) {
	v := cachedView(repo, b)
	la := &LineAttribution{byLine: make(map[int]Contributor, len(b.Lines))}
	for i, l := range b.Lines {
		la.byLine[l.Line] = v.Contributors[v.Line[i]]
	}
	return la, nil
}

// Summarize counts the contributors of lines start..end.
func (la *LineAttribution) Summarize(start, end int) *Summary {
	s := &Summary{}
	agents := map[[2]string]int{}
	for l := start; l <= end; l++ {
		c, ok := la.byLine[l]
		if !ok {
			continue
		}
		s.add(c.Type, 1)
		if (c.Type == AI || c.Type == Mixed) && c.Agent != "" {
			agents[[2]string{c.Agent, c.Model}]++
		}
	}
	s.Agents = agentList(agents)
	return s
}

func agentList(m map[[2]string]int) []AgentLines {
	var out []AgentLines
	for k, n := range m {
		out = append(out, AgentLines{Agent: k[0], Model: k[1], Lines: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Lines != out[j].Lines {
			return out[i].Lines > out[j].Lines
		}
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		return out[i].Model < out[j].Model
	})
	return out
}
