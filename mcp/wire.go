package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/jsoncheck"
	"github.com/sourcegraph/jsonrpc2"
)

// The wire layer: one JSON-RPC message in (decoded and checked), one answer
// or notification out (encoded once, with the client's id byte for byte).
// It knows nothing of connections, queues or MCP methods. It is the one
// adapter over sourcegraph/jsonrpc2, whose message model (the error object
// and its codes, the request type notifications are encoded with) it
// uses; no other file imports the library. Why the connection itself is
// ours, not jsonrpc2.Conn, is in docs/architecture.md §6.

// message is one incoming JSON-RPC message that passed validation: a
// request (rawID set), a notification, or a response from the client
// (ignored by the caller).
type message struct {
	method string
	rawID  json.RawMessage // the client's id as sent; nil for a notification
	key    string          // idKey(rawID), for notifications/cancelled
	params json.RawMessage // nil when absent
	reply  bool            // a response, not a request
}

// rpcIn is the shape every incoming message is checked against: each
// member's raw value, a slice of the line (member names are matched
// exactly, as JSON-RPC spells them; a repeated member keeps its last value).
type rpcIn struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// parseErrorLine is the -32700 answer to a line that is not JSON, saying
// where and why, so a client that wrote one bad byte in a long line, or
// nested past the decoder's depth limit (valid JSON, refused all the
// same), learns which byte or which limit rather than just "invalid JSON".
func parseErrorLine(raw []byte) []byte {
	msg := "Parse error: invalid JSON"
	var v json.RawMessage
	var se *json.SyntaxError
	switch err := json.Unmarshal(raw, &v); {
	case errors.As(err, &se) && strings.Contains(se.Error(), "exceeded max depth"):
		msg = fmt.Sprintf("Parse error: JSON nested deeper than %d arrays and objects (at byte %d)", maxJSONDepth, se.Offset)
	case errors.As(err, &se):
		msg += fmt.Sprintf(" at byte %d: %s", se.Offset, se.Error())
	case err != nil:
		msg += ": " + err.Error()
	}
	return errorLine(nil, codeParseError, msg, nil)
}

// maxJSONDepth is encoding/json's nesting limit, named in parseErrorLine.
const maxJSONDepth = 10000

// decodeMessage checks one JSON value (already trimmed) as a JSON-RPC 2.0
// message. On failure it returns the whole error line to send (with the id
// when the id itself is sound, null otherwise); the caller answers it and
// keeps reading.
func decodeMessage(raw []byte) (m message, errLine []byte) {
	if len(raw) == 0 || raw[0] != '{' {
		if !jsoncheck.Valid(raw) {
			return m, parseErrorLine(raw)
		}
		return m, invalidRequest("a message must be a JSON object")
	}
	if !jsoncheck.Valid(raw) {
		return m, parseErrorLine(raw)
	}
	var in rpcIn
	eachMember(raw, func(key string, val []byte) {
		switch key {
		case "jsonrpc":
			in.JSONRPC = val
		case "id":
			in.ID = val
		case "method":
			in.Method = val
		case "params":
			in.Params = val
		case "result":
			in.Result = val
		case "error":
			in.Error = val
		}
	})
	if string(in.JSONRPC) != `"2.0"` {
		return m, invalidRequest(`"jsonrpc" must be "2.0"`)
	}
	if in.Method == nil {
		if in.Result != nil || in.Error != nil {
			m.reply, m.rawID = true, in.ID
			return m, nil
		}
		return m, invalidRequest(`"method" is missing`)
	}
	method, ok := plainString(in.Method)
	if !ok {
		if err := json.Unmarshal(in.Method, &method); err != nil {
			return m, invalidRequest(`"method" must be a string`)
		}
	}
	if in.ID != nil {
		key, err := idKey(in.ID)
		if err != nil {
			return m, invalidRequest(err.Error())
		}
		m.rawID, m.key = in.ID, key
	}
	if string(in.Params) == "null" {
		// JSON-RPC 2.0 allows params omitted or structured, never null.
		// A request is told so; a notification is never answered, not
		// even with an error (docs/protocol.md §2), so it is taken as
		// having no params, as one with params of any other wrong shape
		// is dropped by whatever reads them.
		if m.rawID == nil {
			m.method = method
			return m, nil
		}
		return m, errorLine(m.rawID, codeInvalidRequest,
			`Invalid Request: "params" must be an object when present, not null (omit it instead)`, nil)
	}
	m.method, m.params = method, in.Params
	return m, nil
}

