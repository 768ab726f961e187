package wordlist

import (
	"bytes"
	"sort"
	"testing"
)

func TestKnown(t *testing.T) {
	for _, c := range []struct {
		w    string
		want bool
	}{
		{"plants", true}, {"attest", true}, {"deployment", true}, {"water", true},
		{"atest", false}, {"isue", false}, {"bulid", false}, {"depolyment", false},
		{"kubectl", false}, {"", false}, {"the", false}, // under MinLen
		{"Plants", false}, // lower case only
		{"zzzzzz", false}, {"aaaa", false},
	} {
		if got := Known(c.w); got != c.want {
			t.Errorf("Known(%q) = %v, want %v", c.w, got, c.want)
		}
	}
}

// TestListShape checks the embedded list is what Known's binary search
// needs: sorted, distinct, lowercase a-z words of MinLen or more letters.
func TestListShape(t *testing.T) {
	if n := Len(); n < 50000 {
		t.Fatalf("the list holds %d words; expected about 72,000", n)
	}
	words := bytes.Split(bytes.TrimSuffix(blob, []byte{'\n'}), []byte{'\n'})
	if len(words) != Len() {
		t.Fatalf("%d lines, %d words indexed", len(words), Len())
	}
	if !sort.SliceIsSorted(words, func(i, j int) bool { return bytes.Compare(words[i], words[j]) < 0 }) {
		t.Fatal("the list is not sorted")
	}
	for i, w := range words {
		if len(w) < MinLen {
			t.Fatalf("word %d %q is shorter than %d letters", i, w, MinLen)
		}
		for _, c := range w {
			if c < 'a' || c > 'z' {
				t.Fatalf("word %d %q has a byte outside a-z", i, w)
			}
		}
		if i > 0 && bytes.Equal(words[i-1], w) {
			t.Fatalf("word %q repeats", w)
		}
	}
}

func BenchmarkKnown(b *testing.B) {
	Known("warm")
	for i := 0; i < b.N; i++ {
		Known("deployment")
	}
}
