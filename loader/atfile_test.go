package loader

import (
	"strings"
	"testing"
)

// TestResponseFileValues: a value starting with "@" is refused where the
// program reading it takes "@file" as a file's name — a response file of
// options (gcc -fsyntax-only {src} with src=@opts, whose opts holds
// -wrapper PROG, ran PROG), or data curl sends. Issue 29.
func TestResponseFileValues(t *testing.T) {
	for _, tt := range []struct {
		tmpl, value string
		refused     string // a piece of the reason; "" when filled
	}{
		{"gcc -fsyntax-only {x}", "@opts", "gcc reads an argument starting with @ as a response file"},
		{"gcc -fsyntax-only {x}", "opts.c", ""},
		{"gcc -fsyntax-only {x}", "./@opts", ""},
		{"gcc -fsyntax-only {x}", "a@b.c", ""},
		{"gcc -o {x} a.c", "@opts", "response file"},
		{"g++ -c {x}", "@o", "response file"},
		{"x86_64-linux-gnu-gcc-12 -c {x}", "@o", "response file"},
		{"/usr/bin/clang-17 {x}", "@o", "response file"},
		{"env CC=1 clang -o out {x}", "@o", "clang reads an argument"},
		{"javac {x}", "@argfile", "javac reads"},
		{"java -jar app.jar {x}", "@argfile", "java reads"},
		{"ld -o out {x}", "@o", "response file"},
		{"curl -d {x} https://example.org", "@/etc/passwd", "curl reads the argument of -d from the file an @ names"},
		{"curl -d {x} https://example.org", "a@b", ""},
		{"curl --data={x} https://example.org", "@f", "the option it is glued to"},
		{"curl -sd{x} https://example.org", "@f", "send a local file"},
		{"curl --json {x} https://example.org", "@f", "send a local file"},
		{"curl -H {x} https://example.org", "@headers", "send a local file"},
		{"curl --data-urlencode {x} https://example.org", "q@/etc/passwd", "name@file"},
		{"curl --data-urlencode {x} https://example.org", "q=a@b", ""},
		{"curl -F f={x} https://example.org", "@/etc/passwd", "-F reads name=@file"},
		{"curl -F f={x} https://example.org", "</etc/passwd", "-F reads"},
		{"curl -F f={x} https://example.org", "a@b", ""},
		{"curl -F {x} https://example.org", "f=@/etc/passwd", "-F reads"},
		{"curl -F {x} https://example.org", "f=a@b", ""},
		{"curl -d x{x} https://example.org", "@f", ""},
		{"rg -- {x}", "@x", ""},
		{"cat -- {x}", "@x", ""},
	} {
		f := fill(skillWith(tt.tmpl, true, "x"), map[string]string{"x": tt.value})
		switch {
		case tt.refused == "" && !f.Ready:
			t.Errorf("%s with %q: not filled: %+v", tt.tmpl, tt.value, f)
		case tt.refused != "" && (f.Ready || len(f.Invalid) != 1 || !strings.Contains(f.Invalid[0].Reason, tt.refused)):
			t.Errorf("%s with %q: ready %v, invalid %+v; want it refused saying %q", tt.tmpl, tt.value, f.Ready, f.Invalid, tt.refused)
		case tt.refused != "" && strings.Contains(f.Command, tt.value):
			t.Errorf("%s with %q: refused, but the value is in the command %q", tt.tmpl, tt.value, f.Command)
		}
	}
}