// eachMember calls fn with the name and raw value of each member of obj,
// a JSON object already known to be valid, in order. It walks the bytes
// once without decoding values (jsoncheck.Members): the values are slices
// of obj. Names come from knownKey when they are one a request spells.
func eachMember(obj []byte, fn func(key string, val []byte)) {
	_ = jsoncheck.Members(obj, func(name, val []byte) bool {
		key, ok := knownKey(name)
		if !ok {
			key, ok = plainString(name)
		}
		if !ok {
			_ = json.Unmarshal(name, &key)
		}
		fn(key, val)
		return true
	})
}

// plainString returns the contents of a JSON string without escapes, the
// usual shape of a method name, without a second decoding pass.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// knownKey returns the member names every request spells, as constants,
// so reading a request allocates no string per member name (measured, such
// strings are a fifth of what a small request would allocate). raw is the
// name with its quotes.
func knownKey(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	switch string(raw[1 : len(raw)-1]) { // no allocation: compared in place
	case "jsonrpc":
		return "jsonrpc", true
	case "id":
		return "id", true
	case "method":
		return "method", true
	case "params":
		return "params", true
	case "result":
		return "result", true
	case "error":
		return "error", true
	case "name":
		return "name", true
	case "arguments":
		return "arguments", true
	case "text":
		return "text", true
	case "mode":
		return "mode", true
	case "limit":
		return "limit", true
	case "cursor":
		return "cursor", true
	case "uri":
		return "uri", true
	case "_meta":
		return "_meta", true
	case "values":
		return "values", true
	case "tier":
		return "tier", true
	case "query":
		return "query", true
	case "progressToken":
		return "progressToken", true
	}
	return "", false
}

func invalidRequest(why string) []byte {
	return errorLine(nil, codeInvalidRequest, "Invalid Request: "+why, nil)
}

// idKey validates a request id (a string or an integer) and returns the key
// cancellation looks it up by. A string id must be valid UTF-8: it is echoed
// back byte for byte, and an answer must be valid UTF-8.
func idKey(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", errors.New(`"id" must be a string or an integer`)
	}
	switch c := raw[0]; {
	case c == '"':
		if !utf8.Valid(raw) {
			return "", errors.New(`"id" is not valid UTF-8`)
		}
		if s, ok := plainString(raw); ok {
			return "s:" + s, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf(`"id" is not a valid string: %w`, err)
		}
		return "s:" + s, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(raw, ".eE") {
			return "", errors.New(`"id" must be an integer written without a fraction or exponent`)
		}
		return "n:" + string(raw), nil
	case c == 'n':
		return "", errors.New(`"id" must be a string or an integer, not null`)
	default:
		return "", errors.New(`"id" must be a string or an integer`)
	}
}

// encoder is a reusable buffer with a JSON encoder that writes into it
// without HTML escaping, so skill text reads as written.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// maxPooledEncoder keeps one huge answer's buffer from staying pinned in
// the pool.
const maxPooledEncoder = 1 << 20

// appendAnswer appends the response to a request with the client's id:
// the result encoded once, or err as its JSON-RPC error.
func appendAnswer(dst []byte, rawID json.RawMessage, result any, err error) []byte {
	e := encoders.Get().(*encoder)
	defer func() {
		if e.buf.Cap() <= maxPooledEncoder {
			e.buf.Reset()
			encoders.Put(e)
		}
	}()
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, rawID...)
	if t, ok := result.(encodedTool); ok {
		result = t.enc
	}
	if enc, ok := result.(preEncoded); ok && err == nil {
		dst = append(dst, `,"result":`...)
		dst = append(dst, enc...)
		return append(dst, '}')
	}
	if err == nil {
		if encErr := e.enc.Encode(result); encErr != nil {
			err = fmt.Errorf("encoding the result: %w", encErr)
		} else {
			dst = append(dst, `,"result":`...)
			dst = append(dst, bytes.TrimSuffix(e.buf.Bytes(), []byte{'\n'})...)
			return append(dst, '}')
		}
	}
	e.buf.Reset()
	we := toWire(err)
	if len(we.Message) > hostErrorChars { // a name or method echoed whole
		clipped := *we
		clipped.Message = clipError(we.Message)
		we = &clipped
	}
	if encErr := e.enc.Encode(we); encErr != nil {
		e.buf.Reset()
		e.buf.WriteString(`{"code":-32603,"message":"Internal error: the error could not be encoded"}`)
	}
	dst = append(dst, `,"error":`...)
	dst = append(dst, bytes.TrimSuffix(e.buf.Bytes(), []byte{'\n'})...)
	return append(dst, '}')
}

