// Package fault classifies errors so that every front door answers the
// same way: the CLI turns a kind into an exit code, the MCP server into an
// isError result or a JSON-RPC error. Library code wraps with context as
// usual and marks the kind once, where it knows it.
package fault

import (
	"errors"
	"fmt"
)

// Kind is what went wrong, as far as a caller can act on it.
type Kind int

const (
	// Internal is anything unexpected: I/O, git failures, corrupt data.
	Internal Kind = iota
	// Usage is a bad argument, flag or input document.
	Usage
	// NotFound is a file, revision, id or anchor that does not exist.
	NotFound
	// Conflict is a concurrent change or an ambiguous name.
	Conflict
	// Check is a command that ran fine and reports a negative result:
	// validation failed, drift found, push blocked.
	Check
)

// Error is an error with a Kind.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// mark builds a marked error. The arguments are usually user input (a
// path, an id, a ref): strings longer than MaxQuote are cut to a prefix,
// so an error never echoes a 4 MiB argument whole.
func mark(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Err: fmt.Errorf(format, Bound(args...)...)}
}

// Usagef returns a Usage error.
func Usagef(format string, args ...any) error { return mark(Usage, format, args...) }

// NotFoundf returns a NotFound error.
func NotFoundf(format string, args ...any) error { return mark(NotFound, format, args...) }

// Conflictf returns a Conflict error.
func Conflictf(format string, args ...any) error { return mark(Conflict, format, args...) }

// Checkf returns a Check error.
func Checkf(format string, args ...any) error { return mark(Check, format, args...) }

// As marks an existing error with a kind, keeping it in the chain.
func As(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: k, Err: err}
}

// KindOf returns the kind of the outermost marked error in err's chain, or
// Internal when none is marked.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}
