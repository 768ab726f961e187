package mcpclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agent3md/agent3md/internal/textclip"
)

// Message is one JSON-RPC message from the server: a response (no
// method), a request (a method and an id) or a notification (a method,
// no id or a null one).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// IsResponse reports whether m answers a request (it has no method).
func (m *Message) IsResponse() bool { return m.Method == "" }

// IDIsNull reports whether m's id is null or absent, as JSON-RPC requires
// of an error about a request whose id could not be read, and of a
// notification.
func (m *Message) IDIsNull() bool {
	return len(m.ID) == 0 || string(bytes.TrimSpace(m.ID)) == "null"
}

// RPCError is a JSON-RPC error object. As a Go error it is what a call
// returns when the server answered with an error.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// String is the error as a report shows it: error -32601 "…".
func (e *RPCError) String() string { return fmt.Sprintf("error %d %q", e.Code, e.Message) }

// Error implements error; it reads as String does.
func (e *RPCError) Error() string { return e.String() }

// JSON-RPC and MCP error codes a client meets.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Decode parses one message as the server wrote it. A line that is not a
// JSON-RPC message is an error that says what is wrong and quotes its
// start; the texts name stdout because that is where a stdio server
// writes, and an HTTP answer is held to the same rules.
func Decode(line []byte) (*Message, error) {
	m := &Message{}
	if err := json.Unmarshal(line, m); err != nil {
		return nil, fmt.Errorf("server wrote something that is not a JSON-RPC object to stdout (%v): %s", err, textclip.Bytes(string(line), 120))
	}
	switch {
	case m.JSONRPC != "2.0":
		return nil, fmt.Errorf("server message lacks \"jsonrpc\":\"2.0\": %s", textclip.Bytes(string(line), 120))
	case m.IsResponse() && m.Result == nil && m.Error == nil:
		return nil, fmt.Errorf("server response has neither result nor error: %s", textclip.Bytes(string(line), 120))
	}
	return m, nil
}

// Encode renders a request (id non-nil) or a notification (id nil) as one
// line without its newline. Params that encode as JSON null (a nil
// interface, map or slice) are left out: JSON-RPC allows params to be
// omitted or structured, never null, and servers built on the official
// TypeScript SDK drop a message with "params": null without answering.
func Encode(id any, method string, params any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0"`)
	if id != nil {
		raw, err := encodeID(id)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", method, err)
		}
		b.WriteString(`,"id":`)
		b.Write(raw)
	}
	b.WriteString(`,"method":`)
	if plainString(method) {
		b.WriteByte('"')
		b.WriteString(method)
		b.WriteByte('"')
	} else {
		name, err := marshal(method)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", method, err)
		}
		b.Write(name)
	}
	if params != nil {
		mark := b.Len()
		b.WriteString(`,"params":`)
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(params); err != nil {
			return nil, fmt.Errorf("encode %s params: %w", method, err)
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		if string(b.Bytes()[mark+len(`,"params":`):]) == "null" {
			b.Truncate(mark)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// plainString reports whether s is its own JSON string body: printable
// ASCII without a quote or a backslash.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// marshal is json.Marshal without HTML escaping, so a value reads back
// as it was written (ids and names are compared as bytes).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// encodeID renders a request id: a string or an integer, as JSON-RPC
// wants (a raw JSON value is taken as it is, so a probe may send any).
func encodeID(id any) ([]byte, error) {
	switch v := id.(type) {
	case json.RawMessage:
		return canonicalID(v), nil
	case int64:
		return strconv.AppendInt(nil, v, 10), nil
	case int:
		return strconv.AppendInt(nil, int64(v), 10), nil
	case string, int32, uint, uint64, uint32, json.Number:
		b, err := marshal(v)
		if err != nil {
			return nil, err
		}
		return canonicalID(b), nil
	}
	return nil, fmt.Errorf("request id %v (%T): use a string or an integer", id, id)
}

// canonicalID is the form of an id that two equal ids share: compact,
// and a string with escapes decoded and re-encoded without HTML escaping.
// It returns its argument when that is already canonical (the common
// case costs nothing).
func canonicalID(raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if bytes.IndexByte(raw, '\\') < 0 {
			return raw
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return raw
		}
		b, err := marshal(s)
		if err != nil {
			return raw
		}
		return b
	}
	if !bytes.ContainsAny(raw, " \t\r\n") {
		return raw
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// SameID reports whether a received id is the same JSON value as want
// (an id as the client sent it, or any string or integer).
func SameID(got json.RawMessage, want any) bool {
	w, err := encodeID(want)
	if err != nil || len(got) == 0 {
		return false
	}
	return bytes.Equal(canonicalID(got), w)
}
