package mcpclient_test

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/mcpclient"
)

func TestLineReaderBound(t *testing.T) {
	const max = 32
	tests := []struct {
		name string
		in   string
		want []string // lines read, "!" marks a too-long line
	}{
		{name: "at the bound", in: strings.Repeat("a", max) + "\nnext\n", want: []string{strings.Repeat("a", max), "next"}},
		{name: "one over the bound", in: strings.Repeat("a", max+1) + "\nnext\n", want: []string{"!", "next"}},
		{name: "far over the bound", in: strings.Repeat("a", 100*max) + "\nnext\n", want: []string{"!", "next"}},
		{name: "crlf", in: "x\r\ny\r\n", want: []string{"x", "y"}},
		{name: "no final newline", in: "x\ny", want: []string{"x", "y"}},
		{name: "over the bound at the end", in: "x\n" + strings.Repeat("b", max+5), want: []string{"x", "!"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := mcpclient.NewLineReader(strings.NewReader(tt.in), max)
			var got []string
			for {
				line, tooLong, err := lr.Next()
				switch {
				case tooLong:
					got = append(got, "!")
				case len(line) > 0:
					got = append(got, string(line))
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzLineReader: no line returned is over the bound, and the lines
// under it come back as written.
func FuzzLineReader(f *testing.F) {
	f.Add("a\nbb\r\n"+strings.Repeat("c", 40)+"\nd", 8)
	f.Add("\n\n\r\n", 1)
	f.Fuzz(func(t *testing.T, in string, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		lr := mcpclient.NewLineReader(strings.NewReader(in), max)
		var got []string
		for {
			line, tooLong, err := lr.Next()
			if len(line) > max || tooLong && line != nil {
				t.Fatalf("a line of %d bytes (tooLong %v) past the bound %d", len(line), tooLong, max)
			}
			if !tooLong {
				got = append(got, string(line))
			}
			if err != nil {
				break
			}
		}
		// The bound counts a line's bytes as sent, a "\r" before its
		// newline included.
		var want []string
		for _, l := range strings.Split(in, "\n") {
			if len(l) <= max {
				want = append(want, strings.TrimSuffix(l, "\r"))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("lines %q, want %q", got, want)
		}
	})
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		wantErr  string
		response bool
		nullID   bool
	}{
		{name: "result", line: `{"jsonrpc":"2.0","id":1,"result":{}}`, response: true},
		{name: "error with null id", line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, response: true, nullID: true},
		{name: "error without id", line: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`, response: true, nullID: true},
		{name: "notification", line: `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`},
		{name: "not JSON", line: `hello`, wantErr: "not a JSON-RPC object to stdout"},
		{name: "no jsonrpc", line: `{"id":1,"result":{}}`, wantErr: `lacks "jsonrpc":"2.0"`},
		{name: "neither result nor error", line: `{"jsonrpc":"2.0","id":1}`, wantErr: "neither result nor error"},
		{name: "array", line: `[{"jsonrpc":"2.0","id":1,"result":{}}]`, wantErr: "not a JSON-RPC object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := mcpclient.Decode([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.IsResponse() != tt.response || (tt.response && m.IDIsNull() != tt.nullID) {
				t.Errorf("response %v nullID %v, want %v %v", m.IsResponse(), m.IDIsNull(), tt.response, tt.nullID)
			}
		})
	}
}

func TestSameID(t *testing.T) {
	tests := []struct {
		got  string
		want any
		same bool
	}{
		{`1`, 1, true},
		{` 1 `, 1, true},
		{`"1"`, 1, false},
		{`"selftest-ping-2"`, "selftest-ping-2", true},
		{`"a\u003cb"`, "a<b", true},
		{`"\u0061"`, "a", true},
		{`2`, 1, false},
		{`null`, 1, false},
		{``, 1, false},
	}
	for _, tt := range tests {
		if got := mcpclient.SameID(json.RawMessage(tt.got), tt.want); got != tt.same {
			t.Errorf("SameID(%s, %v) = %v", tt.got, tt.want, got)
		}
	}
}

func TestEncode(t *testing.T) {
	for _, tt := range []struct {
		id     any
		method string
		params any
		want   string
	}{
		{1, "ping", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"a<b", "x", map[string]any{}, `{"jsonrpc":"2.0","id":"a<b","method":"x","params":{}}`},
		{nil, "notifications/initialized", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		// A nil map inside an interface is null: left out, never sent.
		{2, "ping", map[string]any(nil), `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
	} {
		b, err := mcpclient.Encode(tt.id, tt.method, tt.params)
		if err != nil || string(b) != tt.want {
			t.Errorf("Encode(%v, %s) = %s, %v; want %s", tt.id, tt.method, b, err, tt.want)
		}
	}
	if _, err := mcpclient.Encode(1.5, "ping", nil); err == nil || !strings.Contains(err.Error(), "use a string or an integer") {
		t.Errorf("a float id: %v", err)
	}
}

// FuzzDecode: any line decodes to a message or an error, never a panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t"}}`,
		`[1,2]`, `{"id":{"x":1}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mcpclient.Decode([]byte(s))
	})
}
