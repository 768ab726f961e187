package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestParseOutgoingAndHeaderSafe(t *testing.T) {
	o := ParseOutgoing([]byte(`{"jsonrpc":"2.0","id": 3 ,"method":"resources/read","params":{"uri":"skill://a b/SKILL.md","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	if !o.IsRequest() || o.Method != "resources/read" || string(o.ID) != "3" || o.Modern != ModernVersion || o.Name != "skill://a b/SKILL.md" {
		t.Errorf("parsed %+v", o)
	}
	for body, what := range map[string]string{
		`not json`:                               "POST of a malformed message",
		`[1]`:                                    "POST of a malformed message",
		`{"id":{"x":1},"method":5}`:              "POST of a response",
		`{"method":"ping","params":null}`:        "POST of notification ping",
		`{"jsonrpc":"2.0","id":"a","result":{}}`: "POST of a response",
	} {
		if got := ParseOutgoing([]byte(body)).What(); got != what {
			t.Errorf("%s: %q, want %q", body, got, what)
		}
	}
	for in, want := range map[string]string{
		"tools/call": "tools/call",
		"héllo":      "=?base64?aMOpbGxv?=",
		" edge":      "=?base64?IGVkZ2U=?=",
		"a\nb":       "=?base64?YQpi?=",
	} {
		if got := HeaderSafe(in); got != want {
			t.Errorf("HeaderSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzOutgoingHeaders: any body, however malformed (probes send such
// bodies), frames into a valid request without a control character in
// a header.
func FuzzOutgoingHeaders(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	f.Add(`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"`)
	f.Add(`{"method":"resources/read","params":{"uri":"skill://é\n/SKILL.md"}}`)
	f.Fuzz(func(t *testing.T, body string) {
		c := newConn(&Options{Token: "t"})
		tr := &httpTransport{c: c, url: "http://127.0.0.1/mcp", version: "2025-11-25"}
		req, err := tr.newRequest(context.Background(), []byte(body), ParseOutgoing([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range req.Header {
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("header %s carries a control character: %q", k, v)
				}
			}
		}
	})
}

// nopTransport sends nothing.
type nopTransport struct{}

func (nopTransport) send(context.Context, [][]byte, []*Pending) error { return nil }
func (nopTransport) stop()                                            {}
func (nopTransport) release()                                         {}

// FuzzEventStream: whatever a stream holds, no message past the bound
// reaches a handler or a waiter, and reading ends.
func FuzzEventStream(f *testing.F) {
	f.Add("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	f.Add(": c\r\ndata:\ndata\n\nevent: x\nid: 3\nretry: 5\n\n")
	f.Add("data: " + strings.Repeat("y", 200))
	f.Add("data: {\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"ping\"}\n\n")
	f.Fuzz(func(t *testing.T, stream string) {
		const max = 128
		check := func(raw []byte) {
			if len(raw) > max {
				t.Fatalf("delivered %d bytes past the %d-byte bound", len(raw), max)
			}
		}
		c := newConn(&Options{MaxLineBytes: max,
			OnNotification: func(m *Message) { check(m.Params) },
			OnUnmatched:    func(raw []byte, _ error) { check(raw) },
			OnRequest:      func(*Message) (any, error) { return nil, nil }})
		c.t, c.perPOST = nopTransport{}, true
		p := &Pending{c: c, key: "1", id: []byte("1"), method: "ping", done: make(chan struct{})}
		if err := c.register([]*Pending{p}); err != nil {
			t.Fatal(err)
		}
		tr := &httpTransport{c: c}
		tr.readEvents(context.Background(), strings.NewReader(stream), ParseOutgoing([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)), p)
		<-p.Done() // answered, or failed when the stream ended without it
		raw, _ := p.Raw()
		check(raw)
	})
}

// decodedOutgoing is ParseOutgoing written with encoding/json, as it was
// before it scanned: the fuzzer holds the scan to it.
func decodedOutgoing(b []byte) Outgoing {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(b, &m) != nil {
		return Outgoing{}
	}
	o := Outgoing{Parsed: true}
	if json.Unmarshal(m.Method, &o.Method) != nil {
		o.Method = ""
	}
	if len(m.ID) > 0 {
		o.ID = canonicalID(m.ID)
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m.Params, &params) != nil {
		return o
	}
	var meta map[string]json.RawMessage
	json.Unmarshal(params["_meta"], &meta)
	json.Unmarshal(meta[MetaProtocolVersion], &o.Modern)
	switch o.Method {
	case "tools/call", "prompts/get":
		json.Unmarshal(params["name"], &o.Name)
	case "resources/read":
		json.Unmarshal(params["uri"], &o.Name)
	}
	return o
}

// ambiguous reports whether some object in the JSON text b has a key
// twice (encoding/json keeps the last; a scan may keep another), or a
// key the framing reads in other letter case (encoding/json matches
// field names regardless of case; JSON-RPC does not).
func ambiguous(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object bool
		keys   map[string]bool
		atKey  bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if top != nil && top.object {
					top.atKey = true
				}
				stack = append(stack, &frame{object: v == '{', keys: map[string]bool{}, atKey: true})
			} else {
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.object && top.atKey {
				if top.keys[v] || caseVariant(v) {
					return true
				}
				top.keys[v] = true
				top.atKey = false
				continue
			}
		}
		if top != nil && top.object {
			top.atKey = true
		}
	}
}

// FuzzParseOutgoing: the scan reads what a full decode reads.
func FuzzParseOutgoing(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	f.Add(`{"id":"a\u003c","method":"resources/read","params":{"uri":"skill://é/SKILL.md","_meta":{}}}`)
	f.Add(`{"method":"prompts/get","params":[1]}`)
	f.Add(`[{"id":1}]`)
	f.Fuzz(func(t *testing.T, body string) {
		if ambiguous([]byte(body)) {
			return
		}
		got, want := ParseOutgoing([]byte(body)), decodedOutgoing([]byte(body))
		if got.Parsed != want.Parsed || got.Method != want.Method || string(got.ID) != string(want.ID) || got.Modern != want.Modern || got.Name != want.Name {
			t.Fatalf("scan %+v, decode %+v", got, want)
		}
	})
}

// caseVariant reports whether k is a key the framing reads, spelt in
// other letter case.
func caseVariant(k string) bool {
	for _, name := range []string{"id", "method", "params", "name", "uri", "_meta", MetaProtocolVersion} {
		if k != name && strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
