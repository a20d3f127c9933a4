package cli

import (
	"testing"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// Package-level patterns compile on first use (lazyregexp), so a typo in
// one would wait for its first match to panic; the command line links
// every package that has them, and this compiles them all.
func TestEveryPatternCompiles(t *testing.T) {
	t.Parallel()
	if err := lazyregexp.Check(); err != nil {
		t.Fatal(err)
	}
}
