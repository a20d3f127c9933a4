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
		{"naïve", "naive", 1, 1}, // runes, not bytes
	} {
		if got := Bounded(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("Bounded(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}
