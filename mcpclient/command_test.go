package mcpclient

import (
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"agent3md mcp x.3md", []string{"agent3md", "mcp", "x.3md"}, false},
		{`node 'my server.js' "a b" c\ d`, []string{"node", "my server.js", "a b", "c d"}, false},
		{`x '' y`, []string{"x", "", "y"}, false},
		{"a\tb\nc", []string{"a", "b", "c"}, false},
		{`'$HOME' "it's" a\'b`, []string{"$HOME", "it's", "a'b"}, false},
		{`café 'naïve x' \é`, []string{"café", "naïve x", "é"}, false},
		{"bad\xff 'name\xfe'", []string{"bad\xff", "name\xfe"}, false},
		{`x 'open`, nil, true},
		{`x "open`, nil, true},
		{"   ", nil, true},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("SplitCommand(%q) error = %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if !tt.err && strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("SplitCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzSplitCommand: any line splits or fails without panicking, and a
// line of plain words (no quotes, no backslash) splits as strings.Fields.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{"agent3md mcp x.3md", `node 'a b' "c d" e\ f`, `x 'open`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitCommand(s)
		if err == nil && len(words) == 0 {
			t.Fatalf("SplitCommand(%q) gave no word and no error", s)
		}
		if strings.ContainsAny(s, `'"\`) {
			return
		}
		fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
		if len(fields) == 0 {
			if err == nil {
				t.Fatalf("SplitCommand(%q) = %q, want an error", s, words)
			}
			return
		}
		if strings.Join(words, "\x00") != strings.Join(fields, "\x00") {
			t.Fatalf("SplitCommand(%q) = %q, want %q", s, words, fields)
		}
	})
}
