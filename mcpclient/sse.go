package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Outgoing is what the HTTP framing reads of a message it sends: enough
// to choose its headers and to name it in a message.
type Outgoing struct {
	// Parsed: the message is a JSON object.
	Parsed bool
	// Method is "" for a response or a message that is not JSON-RPC.
	Method string
	// ID is the compacted id; nil for a notification.
	ID json.RawMessage
	// Modern is params._meta's protocolVersion (a 2026-07-28 request),
	// "" when absent.
	Modern string
	// Name is params.name (tools/call, prompts/get) or params.uri
	// (resources/read), for Mcp-Name.
	Name string
}

// IsRequest reports whether the message needs an answer.
func (o Outgoing) IsRequest() bool { return o.Method != "" && o.ID != nil }

// IsInitialize reports whether the message is an initialize request.
func (o Outgoing) IsInitialize() bool { return o.Method == "initialize" && o.IsRequest() }

// What names the message's POST for a message: "POST ping (id 1)".
func (o Outgoing) What() string {
	switch {
	case o.IsRequest():
		return "POST " + o.Method + " (id " + string(o.ID) + ")"
	case o.Method != "":
		return "POST of notification " + o.Method
	case o.Parsed:
		return "POST of a response"
	}
	return "POST of a malformed message"
}

// ParseOutgoing reads the fields the HTTP framing needs; anything it
// cannot read is left empty (the server judges the message, not the
// client). It scans rather than decodes: it runs on every POST.
func ParseOutgoing(b []byte) Outgoing {
	if !json.Valid(b) {
		return Outgoing{}
	}
	var (
		o      Outgoing
		params []byte
	)
	err := eachMember(b, func(key, value []byte) bool {
		switch string(key) {
		case "id":
			o.ID = canonicalID(value)
		case "method":
			if json.Unmarshal(value, &o.Method) != nil {
				o.Method = ""
			}
		case "params":
			params = value
		}
		return true
	})
	if err != nil {
		return Outgoing{} // valid JSON, but not an object
	}
	o.Parsed = true
	named := o.Method == "tools/call" || o.Method == "prompts/get" || o.Method == "resources/read"
	nameKey := "name"
	if o.Method == "resources/read" {
		nameKey = "uri"
	}
	eachMember(params, func(key, value []byte) bool {
		switch {
		case named && string(key) == nameKey:
			json.Unmarshal(value, &o.Name)
		case string(key) == "_meta":
			eachMember(value, func(k, v []byte) bool {
				if string(k) == MetaProtocolVersion {
					json.Unmarshal(v, &o.Modern)
				}
				return true
			})
		}
		return true
	})
	return o
}

// Exchange is one POST and its answer, as OnExchange sees it.
type Exchange struct {
	Outgoing
	// Status is the answer's HTTP status.
	Status int
	// ErrorCode is the answer's JSON-RPC error code, 0 when none.
	ErrorCode int
	// Empty: no body. NotJSON: a body that is not JSON. Stream: answered
	// as an event stream.
	Empty, NotJSON, Stream bool
}

// readEvents dispatches each data event of an event stream answering out
// (docs/protocol.md §12), and fails p when the stream ends without p's
// answer. It returns that answer (nil when none came) as soon as it has
// arrived, without reading on: a server sends nothing after the answer
// (it SHOULD end the stream then), and one that holds the stream open
// would otherwise keep a connection and its descriptor for as long as it
// likes — one per request, which is what a sync of thousands of files
// makes (docs/sync.md §5). The caller waits briefly for the end
// (awaitEnd) and closes the body.
func (t *httpTransport) readEvents(ctx context.Context, body io.Reader, out Outgoing, p *Pending) (answer []byte) {
	max := t.c.o.MaxLineBytes
	lr := NewLineReader(body, max)
	var (
		data      []byte
		seen      bool // a data field since the last dispatch
		tooLong   bool
		readError error
	)
	dispatch := func() {
		switch {
		case tooLong:
			t.c.failWaiting(p, nil, fmt.Errorf("an event answering %s is over %d bytes", out.What(), max))
		case seen:
			if answer == nil && isAnswerTo(data, out.ID) {
				answer = data
			}
			t.c.receive(data, time.Now(), p)
		}
		data, seen, tooLong = nil, false, false
	}
	for answer == nil {
		line, long, err := lr.Next()
		switch {
		case long:
			tooLong = true
		case len(line) == 0:
			dispatch()
		case line[0] == ':': // a comment (keep-alive)
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			if string(field) == "data" && !tooLong {
				if seen {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(value, []byte(" "))...)
				seen = true
				tooLong = tooLong || len(data) > max
			}
		}
		if err != nil {
			readError = err
			dispatch()
			break
		}
	}
	if p != nil && out.IsRequest() && ctx.Err() == nil && !p.isDone() {
		t.c.failWaiting(p, nil, fmt.Errorf("the event stream answering %s ended without its answer (%v)", out.What(), readError))
	}
	return answer
}

// isAnswerTo reports whether data is the response to the request id.
func isAnswerTo(data []byte, id json.RawMessage) bool {
	if id == nil {
		return false
	}
	env, err := peekEnvelope(data)
	return err == nil && !env.hasMethod && bytes.Equal(canonicalID(env.id), canonicalID(id))
}
