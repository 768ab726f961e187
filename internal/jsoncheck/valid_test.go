package jsoncheck

import (
	"encoding/json"
	"strings"
	"testing"
)

// cases covers each rule of the grammar on both sides; every case is also
// checked against encoding/json.Valid, so the table cannot drift from it.
var cases = []struct {
	in   string
	want bool
}{
	{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, true},
	{" \t\r\n{ \"a\" : [ 1 , -2.5e+3 , true , false , null , \"x\" ] } \n", true},
	{`[]`, true},
	{`{}`, true},
	{`[[],{},[{}]]`, true},
	{`0`, true},
	{`-0`, true},
	{`-0.0e-0`, true},
	{`1E9`, true},
	{`"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"`, true},
	{"\"caf\xc3\xa9 \xff\xfe\"", true}, // invalid UTF-8 is not rejected
	{"\"\x7f\"", true},
	{``, false},
	{` `, false},
	{`{`, false},
	{`}`, false},
	{`[1,]`, false},
	{`{"a":1,}`, false},
	{`{,}`, false},
	{`{"a"}`, false},
	{`{"a":}`, false},
	{`{"a" 1}`, false},
	{`{1:2}`, false},
	{`[1 2]`, false},
	{`[1}`, false},
	{`{"a":1]`, false},
	{`01`, false},
	{`-`, false},
	{`-a`, false},
	{`1.`, false},
	{`.5`, false},
	{`1e`, false},
	{`1e+`, false},
	{`+1`, false},
	{`0x10`, false},
	{`tru`, false},
	{`truee`, false},
	{`nul`, false},
	{`True`, false},
	{`NaN`, false},
	{`"abc`, false},
	{`"\x"`, false},
	{`"\u12"`, false},
	{`"\u12G4"`, false},
	{"\"a\tb\"", false}, // a raw control character
	{"\"a\x00b\"", false},
	{`"\`, false},
	{`1 2`, false},
	{`{} {}`, false},
	{"\v1", false}, // only space, tab, CR and LF are whitespace
	{"1\f", false},
	{strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth), true},
	{strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), false},
	{strings.Repeat(`{"a":`, maxDepth) + "1" + strings.Repeat("}", maxDepth), true},
	{strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1), false},
}

func TestValid(t *testing.T) {
	for _, c := range cases {
		name := c.in
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		if got := Valid([]byte(c.in)); got != c.want {
			t.Errorf("Valid(%q) = %v, want %v", name, got, c.want)
		}
		if std := json.Valid([]byte(c.in)); std != c.want {
			t.Errorf("the table disagrees with encoding/json on %q: it says %v", name, std)
		}
	}
}

func TestValidAllocatesNothing(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"deploy the report"}}}`)
	deep := []byte(strings.Repeat("[", 100) + strings.Repeat("]", 100))
	if n := testing.AllocsPerRun(100, func() { Valid(msg) }); n != 0 {
		t.Errorf("Valid allocated %v times on a message; the check runs on every request", n)
	}
	// Past the small stack the open containers move to the heap, once.
	if n := testing.AllocsPerRun(100, func() { Valid(deep) }); n > 2 {
		t.Errorf("Valid allocated %v times on 100 levels", n)
	}
}

// FuzzValid holds Valid to encoding/json.Valid on any input.
func FuzzValid(f *testing.F) {
	for _, c := range cases {
		if len(c.in) < 1000 {
			f.Add([]byte(c.in))
		}
	}
	f.Add([]byte(`{"a":[{"b":"\u0041"},-1.5E-7,[]],"c":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"please deploy the latest report for the team"}}}`)
	b.Run("jsoncheck", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for i := 0; i < b.N; i++ {
			Valid(msg)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for i := 0; i < b.N; i++ {
			json.Valid(msg)
		}
	})
}
