package jsoncheck

import (
	"bytes"
	"encoding/json"
	"errors"
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

// pair is one name and value Members handed on, both raw.
type pair struct{ name, value string }

func members(b []byte, stopAfter int) ([]pair, error) {
	var got []pair
	err := Members(b, func(name, value []byte) bool {
		got = append(got, pair{string(name), string(value)})
		return len(got) != stopAfter
	})
	return got, err
}

func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		in        string
		stopAfter int // 0: walk every member
		want      []pair
		wantErr   bool
	}{
		{in: `{}`},
		{in: " \n{ } ", want: nil},
		{in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, want: []pair{{`"jsonrpc"`, `"2.0"`}, {`"id"`, `1`}, {`"method"`, `"ping"`}}},
		{in: `{ "a" : [1, {"b":"}"}] , "c":null }`, want: []pair{{`"a"`, `[1, {"b":"}"}]`}, {`"c"`, `null`}}},
		{in: `{"te\u0078t":"a\"b\\","n":-2.5e3}`, want: []pair{{`"te\u0078t"`, `"a\"b\\"`}, {`"n"`, `-2.5e3`}}},
		{in: `{"id":1,"result":{"big":"x"},"rest":`, stopAfter: 2, want: []pair{{`"id"`, `1`}, {`"result"`, `{"big":"x"}`}}},
		{in: `[1,2]`, wantErr: true},
		{in: ``, wantErr: true},
		{in: `"x"`, wantErr: true},
		{in: `{"a"}`, wantErr: true},
		{in: `{"a":}`, wantErr: true},
		{in: `{a:1}`, wantErr: true},
		{in: `{"a":"unterminated}`, wantErr: true},
		{in: `{"a":[1,2}}`, want: []pair{{`"a"`, `[1,2}`}}}, // depth only: which bracket closes is Valid's to judge
		{in: `{"a":1 "b":2}`, want: []pair{{`"a"`, `1`}}, wantErr: true},
		{in: `{"a":1,`, want: []pair{{`"a"`, `1`}}, wantErr: true},
	} {
		got, err := members([]byte(tc.in), tc.stopAfter)
		if (err != nil) != tc.wantErr || err != nil && !errors.Is(err, ErrNotObject) {
			t.Errorf("Members(%s): error %v, want error %v", tc.in, err, tc.wantErr)
		}
		if len(got) != len(tc.want) {
			t.Errorf("Members(%s) = %q, want %q", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Members(%s)[%d] = %q, want %q", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

func TestSkipValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		at   int
		end  int
		okay bool
	}{
		{`"a\\\"b" ,`, 0, 8, true},
		{`"a\\"b"`, 0, 5, true},
		{`[1,[2,"]"],{}] x`, 0, 14, true},
		{`123,`, 0, 3, true},
		{`true}`, 0, 4, true},
		{`x:1`, 2, 3, true},
		{`,`, 0, 0, false},
		{``, 0, 0, false},
		{`"abc`, 0, 0, false},
		{`{"a":[}`, 0, 0, false},
		{`"a\"`, 0, 0, false},
		// Across the byte loop's end (shortString) into IndexByte's search:
		// an escaped quote at either side of it, an escaped backslash.
		{`"` + strings.Repeat("x", 30) + `\"y" `, 0, 35, true},
		{`"` + strings.Repeat("x", 31) + `\"y" `, 0, 36, true},
		{`"` + strings.Repeat("x", 31) + `\\" `, 0, 35, true},
		{`"` + strings.Repeat("x", 40) + `\"` + strings.Repeat("y", 40) + `\\" `, 0, 86, true},
		{`"` + strings.Repeat("x", 31) + `\`, 0, 0, false},
		{`"` + strings.Repeat("x", 31), 0, 0, false},
	} {
		end, ok := SkipValue([]byte(tc.in), tc.at)
		if end != tc.end || ok != tc.okay {
			t.Errorf("SkipValue(%q, %d) = %d, %v, want %d, %v", tc.in, tc.at, end, ok, tc.end, tc.okay)
		}
	}
}

// FuzzMembers: on any bytes Members stays inside them; on a valid JSON
// object it hands on exactly the members encoding/json reads, in order,
// each name and value valid JSON.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"id":1,"id":2}`, `{"te\u0078t":"a","text":"b"}`, `{"method":"x","params":{"name":"y"}}`, `{"\u00e9":[1,{"a":"}"}]}`, `{"a":"\\"}`, `[1]`, `{"a`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		b := []byte(in)
		var got []pair
		err := Members(b, func(name, value []byte) bool {
			got = append(got, pair{string(name), string(value)})
			return true
		})
		if !json.Valid(b) || !strings.HasPrefix(strings.TrimSpace(in), "{") {
			return
		}
		if err != nil {
			t.Fatalf("Members(%s): %v on a valid object", b, err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token() // the opening brace
		n := 0
		for i := 0; dec.More(); i++ {
			n++
			tok, _ := dec.Token()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if i >= len(got) {
				t.Fatalf("Members(%s): %d members, encoding/json reads more", b, len(got))
			}
			var name string
			if err := json.Unmarshal([]byte(got[i].name), &name); err != nil || name != tok {
				t.Fatalf("Members(%s)[%d] name %s, want %q", b, i, got[i].name, tok)
			}
			if !bytes.Equal(bytes.TrimSpace([]byte(got[i].value)), bytes.TrimSpace(v)) {
				t.Fatalf("Members(%s)[%d] value %s, want %s", b, i, got[i].value, v)
			}
		}
		if n != len(got) {
			t.Fatalf("Members(%s): %d members, encoding/json reads %d", b, len(got), n)
		}
	})
}
