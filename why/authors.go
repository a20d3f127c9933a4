package why

import (
	"sort"

	"github.com/gloss-dev/gloss/gitops"
)

// AuthorShare is how much of the annotated code one kind of author (and
// model) wrote, by the annotations' own account.
type AuthorShare struct {
	Kind    string `json:"kind" jsonschema:"human, agent or tool"`
	Model   string `json:"model,omitempty"`
	Regions int    `json:"regions"`
	Lines   int    `json:"lines" jsonschema:"lines of the regions, at their commits"`
}

// AuthorsResult is the share of annotated regions per author kind and
// model, largest first.
type AuthorsResult struct {
	Shares           []AuthorShare `json:"shares"`
	Regions          int           `json:"regions"`
	TotalLines       int           `json:"total_lines"`
	AnnotatedCommits int           `json:"annotated_commits"`
	Skipped          int           `json:"skipped"`
}

// Authors counts the live annotated regions by who their annotations say
// wrote them. It is the attribution share an overview can show before
// line attribution (its own records, planned) exists; that, when present,
// is the better source.
func Authors(repo *gitops.Repo) (*AuthorsResult, error) {
	regions, st, skipped, err := liveRegions(repo)
	if err != nil {
		return nil, err
	}
	res := &AuthorsResult{Shares: []AuthorShare{}, Regions: len(regions), AnnotatedCommits: st.AnnotatedCommits, Skipped: skipped}
	idx := map[[2]string]int{}
	for _, r := range regions {
		key := [2]string{r.Author.Kind, r.Author.Model}
		if key[0] == "" {
			key[0] = "unknown"
		}
		i, ok := idx[key]
		if !ok {
			i = len(res.Shares)
			idx[key] = i
			res.Shares = append(res.Shares, AuthorShare{Kind: key[0], Model: key[1]})
		}
		res.Shares[i].Regions++
		n := max(r.Lines.End-r.Lines.Start+1, 0)
		res.Shares[i].Lines += n
		res.TotalLines += n
	}
	sort.Slice(res.Shares, func(i, j int) bool {
		a, b := res.Shares[i], res.Shares[j]
		if a.Lines != b.Lines {
			return a.Lines > b.Lines
		}
		return a.Kind+a.Model < b.Kind+b.Model
	})
	return res, nil
}
