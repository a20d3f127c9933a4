package why

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// logRefs are the notes refs whose records git gloss log shows under
// each commit.
var logRefs = []string{notes.Annotations, notes.Reconcile}

// LogLines returns, for each of commits that has gloss records, one
// readable line per record: what git log would show if notes.displayRef
// pointed at gloss's refs, without the raw JSON.
func LogLines(repo *gitops.Repo, commits []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, ref := range logRefs {
		recs, err := notes.Open(repo, ref).Read(commits)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", ref, err)
		}
		for c, rs := range recs {
			for _, r := range rs {
				out[c] = append(out[c], RecordLine(r))
			}
		}
	}
	return out, nil
}

// RecordLine is one line that says what a record is.
func RecordLine(r notes.Record) string {
	if r.Schema == annotate.Schema {
		for _, d := range annotate.Decode([]notes.Record{r}) {
			switch {
			case d.Region != nil:
				g := d.Region
				where := g.File
				if g.Anchor != nil {
					where += " " + g.Anchor.Name
				}
				return fmt.Sprintf("gloss: %s (lines %d-%d): %s%s", where, g.Lines.Start, g.Lines.End, oneLine(g.Intent), who(g.Author, len(g.Constraints)))
			case d.Summary != nil:
				return fmt.Sprintf("gloss: commit: %s%s", oneLine(d.Summary.Intent), who(d.Summary.Author, len(d.Summary.Constraints)))
			}
		}
	}
	var probe struct {
		Kind     string `json:"kind"`
		SpecPath string `json:"spec_path"`
		Actor    string `json:"actor"`
		Files    map[string]string
	}
	_ = json.Unmarshal(r.Raw, &probe)
	name := strings.TrimPrefix(strings.TrimPrefix(r.Schema, "gloss/"), "gloss-")
	if i := strings.IndexByte(name, '/'); i > 0 {
		name = name[:i]
	}
	line := "gloss " + name + ":"
	if probe.Kind != "" {
		line += " " + probe.Kind
	}
	if probe.SpecPath != "" {
		line += " " + probe.SpecPath
	}
	if len(probe.Files) > 0 {
		line += fmt.Sprintf(" (%d file(s))", len(probe.Files))
	}
	if probe.Actor != "" {
		line += " by " + probe.Actor
	}
	return line
}

func who(a annotate.Author, constraints int) string {
	var parts []string
	if a.Kind != "" && a.Kind != "human" {
		k := a.Kind
		if a.Model != "" {
			k += " " + a.Model
		}
		parts = append(parts, k)
	}
	if constraints > 0 {
		parts = append(parts, fmt.Sprintf("%d constraint(s)", constraints))
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

// oneLine keeps the first line of s, shortened to fit a log.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}
