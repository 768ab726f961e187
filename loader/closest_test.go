package loader

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	names := []string{"search-code", "search-web", "deploy-app", "deploy", "run-tests", "Review-PR", "x"}
	tests := []struct {
		query string
		n     int
		want  []string
	}{
		{"deploy", 3, []string{"deploy", "deploy-app"}},
		{"deplyo", 3, []string{"deploy", "deploy-app"}},
		{"search", 3, []string{"search-web", "search-code"}},
		{"SEARCH-COD", 1, []string{"search-code"}},
		{"review", 3, []string{"Review-PR"}},
		{"tests", 3, []string{"run-tests"}},
		{"quantum-physics", 3, []string{}},
		{"deploy", 0, nil},
		{"", 3, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := closest(names, tt.query, tt.n)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("closest(%q, %d) = %q, want %q", tt.query, tt.n, got, tt.want)
			}
		})
	}
}

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2},
		{"日本語", "日本", 1}, {"abc", "abc", 0},
	}
	for _, tt := range tests {
		got, _ := levenshtein([]rune(tt.a), []rune(tt.b), 100, nil)
		if got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got, _ := levenshtein([]rune(tt.a), []rune(tt.b), tt.want-1, nil); tt.want > 0 && got <= tt.want-1 {
			t.Errorf("bounded levenshtein(%q, %q) = %d, want above %d", tt.a, tt.b, got, tt.want-1)
		}
	}
}

// TestLevenshteinBand compares the banded, bounded distance with a plain
// full-matrix one on random strings and bounds.
func TestLevenshteinBand(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	word := func() []rune {
		r := make([]rune, rng.Intn(12))
		for i := range r {
			r[i] = []rune("abcé")[rng.Intn(4)]
		}
		return r
	}
	var buf []int
	for range 20000 {
		a, b, bound := word(), word(), rng.Intn(8)
		want := plainLevenshtein(a, b)
		var got int
		got, buf = levenshtein(a, b, bound, buf)
		if (want <= bound && got != want) || (want > bound && got != bound+1) {
			t.Fatalf("levenshtein(%q, %q, %d) = %d, exact distance %d", string(a), string(b), bound, got, want)
		}
	}
}

func plainLevenshtein(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
		}
	}
	return d[len(a)][len(b)]
}

// TestClosestLongQuery: a query past maxClosestQuery gets no suggestions
// at once, however many names there are; one at the bound is compared.
func TestClosestLongQuery(t *testing.T) {
	names := []string{strings.Repeat("a", maxClosestQuery)}
	if got := closest(names, strings.Repeat("a", maxClosestQuery), 3); len(got) != 1 {
		t.Errorf("query at the bound: %v, want the equal name", got)
	}
	if got := closest(names, strings.Repeat("a", maxClosestQuery+1), 3); got != nil {
		t.Errorf("query past the bound: %v, want nil", got)
	}
}
