package client

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
