package loader

import (
	"strings"
	"testing"
)

// TestRenderDrops: an optional input without a value drops its word by
// the word's span in the syntax tree — an argument (with the option word
// before a word that is only the placeholder), an assignment, or a whole
// redirection — also when the dropped items touch (two assignments in a
// row once made overlapping spans and a panic).
func TestRenderDrops(t *testing.T) {
	for _, tt := range []struct{ tmpl, want string }{
		{"X={a} Y={b} cmd", " cmd"},
		{"X={a}; cmd", "X=; cmd"},
		{"X={a}\ncmd \"$X\"", "X=\ncmd \"$X\""},
		{"cmd && X={a}; cmd2", "cmd && X=; cmd2"},
		{`X="a {a}"; cmd`, "X=; cmd"},
		{"X={a} cmd {b}", "cmd"},
		{"cmd > {a} < {b} x", "cmd x"},
		{"cmd -o {a} {b} x", "cmd x"},
		{"cmd -o {a} \\\n  -p {b} x", "cmd x"},
		{"cmd --k={a} -- {b}", "cmd --"},
		{`cmd "x{a}" '{b}y' z`, "cmd z"},
		{"cat <<'EOF' -o {a}\nit's\nEOF", "cat <<'EOF'\nit's\nEOF"},
		{`cmd "$(date "+%H'%M")" -n {a} # it's`, `cmd "$(date "+%H'%M")" # it's`},
	} {
		f := fill(skillWith(tt.tmpl, true, "a?", "b?"), map[string]string{})
		if f.Command != tt.want {
			t.Errorf("%q: command %q, want %q", tt.tmpl, f.Command, tt.want)
		}
	}
	// What is left must parse, or the fill is refused, never ready.
	f := fill(skillWith("cmd && > {a}", true, "a?"), map[string]string{})
	if f.Ready || len(f.Unsafe) != 1 || !strings.Contains(f.Unsafe[0].Reason, "not valid shell syntax") || !strings.Contains(f.Unsafe[0].Reason, "with {a} left out") {
		t.Errorf("cmd && > {a} without {a}: %+v", f)
	}
}
