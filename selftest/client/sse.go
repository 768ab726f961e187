package client

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
// client).
func ParseOutgoing(b []byte) Outgoing {
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
	var id bytes.Buffer
	if len(m.ID) > 0 && json.Compact(&id, m.ID) == nil {
		o.ID = id.Bytes()
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

// readEvents routes each data event of an event stream answering out
// (docs/protocol.md §12), and fails p when the stream ends without p's
// answer. It returns that answer (nil when none came).
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
	for {
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
			break
		}
	}
	dispatch()
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
