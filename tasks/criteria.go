package tasks

import (
	"strings"
	"unicode"
)

// Criteria are the acceptance-criteria checkboxes of a task. One parser
// serves everything that reads them (verify, finalize, lint, readiness),
// and it counts exactly as Chant does, so a task moved over from Chant
// keeps its verdict:
//
//   - the section is the last line that starts (after indentation) with
//     "## Acceptance Criteria" outside ``` code fences — case-sensitive,
//     and the heading may go on ("## Acceptance Criteria (phase 2)");
//   - it ends at the next line that starts with "## " ("### " subheadings
//     stay inside it);
//   - lines inside ``` fences are skipped (a "~~~" fence is not one);
//   - every "- [ ]" on a line is an open box, every "- [x]" or "- [X]" a
//     checked one, at any indentation (nested lists count) and anywhere in
//     the line; "* [ ]" and "+ [ ]" are not boxes.
type Criteria struct {
	Total     int      `json:"total"`
	Checked   int      `json:"checked"`
	Unchecked int      `json:"unchecked"`
	Open      []string `json:"-"` // the lines with an open box
	Start     int      `json:"-"` // line index of the heading, -1 if none
}

const criteriaHeading = "## Acceptance Criteria"

// criteriaOf parses a task body.
func criteriaOf(body []byte) Criteria {
	lines := bodyLines(body)
	c := Criteria{Start: -1}
	inFence := false
	for i, line := range lines {
		t := strings.TrimLeftFunc(line, unicode.IsSpace)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(t, criteriaHeading) {
			c.Start = i
		}
	}
	if c.Start < 0 {
		return c
	}
	inFence = false // the heading itself is outside any fence
	for _, line := range lines[c.Start+1:] {
		t := strings.TrimLeftFunc(line, unicode.IsSpace)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if strings.HasPrefix(t, "## ") {
			break
		}
		open := strings.Count(line, "- [ ]")
		done := strings.Count(line, "- [x]") + strings.Count(line, "- [X]")
		c.Unchecked += open
		c.Checked += done
		c.Total += open + done
		if open > 0 {
			c.Open = append(c.Open, strings.TrimSpace(line))
		}
	}
	return c
}

// bodyLines splits a body as Rust's str::lines does: on "\n", dropping one
// "\r" before it.
func bodyLines(body []byte) []string {
	lines := strings.Split(string(body), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
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
