package termsafe

import (
	"bytes"
	"testing"
)

func TestWriter(t *testing.T) {
	for _, tt := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"plain text and its whitespace", []string{"run-tests\tgo test\n"}, "run-tests\tgo test\n"},
		{"an escape sequence", []string{"title \x1b]0;pwned\x07 here"}, `title \x1b]0;pwned\x07 here`},
		{"carriage return and backspace", []string{"ok\r\bfake"}, `ok\x0d\x08fake`},
		{"DEL", []string{"a\x7fb"}, `a\x7fb`},
		{"C1 CSI as UTF-8", []string{"a\u009b31mb"}, `a\u009b31mb`},
		{"a byte that is not UTF-8", []string{"a\x9bb"}, `a\x9bb`},
		{"UTF-8 kept", []string{"café → ✓ 日本"}, "café → ✓ 日本"},
		{"a rune split across writes", []string{"caf\xc3", "\xa9!"}, "café!"},
		{"C1 split across writes", []string{"x\xc2", "\x9by"}, `x\u009by`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			w := &writer{w: &b}
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
				}
			}
			if b.String() != tt.want {
				t.Errorf("wrote %q, want %q", b.String(), tt.want)
			}
		})
	}
}

// TestWrapLeavesPipes: only a terminal is protected; a pipe or a
// buffer gets the bytes as they are.
func TestWrapLeavesPipes(t *testing.T) {
	var b bytes.Buffer
	if w := Wrap(&b); w != &b {
		t.Errorf("Wrap wrapped a buffer: %T", w)
	}
}

// TestShow: the command shown before run's cost prompt is the one a yes
// runs, with every byte a terminal would not show as text escaped, so a
// value cannot hide or fake it (an escape sequence that clears the line,
// a carriage return, a right-to-left override).
func TestShow(t *testing.T) {
}
