package noma

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/gloss-dev/gloss/fault"
)

// Template is a valid starting document: frontmatter with a title, and
// two sections whose headings give them ids (purpose, decisions), so an
// agent can patch blocks from the first commit on (git gloss doc patch,
// patch_block).
func Template(title string) []byte {
	return []byte(fmt.Sprintf(`---
title: %s
---

# %s

## Purpose

What this document is for, and who keeps it up to date.

## Decisions

Each decision in a paragraph of its own: what was decided, and why.
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
