package client

import (
	"context"
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
