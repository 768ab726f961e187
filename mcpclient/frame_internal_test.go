package mcpclient

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestPeekEnvelope(t *testing.T) {
	for _, tt := range []struct {
		in      string
		id      string
		method  string
		request bool
		bad     bool
	}{
		{in: `{"jsonrpc":"2.0","id":1,"result":{"x":"}"}}`, id: "1"},
		{in: `{"result":{"a":[1,{"b":"\"}"}]},"id":"k","jsonrpc":"2.0"}`, id: `"k"`},
		{in: ` { "id" : 7 , "method" : "roots/list" } `, id: "7", method: "roots/list", request: true},
		{in: `{"method":"notifications/progress","params":{"id":9}}`, method: "notifications/progress"},
		{in: `{"\u0069d":3,"error":{}}`, id: "3"},
		{in: `{"id":null,"method":"x"}`, id: "null", method: "x"},
		{in: `{"id":1,"method":null,"result":{}}`, id: "1"},
		{in: `{"id":"a\"b","result":"\\"}`, id: `"a\"b"`},
		{in: `{}`},
		{in: `[1]`, bad: true},
		{in: `{"id":1,"method":5}`, bad: true},
		{in: `{"id":1,"result":{"x":1}`, id: "1"}, // the rest is the waiter's to judge
		{in: `{"id":1 "result":{}}`, bad: true},
		{in: `not json`, bad: true},
	} {
		env, err := peekEnvelope([]byte(tt.in))
		if (err != nil) != tt.bad {
			t.Errorf("%s: error %v, want bad %v", tt.in, err, tt.bad)
			continue
		}
		if tt.bad {
			continue
		}
		if string(env.id) != tt.id || env.method != tt.method || env.request() != tt.request {
			t.Errorf("%s: id %s method %q request %v; want %s %q %v", tt.in, env.id, env.method, env.request(), tt.id, tt.method, tt.request)
		}
	}
}

// topKeys lists a JSON object's top-level keys, ok=false when b is not
// an object.
func topKeys(b []byte) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil, false
		}
	}
	return keys, true
}

// FuzzPeekEnvelope: on every JSON object whose method (if any) is a
// string, dispatch reads what a full decode reads: the same id, and a
// method exactly when the message has one. (A message with both a method
// and a result, or a key twice, is no valid message; its waiter's decode
// judges it.)
func FuzzPeekEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"method":"m","params":{"id":2}}`,
		`{"id":[1,{"a":"]"}],"error":null}`,
		`{"result":"\\\"","id":-0.5e3}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		env, err := peekEnvelope([]byte(s))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if json.Unmarshal([]byte(s), &m) != nil {
			return
		}
		keys, ok := topKeys([]byte(s))
		if !ok {
			return
		}
		seen, has := map[string]bool{}, map[string]bool{}
		for _, k := range keys {
			if seen[k] {
				return
			}
			seen[k] = true
			has[k] = true
		}
		if m.Method != nil && *m.Method != "" && (has["result"] || has["error"]) {
			return
		}
		if err != nil {
			t.Fatalf("peek refused a JSON object: %v", err)
		}
		wantMethod := m.Method != nil && *m.Method != ""
		if env.hasMethod != wantMethod || (wantMethod && env.method != *m.Method) {
			t.Fatalf("method %q (has %v), decode says %v", env.method, env.hasMethod, m.Method)
		}
		if !bytes.Equal(canonicalID(env.id), canonicalID(m.ID)) {
			t.Fatalf("id %s, decode says %s", env.id, m.ID)
		}
	})
}
