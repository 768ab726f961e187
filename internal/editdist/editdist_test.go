package editdist

import "testing"

func TestSlips(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"ab", "ba", 1}, {"modle", "model", 1}, {"site", "title", 2},
		{"kitten", "sitting", 3}, {"", "abc", 3}, {"abc", "", 3}, {"skil", "skill", 1}, {"@plnae", "@plane", 1},
		{"ca", "abc", 3}, // OSA, not full Damerau: a swapped pair is not edited again
	} {
		if got := Slips(tt.a, tt.b); got != tt.want {
			t.Errorf("Slips(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
