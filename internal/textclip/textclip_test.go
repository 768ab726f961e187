package textclip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want int
	}{
		{"abc", 5, 3},
		{"abc", 3, 3},
		{"abc", 2, 2},
		{"abc", 0, 0},
		{"abc", -1, 0},
		{"aé", 2, 1},  // é is 2 bytes: index 2 is inside it
		{"a日本", 2, 1}, // 日 is 3 bytes
		{"a日本", 3, 1},
		{"a日本", 4, 4},
		{"😀x", 3, 0},                 // a 4-byte rune at the start
		{"a\x80\x80\x80\x80b", 5, 5}, // stray continuation bytes: cut at n
		{"a\x80b", 2, 2},
	}
	for _, tc := range tests {
		if got := Cut(tc.s, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
		if got := Cut([]byte(tc.s), tc.n); got != tc.want {
			t.Errorf("Cut([]byte(%q), %d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"abcd", 0, "…"},
		{"héllo", 2, "h…"}, // never half of é
		{"日本語", 4, "日…"},   // 3-byte runes
		{"日本語", 6, "日本…"},
		{"日本語", 9, "日本語"},
		{"😀😀", 7, "😀…"}, // 4-byte runes
	}
	for _, tc := range tests {
		got := Bytes(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if utf8.ValidString(tc.s) && !utf8.ValidString(got) {
			t.Errorf("Bytes(%q, %d) = %q splits a rune", tc.s, tc.n, got)
		}
		if len(got) > max(tc.n, 0)+len(Ellipsis) {
			t.Errorf("Bytes(%q, %d) = %q is over the bound", tc.s, tc.n, got)
		}
	}
}

func TestRunes(t *testing.T) {
	long := strings.Repeat("word ", 30) // 150 runes
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short", "short", 10, "short"},
		{"exactly n", "abcde", 5, "abcde"},
		{"no space: cut mid-word", "abcdefghij", 5, "abcd…"},
		{"multi-byte counted as runes", "日本語のテキスト", 4, "日本語…"},
		{"multi-byte fits", "日本語", 3, "日本語"},
		{"space in the last quarter", "aaaaaaaaaa bbbb", 13, "aaaaaaaaaa…"},
		{"space at the quarter mark: cut mid-word", "aaaaaaaaa bbbbbbbbbbb", 12, "aaaaaaaaa b…"},
		{"space too early: cut mid-word", "aa bbbbbbbbbbbbbbbbbbb", 12, "aa bbbbbbbb…"},
		{"punctuation before the cut dropped", "aaaaaaaaa, bbbb", 13, "aaaaaaaaa…"},
		{"multi-byte words", "éééééééééé éééé", 13, "éééééééééé…"},
		{"n of 1", "abc", 1, "…"},
		{"n below 1", "abc", 0, "…"},
		{"long prose", long, 20, "word word word word…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Runes(tc.s, tc.n)
			if got != tc.want {
				t.Errorf("Runes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
			}
			if c := utf8.RuneCountInString(got); c > max(tc.n, 1) {
				t.Errorf("Runes(%q, %d) = %q has %d runes", tc.s, tc.n, got, c)
			}
		})
	}
}

func FuzzClip(f *testing.F) {
	f.Add("héllo wörld, 日本語 text", 7)
	f.Add("a\x80\x80b", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 200
		b := Bytes(s, n)
		if len(s) > n && !strings.HasSuffix(b, Ellipsis) || len(b) > max(n, 0)+len(Ellipsis) && b != s {
			t.Fatalf("Bytes(%q, %d) = %q", s, n, b)
		}
		if utf8.ValidString(s) && !utf8.ValidString(b) {
			t.Fatalf("Bytes(%q, %d) = %q splits a rune", s, n, b)
		}
		r := Runes(s, n)
		if utf8.RuneCountInString(r) > max(n, 1) && r != s {
			t.Fatalf("Runes(%q, %d) = %q has too many runes", s, n, r)
		}
		if r != s && !strings.HasPrefix(s, strings.TrimSuffix(r, Ellipsis)) {
			t.Fatalf("Runes(%q, %d) = %q is not a prefix", s, n, r)
		}
	})
}
