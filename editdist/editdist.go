// Package editdist measures how far apart two words are, for the
// "did you mean" hints of validators (an unknown spec key, a reference to
// an unknown block id).
package editdist

// Bounded is the edit distance of a and b, in runes — Levenshtein's, with
// a swap of two adjacent runes counted as one edit (the commonest typo:
// "stauts" is one edit from "status") — when it is at most limit, and
// limit+1 otherwise. Only a band of width limit around the
// diagonal is computed, and it stops early, so a far-off pair costs little.
func Bounded(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	d := band(ra, rb, limit)
	if d > limit {
		return limit + 1
	}
	return d
}

func band(ra, rb []rune, limit int) int {
	inf := limit + 1
	prev2 := make([]int, len(rb)+1) // the row before prev, for swaps
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= len(ra); i++ {
		lo, hi := max(1, i-limit), min(len(rb), i+limit)
		cur[0] = min(i, inf)
		if lo > 1 {
			cur[lo-1] = inf
		}
		rowMin := cur[0]
		for j := lo; j <= hi; j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c, inf)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if hi < len(rb) {
			cur[hi+1] = inf
		}
		if rowMin >= inf {
			return inf
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Nearest returns the word of known closest to word when it is a likely
// typo (at most limit edits away), and "" otherwise. Of equally near words
// one of the typo's length wins (a swap or a wrong letter is likelier than
// a letter too many or too few), then the first, so callers list known
// words in the order they prefer.
func Nearest(word string, known []string, limit int) string {
	best, bestD := "", limit+1
	n := len([]rune(word))
	for _, k := range known {
		d := Bounded(word, k, bestD)
		if d < bestD || d == bestD && d <= limit && len([]rune(k)) == n && len([]rune(best)) != n {
			best, bestD = k, d
		}
	}
	return best
}
