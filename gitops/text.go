package gitops

import "bytes"

// CountLines counts lines the way git and blame do: a last line without a
// newline still counts.
func CountLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// ShortID abbreviates an object id (or any hex digest) for people: the
// first 12 digits, as every message and listing of gloss prints them.
func ShortID(id string) string { return id[:min(12, len(id))] }
