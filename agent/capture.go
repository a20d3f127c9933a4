package agent

import (
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
)

// LineRange is an inclusive, 1-based range of lines (capture's).
type LineRange = capture.LineRange

func splitLines(s string) []string { return capture.SplitLines(s) }

// captureEdits records which lines an edit wrote, in the capture store:
// for each file, the ranges in the file as the edit left it and the hash
// of each line.
func captureEdits(repo *gitops.Repo, p *Payload, model string) error {
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return err
	}
	defer tree.Close()
	var edits []capture.Edit
	for _, op := range p.Files {
		rel, ok := RelPath(repo.Root(), p.Cwd, op.Path)
		if !ok {
			continue
		}
		data, err := tree.ReadFile(rel, maxFileBytes)
		if err != nil {
			continue // deleted since, or refused: nothing to attribute
		}
		content := string(data)
		ranges := afterRanges(content, op)
		if len(ranges) == 0 {
			continue
		}
		lines := splitLines(content)
		e := capture.Edit{Session: p.Session, Agent: p.Agent, Model: model, Tool: p.Tool, File: rel, Lines: ranges}
		for _, r := range ranges {
			for l := r.Start; l <= r.End && l <= len(lines); l++ {
				e.Hashes = append(e.Hashes, capture.HashLine(lines[l-1]))
			}
		}
		edits = append(edits, e)
	}
	if len(edits) == 0 {
		return nil
	}
	return capture.AppendEdits(repo, edits...)
}
