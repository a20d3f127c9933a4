package annotate

import (
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/fault"
)

// ParseLines reads a line range written "A:B", "A-B" or "A" (1-based,
// inclusive), as the CLI's --lines and the seed's gloss_read take it.
func ParseLines(v string) (Lines, error) {
	a, b, found := strings.Cut(strings.ReplaceAll(v, "-", ":"), ":")
	start, err1 := strconv.Atoi(strings.TrimSpace(a))
	end := start
	var err2 error
	if found {
		end, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	if err1 != nil || err2 != nil || start < 1 || end < start {
		return Lines{}, fault.Usagef("invalid line range %q (want A:B, 1-based)", v)
	}
	return Lines{Start: start, End: end}, nil
}
