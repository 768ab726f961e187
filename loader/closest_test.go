package loader

import (
	"reflect"
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
