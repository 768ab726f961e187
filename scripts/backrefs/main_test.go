package main

import (
	"slices"
	"testing"
)

// TestSift: sift moves files until no single move removes a
// back-reference, keeping a cycle's one unavoidable back-reference.
func TestSift(t *testing.T) {
	cases := []struct {
		name  string
		start []string
		refs  [][2]string
		want  int // back-references left
	}{
		{"chain given backwards", []string{"c", "b", "a"}, [][2]string{{"a", "b"}, {"b", "c"}}, 0},
		{"a cycle keeps one", []string{"a", "b", "c"}, [][2]string{{"a", "b"}, {"b", "c"}, {"c", "a"}}, 1},
		{"a shared file sinks below its users", []string{"types", "x", "y", "z"}, [][2]string{{"x", "types"}, {"y", "types"}, {"z", "types"}, {"x", "y"}}, 0},
		{"two files naming each other", []string{"a", "b"}, [][2]string{{"a", "b"}, {"b", "a"}}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref := func(from, to string) bool { return slices.Contains(c.refs, [2]string{from, to}) }
			got := sift(c.start, ref)
			back := 0
			for i, f := range got {
				for _, g := range got[:i] {
					if ref(f, g) {
						back++
					}
				}
			}
			if back != c.want {
				t.Errorf("sift(%v) = %v with %d back-references, want %d", c.start, got, back, c.want)
			}
			if len(got) != len(c.start) {
				t.Errorf("sift(%v) = %v: files lost or added", c.start, got)
			}
		})
	}
}