// errorLine encodes an error response; a nil id is written as null.
func errorLine(rawID json.RawMessage, code int64, msg string, data any) []byte {
	if rawID == nil {
		rawID = json.RawMessage("null")
	}
	return appendAnswer(nil, rawID, nil, errorData(code, msg, data))
}

// JSON-RPC and MCP error codes (docs/protocol.md). The JSON-RPC ones are
// sourcegraph/jsonrpc2's.
const (
	codeParseError          int64 = jsonrpc2.CodeParseError
	codeInvalidRequest      int64 = jsonrpc2.CodeInvalidRequest
	codeMethodNotFound      int64 = jsonrpc2.CodeMethodNotFound
	codeInvalidParams       int64 = jsonrpc2.CodeInvalidParams
	codeInternalError       int64 = jsonrpc2.CodeInternalError
	codeUnsupportedProtocol int64 = -32022
)

// wireError is a JSON-RPC error as a Go error: sourcegraph/jsonrpc2's error
// object, so the codes and the encoding are the library's. Handlers return
// it (wrapped or not) to choose the code; toWire recovers it with
// errors.As.
type wireError = jsonrpc2.Error

// errorf builds a wireError with a formatted message.
func errorf(code int64, format string, args ...any) *wireError {
	return &wireError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorData builds a wireError carrying data (nil: none).
func errorData(code int64, msg string, data any) *wireError {
	we := &wireError{Code: code, Message: msg}
	if data != nil {
		we.SetError(data)
	}
	return we
}

// toWire maps any Go error to the JSON-RPC error sent for it: a wireError
// anywhere in the chain keeps its code; everything else is -32603.
func toWire(err error) *wireError {
	var we *wireError
	if !errors.As(err, &we) {
		we = &wireError{Code: codeInternalError, Message: "Internal error: " + err.Error()}
	}
	return we
}

// notificationLine encodes a server notification as one line (without the
// newline). A notification without parameters (params nil, or a nil map
// or pointer that encodes as null) omits "params": JSON-RPC 2.0 allows
// params absent, an object or an array, never null, and strict clients
// (the TypeScript SDK) drop a message with "params": null, so its handler
// never runs (docs/protocol.md §2). Anything else that is not an object or
// an array is a mistake of the caller, refused here rather than sent.
func notificationLine(method string, params any) ([]byte, error) {
	line := append(make([]byte, 0, 64+len(method)), `{"jsonrpc":"2.0","method":`...)
	line = appendJSONString(line, method)
	if params != nil {
		enc, err := appendEncoded(nil, params)
		if err != nil {
			return nil, fmt.Errorf("encoding the params of %s: %w", method, err)
		}
		switch {
		case string(enc) == "null":
		case enc[0] == '{' || enc[0] == '[':
			line = append(append(line, `,"params":`...), enc...)
		default:
			return nil, fmt.Errorf("the params of %s encode as %.20s: JSON-RPC params must be an object or an array", method, enc)
		}
	}
	return append(line, '}'), nil
}

// preEncoded is a result already encoded as compact JSON: appendAnswer
// copies it as is, with no second encoding or compaction pass.
type preEncoded []byte

// appendEncoded appends res encoded as appendAnswer would encode it.
func appendEncoded(dst preEncoded, res any) (preEncoded, error) {
	e := encoders.Get().(*encoder)
	defer func() {
		if e.buf.Cap() <= maxPooledEncoder {
			e.buf.Reset()
			encoders.Put(e)
		}
	}()
	if err := e.enc.Encode(res); err != nil {
		return nil, err
	}
	return append(dst, bytes.TrimSuffix(e.buf.Bytes(), []byte{'\n'})...), nil
}

// The answers a client asks for most (route_skill, the tool result around
// every text block) are written by hand with these appenders instead of
// through encoding/json's reflection, which measures at a third of a small
// route's time. They write exactly the bytes appendAnswer's encoder
// writes (compact, HTML escaping off): jsonappend_test.go checks them
// against encoding/json over every byte, edge strings and floats, and a
// fuzz target keeps checking.

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: quote and backslash
// escaped, the five short control escapes, other control bytes as \u00XX,
// invalid UTF-8 as \ufffd, and U+2028/U+2029 escaped (JavaScript reads
// them as line ends).
func appendJSONString(dst []byte, s string) []byte {
	dst = appendJSONChars(append(dst, '"'), s)
	return append(dst, '"')
}

// appendJSONChars appends s escaped as appendJSONString escapes it, without
// the quotes: the escaping of a concatenation is the concatenation of the
// escapings, since each piece is whole runes.
func appendJSONChars(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: most of a skill body needs no
		// escape, and a byte-at-a-time scan measures as the largest cost
		// of a body read's answer.
		for i+8 <= len(s) && plainASCII8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// plainASCII8 reports whether the 8 bytes of b are all printable ASCII
// other than '"' and '\\': bytes appendJSONString copies as they are.
func plainASCII8(b string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	// A byte is flagged when its high bit is set (non-ASCII), when it is
	// below 0x20, or when it equals '"' or '\\' (x^c has a zero byte
	// there); the usual "has a byte less than n" trick, exact because
	// bytes with the high bit set are caught separately.
	less := (x - ones*0x20) &^ x
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	zero := ((quote - ones) &^ quote) | ((slash - ones) &^ slash)
	return (x|less|zero)&highs == 0
}

// appendJSONFloat appends a finite f as encoding/json writes a float64:
// the shortest decimal that reads back as f, in exponent form only below
// 1e-6 or from 1e21, with a one-digit negative exponent unpadded.
// Callers pass finite values only (scores, z): JSON has no NaN.
func appendJSONFloat(dst []byte, f float64) []byte {
	// Whole numbers (every z of most agents) need no float formatting;
	// -0 is left to strconv, which keeps its sign as encoding/json does.
	if i := int64(f); float64(i) == f && i > -1e15 && i < 1e15 && (i != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(dst, i, 10)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// "1e-07" → "1e-7"
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// encodedStringLen bounds the length of b, text encoding/json wrote itself
// (no control bytes, valid UTF-8, U+2028 and U+2029 already escaped),
// encoded again as a JSON string with HTML escaping on, quotes included.
func encodedStringLen(b []byte) int {
	n := 2 + len(b)
	for _, c := range b {
		switch c {
		case '"', '\\':
			n++
		case '<', '>', '&':
			n += 5
		}
	}
	return n
}

// encodeResult encodes a result as compact JSON without HTML escaping, as
// appendAnswer would.
func encodeResult(res any) (preEncoded, error) {
	return appendEncoded(nil, res)
}

// encodedTool is a tools/call result encoded once, as appendAnswer would
// encode the toolCallResult it comes from; isError is kept so the answer
// cache can still refuse tool errors.
type encodedTool struct {
	enc     preEncoded
	isError bool
	// buf, when set, is the toolBufs entry enc was encoded into: the
	// stdio connection returns it once the answer line is copied out
	// (putAnswer). Anything else that keeps an encodedTool (the answer
	// cache keeps enc itself, and returns that instead) simply leaves the
	// buffer to the collector.
	buf *[]byte
}

// toolBufs recycles the buffers tool results are encoded into. A route's
// answer is a few KB that lives only until its line is copied to the
// output; allocated per request it measures at over half of the bytes a
// small agent's route allocates, and the collections they cost.
var toolBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledToolBuf keeps a large answer's buffer out of the pool.
const maxPooledToolBuf = 64 << 10

// releaseTool returns a pooled result's buffer once nothing reads it.
func releaseTool(t encodedTool) {
	if t.buf != nil && cap(t.enc) <= maxPooledToolBuf {
		*t.buf = t.enc[:0]
		toolBufs.Put(t.buf)
	}
}

// MarshalJSON returns the encoded result, so an encodedTool marshals as
// the toolCallResult it stands for (appendAnswer copies t.enc directly).
func (t encodedTool) MarshalJSON() ([]byte, error) { return t.enc, nil }
