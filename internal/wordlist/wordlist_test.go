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

// TestListShape checks the embedded lists are what the binary search
// needs: sorted, distinct, lowercase a-z words (of MinLen or more letters
// for Known's list).
func TestListShape(t *testing.T) {
	if n := Len(); n < 50000 {
		t.Fatalf("the list holds %d words; expected about 72,000", n)
	}
	checkShape(t, "words", words, MinLen)
	Common("warm")
	if n := len(common.ends); n < 3000 || n > 5000 {
		t.Fatalf("the common list holds %d words; expected about 3,900", n)
	}
	checkShape(t, "common", common, 1)
}

func checkShape(t *testing.T, name string, l *list, minLen int) {
	t.Helper()
	ws := bytes.Split(bytes.TrimSuffix(l.blob, []byte{'\n'}), []byte{'\n'})
	if len(ws) != len(l.ends) {
		t.Fatalf("%s: %d lines, %d words indexed", name, len(ws), len(l.ends))
	}
	if !sort.SliceIsSorted(ws, func(i, j int) bool { return bytes.Compare(ws[i], ws[j]) < 0 }) {
		t.Fatalf("%s: the list is not sorted", name)
	}
	for i, w := range ws {
		if len(w) < minLen {
			t.Fatalf("%s: word %d %q is shorter than %d letters", name, i, w, minLen)
		}
		for _, c := range w {
			if c < 'a' || c > 'z' {
				t.Fatalf("%s: word %d %q has a byte outside a-z", name, i, w)
			}
		}
		if i > 0 && bytes.Equal(ws[i-1], w) {
			t.Fatalf("%s: word %q repeats", name, w)
		}
	}
}

func TestCommon(t *testing.T) {
	for _, c := range []struct {
		w    string
		want bool
	}{
		{"can", true}, {"look", true}, {"check", true}, {"the", true}, {"money", true},
		{"replicas", false}, {"png", false}, {"deploy", false}, {"revenue", false}, {"kubectl", false},
		{"", false}, {"Look", false},
	} {
		if got := Common(c.w); got != c.want {
			t.Errorf("Common(%q) = %v, want %v", c.w, got, c.want)
		}
	}
}

func BenchmarkKnown(b *testing.B) {
	Known("warm")
	for i := 0; i < b.N; i++ {
		Known("deployment")
	}
}

func TestCommonHan(t *testing.T) {
	for _, r := range "的了么怎吗什是我" {
		if !CommonHan(r) {
			t.Errorf("CommonHan(%q) = false, want true", r)
		}
	}
	for _, r := range "退款货票址券诉递a" {
		if CommonHan(r) {
			t.Errorf("CommonHan(%q) = true, want false", r)
		}
	}
}

// TestCommonAreKnown: every common word of MinLen letters or more is a
// known one, so a caller may ask Common (a hash lookup) before Known.
func TestCommonAreKnown(t *testing.T) {
	common.once.Do(common.load)
	for i := range common.ends {
		if w := string(common.word(i)); len(w) >= MinLen && !Known(w) {
			t.Errorf("common word %q is not known", w)
		}
	}
}
