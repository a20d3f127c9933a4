package tasks

import (
	"strings"
)

// Criteria are the acceptance-criteria checkboxes of a task. One parser
// serves everything that reads them (verify, finalize, lint, readiness):
// the boxes under the last "## Acceptance Criteria" heading outside code
// fences, up to the next "## " heading; "- [ ]" is open, "- [x]" and
// "- [X]" are checked ("*" and "+" bullets too).
type Criteria struct {
	Total     int      `json:"total"`
	Checked   int      `json:"checked"`
	Unchecked int      `json:"unchecked"`
	Open      []string `json:"-"` // the unchecked lines
	Start     int      `json:"-"` // line index of the heading, -1 if none
}

const criteriaHeading = "## acceptance criteria"

// criteriaOf parses a task body.
func criteriaOf(body []byte) Criteria {
	lines := strings.Split(string(body), "\n")
	c := Criteria{Start: -1}
	inFence := false
	for i, line := range lines {
		if isFence(line) {
			inFence = !inFence
			continue
		}
		if !inFence && strings.EqualFold(strings.TrimSpace(line), criteriaHeading) {
			c.Start = i
		}
	}
	if c.Start < 0 {
		return c
	}
	inFence = false
	for _, line := range lines[c.Start+1:] {
		if isFence(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if strings.HasPrefix(line, "## ") {
			break
		}
		switch box(line) {
		case "open":
			c.Total++
			c.Unchecked++
			c.Open = append(c.Open, strings.TrimSpace(line))
		case "checked":
			c.Total++
			c.Checked++
		}
	}
	return c
}

// box classifies a line as an open box, a checked box, or neither.
func box(line string) string {
	l := strings.TrimSpace(line)
	for _, bullet := range []string{"- ", "* ", "+ "} {
		if !strings.HasPrefix(l, bullet) {
			continue
		}
		rest := strings.TrimSpace(l[len(bullet):])
		switch {
		case strings.HasPrefix(rest, "[ ]"):
			return "open"
		case strings.HasPrefix(rest, "[x]"), strings.HasPrefix(rest, "[X]"):
			return "checked"
		}
	}
	return ""
}
