package noma

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/gloss-dev/gloss/fault"
)

// Template is a valid starting document: frontmatter with a title, and
// two sections whose headings give them ids (purpose, decisions), each
// holding a block with an id, so that the first edit a person or an agent
// makes through doc patch reaches it: the placeholder text is a directive
// (replace_body replaces it, delete_block removes it; a paragraph has no
// id and no op can address it), the decision has the status= the
// validator asks of every decision, and the text says what add_block
// takes (a directive, not a bare paragraph).
func Template(title string) []byte {
	return []byte(fmt.Sprintf(`---
title: %s
---

# %s

## Purpose

::summary{id="purpose-text"}
What this document is for, and who keeps it up to date.
::

## Decisions

::decision{id="first-decision" status="proposed"}
What was decided, and why. Replace this text, set its status to accepted,
and add each further decision as a decision block of its own.
::
`, title, title))
}

// titleFor turns a file name into a title: "release-plan.noma" is
// "Release plan".
func titleFor(file string) string {
	base := strings.TrimSuffix(path.Base(file), ".noma")
	words := strings.FieldsFunc(base, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	if len(words) == 0 {
		return "Untitled"
	}
	t := strings.Join(words, " ")
	r := []rune(t)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// Create writes Template as a new document at file (a .noma path,
// repository-relative) and returns its path. An existing file is never
// replaced.
func (s *Store) Create(file, title string) (string, error) {
	rel, err := s.Rel(file)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(rel, ".noma") {
		return "", fault.Usagef("%s: a Noma document's name ends in .noma", rel)
	}
	if title == "" {
		title = titleFor(file)
	}
	if strings.ContainsAny(title, "\n\r") {
		return "", fault.Usagef("a title is one line")
	}
	return s.tree.CreateFile(rel, Template(title), 0o644)
}
