package agent

import (
	"slices"
	"testing"
)

func TestStopWordsAreSorted(t *testing.T) {
	if !slices.IsSorted(stopWords) || len(slices.Compact(slices.Clone(stopWords))) != len(stopWords) {
		t.Fatal("stopWords must be sorted and without repeats: contentWords searches them")
	}
}

func TestContentWords(t *testing.T) {
	for in, want := range map[string]string{
		"How do I deploy this?":                     "deploy",
		"what time is it in Lisbon":                 "time lisbon",
		"Make Parse handle blank input":             "parse handle blank input",
		"the a an of to":                            "",
		"Fix the TLS handshake in net/http, please": "fix tls handshake net http",
		"Ändere die Übersetzung":                    "ändere die übersetzung",
	} {
		if got := contentWords(in); got != want {
			t.Errorf("contentWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// A word found in one note of a small notebook reaches the threshold; from
// ten notes on the configured threshold holds.
func TestPromptThresholdFollowsTheNotebook(t *testing.T) {
	for _, c := range []struct {
		notes int
		want  float64
	}{{1, 0.216}, {3, 0.735}, {6, 1.155}, {10, 1.494}, {11, 1.5}, {100, 1.5}} {
		if got := promptThreshold(1.5, c.notes); got < c.want-0.001 || got > c.want+0.001 {
			t.Errorf("promptThreshold(1.5, %d) = %.3f, want %.3f", c.notes, got, c.want)
		}
	}
}
