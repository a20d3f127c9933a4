package notebook

import (
	"errors"
	"fmt"

	"github.com/gloss-dev/gloss/fault"
)

// Category is the kind of refusal, in the notebook kit's own words: each
// error message starts with it, so agents written for the kit understand
// gloss's answers.
type Category string

// The categories.
const (
	AccessDenied       Category = "Access denied"
	PathTraversal      Category = "Path traversal not allowed"
	NotFound           Category = "File not found"
	AlreadyExists      Category = "File already exists"
	InvalidFrontmatter Category = "Invalid frontmatter"
	DeletionCancelled  Category = "Deletion cancelled"
	InvalidArgument    Category = "Invalid argument"
	StringNotFound     Category = "String not found in note"
	MultipleMatches    Category = "Multiple matches"
)

// Error is a refusal with its category.
type Error struct {
	Category Category
	Detail   string
}

func (e *Error) Error() string {
	switch e.Category {
	case DeletionCancelled:
		return "Deletion cancelled: confirmation path does not match"
	case MultipleMatches:
		return e.Detail
	}
	return fmt.Sprintf("%s: %s", e.Category, e.Detail)
}

// Unwrap gives the error its exit code and MCP treatment.
func (e *Error) Unwrap() error {
	kind := fault.Usage
	switch e.Category {
	case NotFound, StringNotFound:
		kind = fault.NotFound
	case AlreadyExists, MultipleMatches:
		kind = fault.Conflict
	}
	return &fault.Error{Kind: kind, Err: errors.New(string(e.Category))}
}

func refuse(c Category, format string, args ...any) error {
	return &Error{Category: c, Detail: fmt.Sprintf(format, args...)}
}

// CategoryOf returns the category of a notebook error, "" for others.
func CategoryOf(err error) Category {
	var e *Error
	if errors.As(err, &e) {
		return e.Category
	}
	return ""
}
