package editdist

import "testing"

func TestBounded(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"behaviors", "behaviours", 2, 1},
		{"intent", "intent", 2, 0},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3}, // over the limit: limit+1
		{"a", "abcdef", 2, 3},
		{"", "ab", 2, 2},
		{"naïve", "naive", 1, 1},   // runes, not bytes
		{"stauts", "status", 2, 1}, // a swap is one edit
		{"stauts", "stats", 2, 1},
		{"ab", "ba", 1, 1},
		{"abcdef", "badcfe", 3, 3},
	} {
		if got := Bounded(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("Bounded(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}

func TestNearestPrefersATypoOfTheSameLength(t *testing.T) {
	if got := Nearest("stauts", []string{"stats", "status"}, 2); got != "status" {
		t.Errorf("Nearest(stauts) = %q, want status", got)
	}
	if got := Nearest("stat", []string{"stats", "status"}, 2); got != "stats" {
		t.Errorf("Nearest(stat) = %q, want stats", got)
	}
	if got := Nearest("zzzzzz", []string{"stats", "status"}, 2); got != "" {
		t.Errorf("Nearest(zzzzzz) = %q, want none", got)
	}
}
