package treesitter

import (
	"strings"

	"github.com/gloss-dev/gloss/editdist"
)

// Find returns the anchors a name refers to, most precise match first:
// the exact qualified name; then anchors whose qualified name ends with the
// given (partly qualified) name, in any notation ("Handle" finds
// "Server.Handle", "Client::connect" finds "mqtt::Client::connect");
// finally a case-insensitive match of the short name.
func Find(anchors []Anchor, name string) []Anchor {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	var exact, suffix, loose []Anchor
	want := normalize(name)
	for _, a := range anchors {
		have := normalize(a.Name)
		switch {
		case a.Name == name || have == want:
			exact = append(exact, a)
		case strings.HasSuffix(have, "."+want):
			suffix = append(suffix, a)
		case strings.EqualFold(a.Short(), lastPart(want)) && !strings.Contains(want, "."):
			loose = append(loose, a)
		}
	}
	switch {
	case len(exact) > 0:
		return exact
	case len(suffix) > 0:
		return suffix
	}
	return loose
}

// normalize writes every qualifier separator as ".".
func normalize(name string) string { return strings.ReplaceAll(name, "::", ".") }

func lastPart(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// Covering returns, for the line range start..end, the innermost anchors
// that overlap it: an anchor is left out when an anchor nested inside it
// overlaps the range too. Outline order is kept.
func Covering(anchors []Anchor, start, end int) []Anchor {
	var hits []Anchor
	for _, a := range anchors {
		if a.Start <= end && start <= a.End {
			hits = append(hits, a)
		}
	}
	var out []Anchor
	for i, a := range hits {
		inner := false
		for j, b := range hits {
			if i != j && a.Start <= b.Start && b.End <= a.End && (a.Start != b.Start || a.End != b.End || j > i) {
				inner = true
				break
			}
		}
		if !inner {
			out = append(out, a)
		}
	}
	return out
}

// Suggest returns the anchor name closest to name when name looks like a
// typo of one of them, and "" otherwise: the "did you mean" of an unknown
// anchor.
func Suggest(anchors []Anchor, name string) string {
	names := make([]string, 0, 2*len(anchors))
	for _, a := range anchors {
		names = append(names, a.Name)
	}
	if near := editdist.Nearest(name, names, 2); near != "" {
		return near
	}
	// A short name may be a typo of a qualified one's last part.
	if len(name) < 4 {
		return ""
	}
	for _, a := range anchors {
		if editdist.Bounded(lastPart(normalize(name)), a.Short(), 2) <= 2 {
			return a.Name
		}
	}
	return ""
}
