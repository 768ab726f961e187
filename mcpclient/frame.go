package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/agent3md/agent3md/internal/jsoncheck"
)

// LineReader reads newline-delimited messages (docs/protocol.md §2) with a
// bound on a line's length: the rest of a longer line is skipped without
// being held in memory, and the line is reported as too long. A trailing
// "\r" is dropped, and so is the last line's missing newline.
type LineReader struct {
	br  *bufio.Reader
	max int
}

// NewLineReader reads r in lines of at most max bytes (without the
// newline).
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Buffered is how many bytes are read and not yet returned: a server
// that answers lines in batches flushes when none are left.
func (lr *LineReader) Buffered() int { return lr.br.Buffered() }

// Next returns the next line, a copy the caller owns. tooLong reports a
// line over the bound, of which nothing is returned. err is io.EOF at the
// end of the input (the last line may come with it).
func (lr *LineReader) Next() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if !tooLong {
			n := len(line) + len(chunk)
			if err == nil {
				n-- // the '\n' itself
			}
			if n > lr.max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		return line, tooLong, err
	}
}

// envelope is what dispatch needs of a received message, read without
// decoding the rest: its id (raw, nil when absent) and its method.
type envelope struct {
	id        []byte
	method    string
	hasMethod bool
}

// kind of a received message.
func (e envelope) request() bool {
	return e.hasMethod && len(e.id) > 0 && string(e.id) != "null"
}

// errNotEnvelope marks a line that is not a JSON object with a usable id
// and method; Decode says what exactly is wrong with it.
var errNotEnvelope = errors.New("not a JSON-RPC message")

// peekEnvelope reads the id and method of one message by scanning its
// top-level members, skipping the values of the others without decoding
// them: a client that pipelines thousands of requests dispatches each answer
// without paying for a full decode on the reading goroutine (the caller
// decodes its own answer, as and when it wants). Once the id and a result
// or error are seen the scan stops: the rest is the caller's to read.
func peekEnvelope(b []byte) (envelope, error) {
	var env envelope
	seenID := false
	var bad bool
	err := eachMember(b, func(key, value []byte) bool {
		switch string(key) {
		case "id":
			env.id, seenID = value, true
		case "method":
			if json.Unmarshal(value, &env.method) != nil {
				bad = true
				return false
			}
			// A null or empty method is no method, as Decode reads it.
			env.hasMethod = env.method != ""
		case "result", "error":
			return !seenID || env.hasMethod
		}
		return true
	})
	if err != nil || bad {
		return envelope{}, errNotEnvelope
	}
	return env, nil
}

// eachMember calls fn with the key (decoded) and raw value of each
// top-level member of the JSON object b, in order, until fn returns
// false. Values are skipped, not decoded (jsoncheck.Members): it checks
// nesting and strings, not every token.
func eachMember(b []byte, fn func(key, value []byte) bool) error {
	bad := false
	err := jsoncheck.Members(b, func(name, value []byte) bool {
		key, ok := unquote(name)
		if !ok {
			bad = true
			return false
		}
		return fn(key, value)
	})
	if err != nil || bad {
		return errNotEnvelope
	}
	return nil
}

// unquote decodes a member name with its quotes (the raw bytes inside
// them when it has no escapes).
func unquote(name []byte) ([]byte, bool) {
	raw := name[1 : len(name)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw, true
	}
	var s string
	if json.Unmarshal(name, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}
