package agent

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/notebook"
)

// A prompt is a sentence, not a search query: most of its words ("how",
// "the", "this") say nothing about which note it needs. In a notebook of
// many notes BM25 gives such words little weight, as nearly every note
// has them; in a notebook of two or three it cannot tell them from any
// other word. So the prompt's notes are searched for its content words
// only, and in a small notebook one of them, found in one note, is enough.

// contentWords is the prompt's words without the English function words
// and words of fewer than three letters, in order, joined by spaces.
func contentWords(prompt string) string {
	var out []string
	for _, w := range notebook.Tokenize(prompt) {
		if utf8.RuneCountInString(w) < 3 {
			continue
		}
		if _, stop := slices.BinarySearch(stopWords, w); stop {
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// promptThreshold is the score a note needs on a prompt: the configured
// threshold, or, in a notebook too small for a word found in one note to
// reach it, three quarters of what such a word scores in a note of
// average length, so that it still counts in a note up to about 1.8 times
// that length. (BM25's idf of a word in one note of n is
// ln(1 + (n-0.5)/1.5): 0.29 in a notebook of one note, 1.99 in one of
// ten, from where the default 1.5 applies.)
func promptThreshold(configured float64, notes int) float64 {
	return min(configured, 0.75*notebook.IDF(float64(notes), 1))
}

// stopWords are English function words and the words prompts to coding
// agents are made of, sorted (a slice, not a map: nothing to build when
// the program starts).
var stopWords = []string{
	"about", "above", "after", "again", "against", "all", "also", "and", "any", "are", "because",
	"been", "before", "being", "below", "between", "both", "but", "can", "cannot", "could", "did",
	"does", "doing", "don", "down", "during", "each", "few", "for", "from", "further", "get",
	"had", "has", "have", "having", "her", "here", "hers", "herself", "him", "himself", "his",
	"how", "into", "its", "itself", "just", "let", "like", "make", "more", "most", "much", "must",
	"myself", "need", "nor", "not", "now", "off", "once", "only", "other", "our", "ours",
	"ourselves", "out", "over", "own", "please", "same", "she", "should", "some", "such", "than",
	"that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
	"thing", "things", "this", "those", "through", "too", "under", "until", "use", "using", "very",
	"want", "was", "way", "were", "what", "when", "where", "which", "while", "who", "whom", "why",
	"will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
}
